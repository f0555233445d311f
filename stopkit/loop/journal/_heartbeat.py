"""The heartbeat: one daemon thread per process renewing the lease of every open durable run.

A lease must outlive the longest model or tool call, yet expire soon after its worker died.
So it is short (`lease_seconds`) and renewed every third of it while the run is open: by each
recorded step, and between steps by this thread. One thread for all runs (started on first
use, idle when none is open), not one per run: starting a thread costs about a millisecond.

A forked child starts with a fresh heartbeat: it has no copy of the parent's thread, so the
parent's lock may be held forever in the child, and the parent's runs are not the child's to
renew (their leases are the parent's, and the parent's heartbeat keeps them).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Protocol

__all__ = ["HEARTBEAT", "Beating", "Heartbeat"]

logger = logging.getLogger("stopkit.loop")


class Beating(Protocol):
    """A run whose lease the heartbeat keeps."""

    every: float
    """Seconds between renewals."""
    renewed: float
    """`time.monotonic()` of the last renewal."""

    def renew(self) -> bool:
        """Renew the lease; False when it was lost (the heartbeat then drops the run)."""
        ...


class Heartbeat:
    """Renews the leases of the runs added to it, each every `every` seconds."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._runs: dict[int, Beating] = {}
        self._thread: threading.Thread | None = None
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        """In a forked child: a new lock, no run, no thread (the parent's are the parent's)."""
        self._wake = threading.Condition()
        self._runs = {}
        self._thread = None

    def add(self, run: Beating) -> None:
        """Keep `run`'s lease from now on (starting the thread when it is not running)."""
        with self._wake:
            run.renewed = time.monotonic()
            self._runs[id(run)] = run
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._beat, daemon=True, name="stopkit-heartbeat"
                )
                self._thread.start()
            self._wake.notify()

    def remove(self, run: Beating) -> None:
        """Stop keeping `run`'s lease."""
        with self._wake:
            self._runs.pop(id(run), None)

    def _due(self) -> tuple[list[Beating], float | None]:
        """Return the runs due for renewal and how long until the next one is (None: no run)."""
        now = time.monotonic()
        due = [run for run in self._runs.values() if now - run.renewed >= run.every]
        waits = [run.renewed + run.every - now for run in self._runs.values() if run not in due]
        return due, (min(waits) if waits else (None if not due else 0.0))

    def _beat(self) -> None:
        while True:
            with self._wake:
                due, wait = self._due()
                if not due:
                    self._wake.wait(wait)
                    continue
            for run in due:
                try:
                    if not run.renew():
                        self.remove(run)
                except Exception:  # a dropped connection: the run's next step reports it
                    logger.exception("stopkit: renewing a run's lease failed")
                    run.renewed = time.monotonic()


HEARTBEAT = Heartbeat()
"""The process's one heartbeat."""
