"""The shell every stream accumulator shares: the reader it is given, a cached `result()`.

An accumulator rebuilds the reply its events amount to, reads it with the adapter's own reader
(given in the constructor, so the wire module imports its stream module and never the other
way round), and sets on that reading what only the stream knows: whether it reached its
terminal event, an error it carried, its own notes. `result()` decides the reading once per
event fed; `feed` clears the cache.

Example:
    >>> class Nothing(Accumulator):
    ...     rules = Rules("demo", "finish", {})
    ...     def _reading(self):
    ...         return self._settle(Reading(raw={}), end="end event", ended=False)
    >>> Nothing(lambda reply: Reading(reply)).result().detail
    'stream_incomplete'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from stopkit._stop import Stop
from stopkit.adapters._engine import Rules, decide
from stopkit.adapters._reading import Reading

__all__ = ["Accumulator"]


class Accumulator:
    """A stream accumulator's shared part: subclasses set `rules` and write `_reading()`."""

    rules: ClassVar[Rules]

    def __init__(self, read: Callable[[Any], Reading]) -> None:
        self._read = read
        self._cached: Stop | None = None

    def result(self) -> Stop:
        """Return the `Stop` of what was fed so far (`stream_incomplete` before the end)."""
        if self._cached is None:
            self._cached = decide(self._reading(), self.rules)
        return self._cached

    def _reading(self) -> Reading:
        """The reading of the reply rebuilt so far, with the stream's facts set."""
        raise NotImplementedError

    @staticmethod
    def _settle(
        reading: Reading,
        *,
        end: str,
        ended: bool,
        late: int = 0,
        error: Any = None,
        error_note: str = "",
    ) -> Reading:
        """Set what only the stream knows: whether it reached its `end`, its error, late events.

        `end` names the terminal event in the notes (`message-end event`, `done: true chunk`).
        """
        reading.ended = ended
        notes = reading.notes
        if error is not None:
            reading.error = reading.details["error"] = error
            notes.append(error_note)
        if not ended:
            notes.append(f"the stream ended without its {end}")
        if late:
            events = "1 event" if late == 1 else f"{late} events"
            notes.append(f"{events} arrived after the {end}: no text or call taken from them")
        return reading
