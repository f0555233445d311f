"""The shell every stream accumulator shares: the reader it is given, cached `results()`, settling.

An accumulator rebuilds the reply its events amount to, reads it with the adapter's own reader
(given in the constructor, so the wire module imports its stream module and never the other
way round), and sets on that reading what only the stream knows (`_settle`): whether it
reached its terminal event, an error it carried, the events that came after the end.
`results()` decides the readings once per event fed (one per choice; `result()` is the
first's); `feed` clears the cache.

Example:
    >>> class Nothing(Accumulator[Reading]):
    ...     rules = Rules("demo", "finish", {})
    ...     def feed(self, event):
    ...         self._cached = None
    ...     def _reading(self):
    ...         return self._settle(Reading(raw={}), end="end event", ended=False)
    >>> Nothing(lambda reply: Reading(reply)).result().detail
    'stream_incomplete'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

from stopkit._stop import Stop
from stopkit.adapters._engine import decide
from stopkit.adapters._reading import Reading
from stopkit.adapters._rules import Rules
from stopkit.adapters._text_pieces import TextPieces

__all__ = ["Accumulator"]

_Read = TypeVar("_Read")
"""What the adapter's reader gives for a whole reply: a `Reading`, or one per choice."""


class Accumulator(Generic[_Read]):
    """A stream accumulator's shared part: subclasses set `rules` and write `feed`, `_reading()`.

    A stream of several choices writes `_readings()` instead (one reading per choice).
    """

    rules: ClassVar[Rules]
    """The rules a stream of this kind is decided by, unless the constructor is given others."""

    def __init__(self, read: Callable[[Any], _Read], rules: Rules | None = None) -> None:
        self._read = read
        self._rules = self.rules if rules is None else rules  # a framework's own, over a wire's
        self._cached: tuple[Stop, ...] | None = None
        self._told = TextPieces()
        """The visible text as it was told (`text_pieces`), where the subclass tells it."""

    def feed(self, event: Any) -> None:
        """Take one event or chunk (an SDK event object or the parsed JSON `data:` object)."""
        raise NotImplementedError

    def results(self) -> tuple[Stop, ...]:
        """Return one `Stop` per choice fed so far (`stream_incomplete` before the end)."""
        if self._cached is None:
            self._cached = tuple(decide(reading, self._rules) for reading in self._readings())
        return self._cached

    def result(self) -> Stop:
        """Return the `Stop` of what was fed so far (the first choice's, where there are more)."""
        return self.results()[0]

    def text_pieces(self) -> list[str] | None:
        """The visible text so far, as its pieces (see `stopkit._adapter.StreamAccumulator`)."""
        return self._told.pieces

    def _readings(self) -> list[Reading]:
        """The readings of the reply rebuilt so far, one per choice, the stream's facts set."""
        return [self._reading()]

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
        error_key: str = "error",
        cut_note: str = "",
        late_note: str = "",
    ) -> Reading:
        """Set what only the stream knows: whether it reached its `end`, its error, late events.

        `end` names the terminal event in the notes (`message-end event`, `done: true chunk`);
        a stream whose notes say it otherwise passes `cut_note` (it ended before `end`) and
        `late_note` (`late` events came after it). The error is kept in `details[error_key]`.
        """
        reading.ended = ended
        notes = reading.notes
        if error is not None:
            reading.error = reading.details[error_key] = error
            notes.append(error_note)
        if not ended:
            notes.append(cut_note or f"the stream ended without its {end}")
        if late:
            events = "1 event" if late == 1 else f"{late} events"
            notes.append(
                late_note or f"{events} arrived after the {end}: no text or call taken from them"
            )
        return reading
