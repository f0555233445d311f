"""The Gemini stream accumulator: chunks in, the Stop of the reply they amount to.

The accumulator's rules beyond the payload table: what ends a candidate, the stricter of two
finishReasons, what arrives after the end, calls still streaming, and work linear in the chunks.
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

import stopkit
from stopkit import StopReason
from tests._payloads import PAYLOADS, same_stop
from tests.sdk_forms.gemini import to_sdk_event

ADAPTER = stopkit.get_adapter("gemini")

_USAGE = {"promptTokenCount": 12, "candidatesTokenCount": 8, "totalTokenCount": 20}


def _chunk(*parts: dict[str, Any], finish: Any = None, **fields: Any) -> dict[str, Any]:
    """One `streamGenerateContent` chunk holding `parts` (and a finishReason when given)."""
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash", **fields}


def _case(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PAYLOADS / "gemini" / name).read_text())
    return data


def _run(events: list[Any]) -> stopkit.Stop:
    accumulator = ADAPTER.stream()
    for event in events:
        accumulator.feed(event)
    return accumulator.result()


# --- reading a stream ---------------------------------------------------------------------


def test_result_can_be_called_twice_and_mid_stream() -> None:
    """result() is repeatable, and says stream_incomplete until the finishReason arrives."""
    events = _case("stream_text.stream.json")["events"]
    acc = ADAPTER.stream()
    acc.feed(events[0])
    assert acc.result().detail == "stream_incomplete"
    for event in events[1:]:
        acc.feed(event)
    same_stop(acc.result(), acc.result())
    assert acc.result().text == "The capital of France is Paris."


def test_sdk_chunks_with_partial_args_give_the_same_calls() -> None:
    """google-genai chunk objects (PartialArg models) assemble to the same arguments as JSON."""
    events = _case("stream_partial_args.stream.json")["events"]
    objects = [to_sdk_event(e) for e in events]
    same_stop(stopkit.normalize_stream(objects), stopkit.normalize_stream(events))


def test_cut_stream_keeps_a_continuation_checkpoint() -> None:
    """A stream cut after a continuationToken checkpoint says it can be resumed."""
    events = [
        {"candidates": [{"content": {"parts": [{"text": "a"}]}, "continuationToken": "dG9r"}]},
    ]
    stop = stopkit.normalize_stream(events)
    assert stop.detail == "stream_incomplete"
    assert stop.details["continuation_token"] == "dG9r"
    assert any("resumed" in note for note in stop.notes)


def test_a_new_call_closes_an_unterminated_streamed_call() -> None:
    """A named functionCall arriving while another is still streaming starts a new call."""
    events = [
        {"candidates": [{"content": {"parts": [
            {"functionCall": {"name": "a", "willContinue": True}},
        ]}}]},
        {"candidates": [{"content": {"parts": [
            {"functionCall": {"partialArgs": [{"jsonPath": "$.x", "numberValue": 1}],
                              "willContinue": True}},
        ]}}]},
        {"candidates": [{"content": {"parts": [
            {"functionCall": {"name": "b", "args": {"y": 2}}},
        ]}}], },
        {"candidates": [{"content": {"parts": [{"text": ""}]}, "finishReason": "STOP"}]},
    ]  # fmt: skip
    stop = stopkit.normalize_stream(events)
    assert stop.reason is StopReason.TOOL_REQUEST
    assert [(c.name, c.arguments) for c in stop.tool_calls] == [("a", {"x": 1}), ("b", {"y": 2})]


def test_unreadable_partial_args_make_the_call_incomplete() -> None:
    """A streamed call whose JSONPath cannot be read is complete=False, so nothing runs.

    The reply is still a tool request: the loop answers the bad call with an error (as every
    adapter reads a pending call it cannot run), and never runs it.
    """
    events = [
        {"candidates": [{"content": {"parts": [
            {"functionCall": {"name": "f", "willContinue": True}},
        ]}}]},
        {"candidates": [{"content": {"parts": [
            {"functionCall": {"partialArgs": [{"jsonPath": "oops", "stringValue": "v"}]}},
        ]}}]},
        {"candidates": [{"finishReason": "STOP"}]},
    ]  # fmt: skip
    stop = stopkit.normalize_stream(events)
    assert stop.reason is StopReason.TOOL_REQUEST
    assert stop.tool_calls[0].complete is False
    assert "'oops'" in (stop.tool_calls[0].error or "")
    assert stop.runnable_tool_calls == ()


def test_stream_notes_present() -> None:
    """The adapter says how streaming differs, for the docs' reason tables."""
    assert len(ADAPTER.stream_notes) >= 2


