"""The watchdog: one daemon thread cutting the journal transactions that outlast their bound.

libpq waits for the server's answer without a bound of its own: a server that stops answering
(a hung process, a network path dropping packets while the TCP connection stays up) would hold
a journal write, and the heartbeat's renewal with it, forever. `watching(seconds, cut)` around
a transaction has `cut()` called once `seconds` have passed and the transaction is still open
(`PostgresJournal` shuts its connection's socket down: the wait ends with an error). One
thread for every journal of the process, started on first use, asleep while nothing is due: a
transaction costs it a dict entry, and a wake-up only when it is the soonest due.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["WATCHDOG", "Watchdog"]

logger = logging.getLogger("stopkit.loop")


class Watchdog:
    """Calls the `cut` of each watched piece of work still open at its deadline."""

    def __init__(self) -> None:
        self._reset()
        # A forked child starts afresh: its parent's thread is not in it, and may have held
        # the lock when the parent forked. (No fork, no hook: Windows.)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._wake = threading.Condition()
        self._watched: dict[int, tuple[float, Callable[[], None]]] = {}
        self._until: float | None = None  # when the thread wakes next (None: not asleep)
        self._thread: threading.Thread | None = None

    @contextmanager
    def watching(self, seconds: float, cut: Callable[[], None]) -> Iterator[None]:
        """Have `cut()` called if the `with` block is still running `seconds` from now."""
        deadline = time.monotonic() + seconds
        key = id(cut)
        with self._wake:
            self._watched[key] = (deadline, cut)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, daemon=True, name="stopkit-watchdog"
                )
                self._thread.start()
            elif self._until is None or deadline < self._until:
                self._wake.notify()
        try:
            yield
        finally:
            with self._wake:
                self._watched.pop(key, None)

    def _watch(self) -> None:
        while True:
            with self._wake:
                now = time.monotonic()
                due = [key for key, (deadline, _) in self._watched.items() if deadline <= now]
                if not due:
                    left = [deadline - now for deadline, _ in self._watched.values()]
                    self._until = now + min(left) if left else None
                    self._wake.wait(min(left) if left else None)
                    self._until = None
                    continue
                # Cut while holding the lock: the work cannot end, and other work begin on the
                # same connection, between the look at its deadline and the cut.
                for key in due:
                    _, cut = self._watched.pop(key)
                    try:
                        cut()
                    except Exception:  # a cut that fails must not stop the watchdog
                        logger.exception("stopkit: cutting a journal transaction off failed")


WATCHDOG = Watchdog()
"""The process's one watchdog."""
