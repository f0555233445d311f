"""Oracles for the text a stream tells `on_text`, shared by the stream-text suites."""

from __future__ import annotations

from typing import Any

import stopkit
from stopkit.loop._streams import Streamed, read_stream


def growth(adapter: Any, events: list[Any]) -> str:
    """The text told as the growth of `result().text`, event by event.

    A reference oracle kept on purpose: the way `on_text` was told before accumulators had
    `text_pieces`, which the linear way must agree with.
    """
    accumulator = adapter.stream()
    told, known = [], ""
    for event in events:
        accumulator.feed(event)
        text = accumulator.result().text
        if len(text) > len(known) and text.startswith(known):
            told.append(text[len(known) :])
        known = text
    return "".join(told)


def assert_pieces_join(adapter: Any, events: list[Any]) -> None:
    """After every event, the text pieces (where told) join to `result().text`."""
    accumulator = adapter.stream()
    held: list[str] | None = None
    for event in events:
        before = None if held is None else list(held)
        accumulator.feed(event)
        pieces = accumulator.text_pieces()
        if pieces is None:
            continue
        assert "".join(pieces) == accumulator.result().text
        if pieces is held and before is not None:
            assert pieces[: len(before)] == before  # only ever appended to
        held = pieces


class Counting:
    """An accumulator that counts its `result()` calls."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.results = inner, 0

    def feed(self, event: Any) -> None:
        self.inner.feed(event)

    def result(self) -> stopkit.Stop:
        self.results += 1
        return self.inner.result()  # type: ignore[no-any-return]

    def text_pieces(self) -> list[str] | None:
        pieces_of = getattr(self.inner, "text_pieces", None)  # an accumulator may have none
        return None if pieces_of is None else pieces_of()


def tell_counting(adapter: Any, events: list[Any]) -> tuple[list[str], Streamed, int]:
    """Read `events` as the loop does with `on_text`: told pieces, result, `Stop`s asked for."""
    counting = Counting(adapter.stream())

    class Adapter:
        def __init__(self) -> None:
            self.name = adapter.name

        def stream(self) -> Counting:
            return counting

    told: list[str] = []
    streamed = read_stream(iter(events), Adapter(), told.append)  # type: ignore[arg-type]
    return told, streamed, counting.results