# --- the terminal chunk ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "kept", "reason", "detail"),
    [
        ("SAFETY", "STOP", "SAFETY", StopReason.FILTERED, "safety"),
        ("RECITATION", "STOP", "RECITATION", StopReason.FILTERED, "recitation"),
        ("PROHIBITED_CONTENT", "STOP", "PROHIBITED_CONTENT", StopReason.FILTERED, "safety"),
        ("MAX_TOKENS", "STOP", "MAX_TOKENS", StopReason.OUTPUT_LIMIT, "max_tokens"),
        ("STOP", "SAFETY", "SAFETY", StopReason.FILTERED, "safety"),
        ("STOP", "MAX_TOKENS", "MAX_TOKENS", StopReason.OUTPUT_LIMIT, "max_tokens"),
    ],
)
def test_the_stricter_of_two_finish_reasons_wins(
    first: str, second: str, kept: str, reason: StopReason, detail: str
) -> None:
    """A second finishReason replaces the first only when it is at least as strict."""
    events = [
        _chunk({"text": "Here is "}),
        _chunk(finish=first),
        _chunk({"text": ""}, finish=second),
    ]
    stop = _run(events)
    assert (stop.reason, stop.detail, stop.raw_reason) == (reason, detail, kept)
    assert stop.text == "Here is "


@pytest.mark.parametrize("unset", ["", "FINISH_REASON_UNSPECIFIED", 0])
def test_an_unset_finish_reason_does_not_end_the_stream(unset: Any) -> None:
    """Chunks whose finishReason is the enum's unset value (as protobuf emits it) go on."""
    call = {"functionCall": {"name": "f", "args": {"a": 1}}}
    events = [
        _chunk({"text": "Hel"}, finish=unset),
        _chunk({"text": "lo"}, finish=unset),
        _chunk(call, finish=unset),
        _chunk(finish="STOP"),
    ]
    stop = _run(events)
    assert (stop.reason, stop.text, stop.raw_reason) == (StopReason.TOOL_REQUEST, "Hello", "STOP")
    assert [c.name for c in stop.runnable_tool_calls] == ["f"]
    assert _run(events[:3]).detail == "stream_incomplete"


def test_nothing_after_the_finish_reason_changes_the_reply() -> None:
    """Text, calls and errors sent after the finishReason chunk are not taken; a note counts."""
    late = _chunk({"text": " and more"}, {"functionCall": {"name": "wire_money", "args": {}}})
    error = {"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}}
    stop = _run([_chunk({"text": "Done."}, finish="STOP"), late, _chunk({"text": "!"}), error])
    assert (stop.reason, stop.text, stop.tool_calls) == (StopReason.COMPLETED, "Done.", ())
    assert "error" not in stop.details
    assert any("3 events arrived after the finishReason chunk" in note for note in stop.notes)


def test_usage_and_metadata_after_the_finish_reason_are_read() -> None:
    """A usage chunk sent after the finishReason chunk is read, as its non-streaming twin is."""
    events = [
        _chunk({"text": "Done."}),
        _chunk({"text": ""}, finish="STOP"),
        {"usageMetadata": {**_USAGE, "thoughtsTokenCount": 30}, "modelVersion": "gemini-2.5-pro"},
    ]
    twin = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "Done."}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": {**_USAGE, "thoughtsTokenCount": 30},
        "modelVersion": "gemini-2.5-pro",
    }
    stop = _run(events)
    same_stop(stop, stopkit.normalize(twin))
    assert stop.usage is not None
    assert stop.usage.reasoning_tokens == 30
    assert stop.details["model_version"] == "gemini-2.5-pro"
    assert not [note for note in stop.notes if "after the finishReason" in note]


# --- calls streamed in pieces (Vertex partialArgs / willContinue) ------------------------------


