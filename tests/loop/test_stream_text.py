"""The text a streaming `call_model` hands to `on_text`: every piece once, in linear time."""

from __future__ import annotations

from typing import Any

import pytest

import stopkit
from stopkit.loop._streams import read_stream
from tests._payloads import load_cases

STREAMS = [case for case in load_cases() if case.is_stream]
PIECES = [
    case for case in STREAMS if hasattr(stopkit.get_adapter(case.adapter).stream(), "text_pieces")
]


def _growth(adapter: Any, events: list[Any]) -> str:
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


@pytest.mark.parametrize("case", PIECES, ids=lambda case: case.id)
def test_text_pieces_join_to_the_stops_text_after_every_event(case: Any) -> None:
    """Where an accumulator tells its text pieces, they join to `result().text` at every step."""
    accumulator = stopkit.get_adapter(case.adapter).stream()
    held: list[str] | None = None
    for event in case.data["events"]:
        before = None if held is None else list(held)
        accumulator.feed(event)
        pieces = accumulator.text_pieces()
        if pieces is None:
            continue
        assert "".join(pieces) == accumulator.result().text
        if pieces is held and before is not None:
            assert pieces[: len(before)] == before  # only ever appended to
        held = pieces


@pytest.mark.parametrize("case", STREAMS, ids=lambda case: case.id)
def test_on_text_tells_what_the_texts_growth_tells(case: Any) -> None:
    """`on_text` gets, piece by piece, the same text the growth of `Stop.text` tells."""
    adapter = stopkit.get_adapter(case.adapter)
    told: list[str] = []
    read_stream(iter(case.data["events"]), adapter, told.append)
    assert "".join(told) == _growth(adapter, case.data["events"])
    assert "" not in told


def _block(index: int, kind: str = "text", text: str = "") -> dict[str, Any]:
    return {
        "type": "content_block_start",
        "index": index,
        "content_block": {"type": kind, "text": text},
    }


def _piece(index: int, text: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "text_delta", "text": text},
    }


class _Counting:
    """An accumulator that counts its `result()` calls."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.results = inner, 0

    def feed(self, event: Any) -> None:
        self.inner.feed(event)

    def result(self) -> stopkit.Stop:
        self.results += 1
        return self.inner.result()  # type: ignore[no-any-return]

    def text_pieces(self) -> list[str] | None:
        return self.inner.text_pieces()  # type: ignore[no-any-return]


_CHUNK = {"object": "chat.completion.chunk"}


@pytest.mark.parametrize(
    ("name", "first", "piece", "last"),
    [
        (
            "openai.chat",
            None,
            {**_CHUNK, "choices": [{"index": 0, "delta": {"content": "word "}}]},
            {**_CHUNK, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        ),
        (
            "anthropic",
            _block(0),
            _piece(0, "word "),
            {"type": "message_stop"},
        ),
    ],
)  # fmt: skip
def test_a_long_streams_text_is_told_without_reading_the_stop_at_every_event(
    name: str, first: Any, piece: Any, last: Any
) -> None:
    """Telling 2,000 pieces reads no `Stop` per event: the text comes from the pieces."""
    adapter = stopkit.get_adapter(name)
    counting = _Counting(adapter.stream())

    class Adapter:
        def __init__(self) -> None:
            self.name = adapter.name

        def stream(self) -> _Counting:
            return counting

    events = [e for e in (first, *[piece] * 2000, last) if e is not None]
    told: list[str] = []
    streamed = read_stream(iter(events), Adapter(), told.append)  # type: ignore[arg-type]
    assert "".join(told) == "word " * 2000
    assert counting.results <= 2  # the end's Stop, not one per event
    assert streamed.stop is not None
    assert streamed.stop.text == "word " * 2000


@pytest.mark.parametrize(
    "events",
    [
        [_block(0, text="Hi"), _piece(0, " there"), _block(1), _piece(1, "!"), _piece(0, " late")],
        [_block(0), _piece(0, "first"), _block(0, text="again"), _piece(0, " more")],
        [_block(0, "thinking"), _piece(0, "hm"), _block(1), _piece(1, "Answer.")],
    ],
    ids=["an-older-block-written-after-a-newer", "a-block-started-again", "thinking-then-text"],
)  # fmt: skip
def test_anthropic_blocks_out_of_turn_tell_what_the_texts_growth_tells(events: Any) -> None:
    """Blocks written out of turn or started again: the text told still follows `Stop.text`."""
    adapter = stopkit.get_adapter("anthropic")
    told: list[str] = []
    read_stream(iter(events), adapter, told.append)
    assert "".join(told) == _growth(adapter, events)
