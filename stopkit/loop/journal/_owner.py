"""Who holds a run's lease: a worker's name, and whether that worker is a process now gone.

A worker is named `<host>:<pid>:<nonce>` (the nonce tells apart the run attempts of one
process) and, on Linux, `:<pid namespace>` after it: the inode of `/proc/self/ns/pid`. A lease
whose holder names this host and this process namespace, and a process that no longer runs
(none by that pid, or a zombie), belongs to a worker killed on this machine: the journal takes
it over at once instead of waiting for it to expire (`SqlJournal.acquire`).

Only then: a name from another host, or another container that shares the host's name but not
its processes (another namespace), or from a system that has no process namespaces to compare
(macOS, Windows: no takeover, the lease runs out as before), is never taken for a dead one. A
pid reused by a new process reads as alive: the run waits, which is safe.

Example:
    >>> new_owner().count(":") in (2, 3)
    True
"""

from __future__ import annotations

import os
import socket
import uuid

__all__ = ["dead_here", "new_owner"]


def _namespace() -> str | None:
    """Return this process's PID namespace (Linux), None where there is none to read."""
    try:
        link = os.readlink("/proc/self/ns/pid")  # 'pid:[4026531836]'
    except OSError:
        return None
    return link.partition("[")[2].rstrip("]") or None


def new_owner() -> str:
    """Name this worker for a new run attempt: host, process, nonce (and PID namespace)."""
    name = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    namespace = _namespace()
    return name if namespace is None else f"{name}:{namespace}"


def dead_here(owner: str | None) -> bool:
    """Say whether `owner` is a worker process of this machine (and namespace) that is gone."""
    parts = owner.split(":") if isinstance(owner, str) else []
    namespace = _namespace()
    if len(parts) != 4 or namespace is None or parts[3] != namespace:
        return False
    host, pid, _, _ = parts
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():  # this very process: alive (another of its run attempts)
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            state = stat.read().rpartition(")")[2].split()[:1]
    except FileNotFoundError:  # no such process
        return True
    except OSError:  # cannot tell: take it for alive
        return False
    return state in (["Z"], ["X"])  # a zombie (killed, not yet reaped), or dead