def test_a_call_still_open_at_the_finish_reason_is_incomplete() -> None:
    """A streamed call whose willContinue never closed is complete=False, as in its twin."""
    piece = {"jsonPath": "$.a", "stringValue": "b"}
    events = [
        _chunk({"functionCall": {"name": "f", "willContinue": True}}),
        _chunk({"functionCall": {"partialArgs": [piece], "willContinue": True}}),
        _chunk(finish="STOP"),
    ]
    twin = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {
                                "name": "f",
                                "partialArgs": [piece],
                                "willContinue": True,
                            }
                        }
                    ],
                },
                "finishReason": "STOP",
            }
        ]
    }
    stop = _run(events)
    same_stop(stop, stopkit.normalize(twin))
    (call,) = stop.tool_calls
    assert (call.name, call.arguments, call.complete) == ("f", {"a": "b"}, False)
    assert stop.runnable_tool_calls == ()
    assert any("still open" in note for note in stop.notes)


#: JSONPath indexes stopkit does not follow: past its bound, too long to be a number, or not
#: written in ASCII digits (`²` passes `str.isdigit` and fails `int`; U+0661 is Arabic-Indic one,
#: which `int` reads as 1).
_UNFOLLOWED = [
    "$.a[100000000]",
    "$.a[1000000000000]",
    "$.a[" + "9" * 5000 + "]",
    "$.a[²]",
    "$.a[\u0661]",
]


def _partial_reply(path: str) -> dict[str, Any]:
    call = {"name": "f", "partialArgs": [{"jsonPath": path, "stringValue": "v"}]}
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"functionCall": call}]},
                "finishReason": "STOP",
            }
        ]
    }


@pytest.mark.parametrize("form", ["reply", "stream"])
@pytest.mark.parametrize("path", _UNFOLLOWED, ids=lambda p: p[:20])
def test_a_json_path_stopkit_will_not_follow_makes_the_call_incomplete(
    path: str, form: str
) -> None:
    """A partialArgs path past the bound is an incomplete call with an error, never an exception.

    The work stays bounded: reading the reply allocates well under a megabyte.
    """
    reply = _partial_reply(path)
    tracemalloc.start()
    try:
        stop = stopkit.normalize(reply) if form == "reply" else _run([reply])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    (call,) = stop.tool_calls
    assert call.complete is False
    assert call.error is not None
    assert "jsonPath" in call.error
    assert stop.runnable_tool_calls == ()
    assert peak < 1_000_000


# --- work linear in the chunks ----------------------------------------------------------------


def _allocated_per_chunk(events: list[Any]) -> float:
    """Feed `events`; return the bytes each feed allocated at its peak, on average.

    A feed that re-copies what came before allocates in proportion to it, so the average grows
    with the stream's length; a linear accumulator's stays flat.
    """
    accumulator = ADAPTER.stream()
    total = 0
    tracemalloc.start()
    try:
        for event in events:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            accumulator.feed(event)
            total += tracemalloc.get_traced_memory()[1] - before
        accumulator.result()
    finally:
        tracemalloc.stop()
    return total / len(events)


def _args_chunks(n: int) -> list[Any]:
    opening = _chunk({"functionCall": {"name": "f", "willContinue": True}})
    pieces = [
        _chunk({"functionCall": {"args": {f"k{i}": i}, "willContinue": True}}) for i in range(n)
    ]
    return [opening, *pieces, _chunk({"functionCall": {}}, finish="STOP")]


def _partial_chunks(n: int) -> list[Any]:
    opening = _chunk({"functionCall": {"name": "f", "willContinue": True}})
    pieces = [
        _chunk(
            {
                "functionCall": {
                    "partialArgs": [
                        {"jsonPath": f"$.k{i}", "stringValue": "v", "willContinue": True}
                    ],
                    "willContinue": True,
                }
            }
        )
        for i in range(n)
    ]
    return [opening, *pieces, _chunk({"functionCall": {}}, finish="STOP")]


def _text_chunks(n: int) -> list[Any]:
    return [*(_chunk({"text": f"word{i} "}) for i in range(n)), _chunk(finish="STOP")]


@pytest.mark.parametrize(
    "build", [_args_chunks, _partial_chunks, _text_chunks], ids=["args", "partialArgs", "text"]
)
def test_each_chunk_costs_the_same_however_long_the_stream(
    build: Callable[[int], list[Any]],
) -> None:
    """Feeding a chunk allocates about as much at chunk 4,000 as at chunk 500 (no re-copying)."""
    short, long = _allocated_per_chunk(build(500)), _allocated_per_chunk(build(4000))
    assert long < 2 * short + 512, (short, long)
