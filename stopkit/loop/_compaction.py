"""Compaction at a threshold: `compact(messages)` before the model call that would pass it.

With `compact_at_tokens=N` (and `compact`), the run measures the conversation before each
model call: `estimate_tokens(messages)` when given, else the last reply's prompt (its input
tokens, with the cached prompt where the wire format counts that apart). Past `N`, it calls
`compact` and sends the model what it returned (a `Compacted` event gives the sizes). A
`compact` that did not make the transcript smaller is not called again until the measure has
dropped to `N` or below (a new crossing): never in a loop. The `context_window` path
(`retry_with_more_tokens` calling `compact` after the window overflowed) stays the last resort.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stopkit._counting import prompt_tokens
from stopkit._stop import Stop
from stopkit.loop._controls import Control, ModelCall
from stopkit.loop._settings import LoopSettings
from stopkit.loop.events import Compacted

__all__ = ["Compactor"]


class Compactor(Control):
    """Compacts one run's transcript before a model call once it passes `compact_at_tokens`.

    Not before the summing-up call, which is sent the transcript and one more message.

    Example:
        >>> compactor = Compactor(LoopSettings(compact=lambda m: m[-2:], compact_at_tokens=9,
        ...                       estimate_tokens=len))
        >>> transcript = list(range(12))
        >>> compactor.before_call(ModelCall(1, transcript, {}, None))
        >>> transcript
        [10, 11]
    """

    def __init__(self, settings: LoopSettings) -> None:
        self.at = settings.compact_at_tokens
        self.compact = settings.compact
        self.estimate = settings.estimate_tokens
        self.armed = True  # False: compact did not help in this crossing; wait for the next
        self.last: Stop | None = None  # the last reply: its prompt tokens are the measure

    def replied(self, call: ModelCall, stop: Stop) -> None:
        self.last = stop

    def carry(self, old: Control) -> None:
        """A resumed run measures as the paused one did, armed or not."""
        assert isinstance(old, Compactor)
        self.armed, self.last = old.armed, old.last

    def before_call(self, call: ModelCall) -> None:
        """Compact the transcript in place before a turn's model call when it is past the mark."""
        if not call.summing_up:
            self.compact_past_mark(call.turn, call.messages, self.last)

    def measure(self, messages: Sequence[Any], last: Stop | None) -> int | None:
        """Return the conversation's size in tokens as the threshold reads it (None: unknown)."""
        if self.estimate is not None:
            return _estimated(self.estimate, messages)
        if last is None or last.usage is None:
            return None
        return prompt_tokens(last.provider, last.usage)

    def compact_past_mark(self, turn: int, transcript: list[Any], last: Stop | None) -> None:
        """Compact `transcript` in place before the model call of `turn` when it is past the mark.

        `last` is the last reply (its input tokens are the measure without `estimate_tokens`).
        """
        at, compact = self.at, self.compact
        if at is None or compact is None:
            return
        size = self.measure(transcript, last)
        if size is None:
            return
        if size <= at:
            self.armed = True
            return
        if not self.armed:
            return
        compacted = compact(list(transcript))
        if not isinstance(compacted, Sequence) or isinstance(compacted, str | bytes):
            raise TypeError(
                f"compact(messages) must return a list of messages, not {type(compacted).__name__}"
            )
        after = None if self.estimate is None else _estimated(self.estimate, compacted)
        before = len(transcript)
        smaller = after < size if after is not None else len(compacted) < before
        # Not smaller: calling it again on the same transcript would give the same, forever.
        self.armed = smaller
        transcript[:] = compacted
        if self.tell is not None:
            self.tell(Compacted(turn, before, len(compacted), size, after))


def _estimated(estimate: Callable[[list[Any]], int], messages: Sequence[Any]) -> int:
    """Return `estimate(messages)`, checked: an int of at least 0."""
    value = estimate(list(messages))
    if type(value) is not int or value < 0:
        raise TypeError(f"estimate_tokens(messages) must return an int >= 0, not {value!r}")
    return value
