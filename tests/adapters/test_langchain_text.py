"""A LangChain stream's text, told as it arrives: the pieces follow LangChain's own merge.

Each case is a list of chunk contents (what an integration yields: a string, or content blocks
with an `index`), ended by a chunk carrying a stop value. After every chunk the pieces must
join to the text of the chunks merged by langchain-core itself; where the merge writes text
before text already told, the pieces are given up and the loop reads the merged message.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk

import stopkit
from stopkit.adapters._langchain_text import ContentPieces
from tests._stream_text import assert_pieces_join, growth, tell_counting

ADAPTER = stopkit.get_adapter("langchain")
_END = AIMessageChunk(
    content="", response_metadata={"model_provider": "openai", "finish_reason": "stop"}
)


def _text(text: Any, index: Any = 0, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": text, "index": index, **extra}


# name -> (the chunks' contents, the merged text, whether the pieces still say it at the end)
CASES: dict[str, tuple[list[Any], str, bool]] = {
    "strings (ChatOpenAI)": (["Hel", "lo", "", " world"], "Hello world", True),
    "blocks merged by index (ChatAnthropic)": (
        ["", [_text("Let")], [_text(" me")], [{"type": "tool_use", "index": 1, "id": "t1"}]],
        "Let me",
        True,
    ),
    "thinking, then text whose later blocks carry no type": (
        [
            [{"type": "thinking", "thinking": "hm", "index": 0}],
            [{"type": "thinking", "thinking": "m", "index": 0}],
            [_text("Answer", 1)],
            [{"text": ".", "index": 1}],
        ],
        "Answer.",
        True,
    ),
    "lc_ string indexes (output_version v1)": (
        [[_text("Hi", "lc_txt_0")], [_text("!", "lc_txt_0")], [_text(" Bye", "lc_txt_1")]],
        "Hi! Bye",
        True,
    ),
    "a string after blocks is appended": ([[_text("A")], "B", "C"], "ABC", True),
    "blocks after a string follow it": (["A", [_text("B")], [_text("C")]], "ABC", True),
    "strings among the blocks": ([[_text("A"), "B"], ["C"], "D", [_text("E", 1)]], "ABCDE", True),
    "blocks with no index are appended": ([[_text("A", None)], [_text("B", None)]], "AB", True),
    "the same index under another id is another block": (
        [[_text("A", id="x")], [_text("B", id="y")], [_text("C", id="y")], [_text("D")]],
        "ADBC",
        False,
    ),
    "an id given later keeps the block apart from another id": (
        [[_text("A")], [_text("B", id="x")], [_text("C", id="y")]],
        "ABC",
        True,
    ),
    "a string after an empty list is dropped": ([[], "Hi", [_text("Yes")]], "Yes", True),
    "an earlier block written after a later one": (
        [[_text("A")], [_text("B", 1)], [_text(" late")], [_text("C", 1)]],
        "A lateBC",
        False,
    ),
    "the first chunk's blocks of one index stay apart": (
        [[_text("A"), _text("B")], [_text("C")]],
        "ACB",
        False,
    ),
    "a text block holding no string": ([[_text("A")], [_text(None)], [_text("B")]], "AB", True),
    "a refusal block is not text": (
        [[_text("I")], [{"type": "refusal", "refusal": "No", "index": 1}]],
        "I",
        True,
    ),
}


def _chunks(contents: list[Any]) -> list[AIMessageChunk]:
    return [*(AIMessageChunk(content=content) for content in contents), _END]


@pytest.mark.parametrize(("contents", "text", "kept"), list(CASES.values()), ids=list(CASES))
def test_the_pieces_join_to_the_text_langchain_merges(
    contents: list[Any], text: str, kept: bool
) -> None:
    """After every chunk the pieces say the merged text, or are given up; told = its growth."""
    chunks = _chunks(contents)
    merged = chunks[0] + chunks[1:]
    assert merged.text == text  # the case says what langchain-core itself merges
    assert_pieces_join(ADAPTER, chunks)
    accumulator: Any = ADAPTER.stream()
    for chunk in chunks:
        accumulator.feed(chunk)
    assert accumulator.result().text == text
    assert (accumulator.text_pieces() is not None) is kept
    told, streamed, _ = tell_counting(ADAPTER, chunks)
    assert "".join(told) == growth(ADAPTER, chunks)
    assert streamed.stop is not None
    assert streamed.stop.text == text


@pytest.mark.parametrize(
    "piece",
    [AIMessageChunk(content="word "), AIMessageChunk(content=[_text("word ")])],
    ids=["strings", "blocks"],
)
def test_a_long_stream_is_told_without_merging_its_chunks_at_every_chunk(
    piece: AIMessageChunk,
) -> None:
    """2,000 chunks are told piece by piece: the chunks are merged for the end's Stop only."""
    told, streamed, results = tell_counting(ADAPTER, [piece] * 2000 + [_END])
    assert "".join(told) == "word " * 2000
    assert results <= 2
    assert streamed.stop is not None
    assert streamed.stop.text == "word " * 2000


def test_text_after_the_end_is_not_told() -> None:
    """A chunk after the stop value adds no text, as it adds none to the Stop."""
    late = AIMessageChunk(content=" late")
    told, streamed, _ = tell_counting(ADAPTER, [AIMessageChunk(content="Hi"), _END, late])
    assert told == ["Hi"]
    assert streamed.stop is not None
    assert streamed.stop.text == "Hi"


def test_content_that_is_neither_a_string_nor_a_list_gives_the_pieces_up() -> None:
    """What LangChain would not merge is left to the merged message."""
    told = ContentPieces()
    told.take("Hi", first=True)
    told.take(42)
    assert told.pieces.pieces is None
