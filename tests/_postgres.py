"""A throwaway PostgreSQL cluster for the tests: started in a directory, on a free local port.

`.ci/run` starts one (`python tests/_postgres.py start DIR` prints its DSN) and exports the DSN
as `STOPKIT_TEST_POSTGRES_DSN`; without it, the tests start their own where the server's
programs are installed. As root, `initdb` refuses to run: the cluster then belongs to the
`postgres` user (or `nobody`), through `runuser`. `crash` stops a server as a power cut would
(`pg_ctl stop -m immediate`: no shutdown checkpoint, what is not in the WAL files is lost) and
`restart` starts it again, with the options it was started with (the server then recovers).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

__all__ = ["crash", "find_program", "restart", "running", "start", "stop"]


def find_program(name: str) -> str | None:
    """Return the path of a PostgreSQL program: on PATH, else in Debian's versioned folders."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_owner(directory: Path) -> list[str]:
    """Return the command prefix running a server program as a user who may (not root)."""
    if os.geteuid() != 0:
        return []
    for user in ("postgres", "nobody"):
        try:
            import pwd

            entry = pwd.getpwnam(user)
        except KeyError:
            continue
        for path in (directory, *directory.rglob("*")):
            os.chown(path, entry.pw_uid, entry.pw_gid)
        return ["runuser", "-u", user, "--"]
    raise RuntimeError("running as root, and there is no postgres or nobody user to run as")


def start(
    directory: str | os.PathLike[str], *, fast: bool = True, settings: dict[str, str] | None = None
) -> str:
    """Initialise and start a cluster in `directory` (created); return its DSN.

    `fast` turns off fsync: for tests that kill clients, not the server. `settings` are more
    server settings (`{"wal_writer_delay": "10s"}`). Raises RuntimeError saying why when the
    cluster cannot be started.
    """
    initdb = find_program("initdb")
    if initdb is None or find_program("pg_ctl") is None:
        raise RuntimeError("PostgreSQL's initdb and pg_ctl are not installed")
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir(exist_ok=True)
    prefix = _as_owner(root)
    port = _free_port()
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1"
    if fast:
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    options += "".join(f" -c {name}={value}" for name, value in (settings or {}).items())
    (root / "options").write_text(options)
    if prefix:  # initdb creates `data` itself; the owner needs the folder to write it in
        _as_owner(root)
    _run(root, [*prefix, initdb, "-D", str(data), "-U", "stopkit", "--auth=trust", "-E", "UTF8"])
    restart(root)
    (root / "dsn").write_text(f"postgresql://stopkit@127.0.0.1:{port}/postgres")
    return (root / "dsn").read_text()


def _run(root: Path, command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, cwd=root)
    if done.returncode != 0:
        log = root / "server.log"
        tail = log.read_text()[-2000:] if log.exists() else ""
        program = next(part for part in command if part.startswith("/"))
        raise RuntimeError(f"{program} failed: {done.stderr.strip()} {tail}")


def restart(directory: str | os.PathLike[str]) -> None:
    """Start the cluster of `directory` again (after `crash`, it recovers from its WAL first)."""
    root = Path(directory)
    pg_ctl = find_program("pg_ctl")
    assert pg_ctl is not None, "start() found it"
    _run(root, [*_as_owner(root), pg_ctl, "-D", str(root / "data"), "-o",
                (root / "options").read_text(), "-l", str(root / "server.log"), "-w", "-t", "60",
                "start"])  # fmt: skip


def crash(directory: str | os.PathLike[str]) -> None:
    """Stop the cluster of `directory` at once, as a crash would: no checkpoint, no WAL flush."""
    root = Path(directory)
    pg_ctl = find_program("pg_ctl")
    assert pg_ctl is not None, "start() found it"
    _run(root, [*_as_owner(root), pg_ctl, "-D", str(root / "data"), "-m", "immediate", "-w",
                "stop"])  # fmt: skip


def running(directory: str | os.PathLike[str]) -> bool:
    """Say whether the cluster of `directory` is running."""
    root = Path(directory)
    pg_ctl = find_program("pg_ctl")
    assert pg_ctl is not None, "start() found it"
    status = [*_as_owner(root), pg_ctl, "-D", str(root / "data"), "status"]
    return subprocess.run(status, capture_output=True, check=False).returncode == 0


def stop(directory: str | os.PathLike[str]) -> None:
    """Stop the cluster started in `directory` (at once: it is thrown away)."""
    root = Path(directory)
    pg_ctl = find_program("pg_ctl")
    if pg_ctl is None or not (root / "data").exists():
        return
    subprocess.run(
        [*_as_owner(root), pg_ctl, "-D", str(root / "data"), "-m", "immediate", "-w", "stop"],
        capture_output=True,
        check=False,
    )


if __name__ == "__main__":  # .ci/run: `start DIR` prints the DSN, `stop DIR`
    action, where = sys.argv[1], sys.argv[2]
    if action == "start":
        print(start(where, fast="--durable" not in sys.argv))
    else:
        stop(where)
