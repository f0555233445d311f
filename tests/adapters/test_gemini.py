"""The gemini adapter beyond the payload table: SDK drift, enum numbering, continuing, streams."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from google.genai import types as genai_types

import stopkit
from stopkit import StopReason, ToolResult
from stopkit.adapters import _gemini_rules as rules
from stopkit.adapters.gemini import BLOCK_REASONS, FINISH_REASONS, GeminiAdapter
from tests._payloads import PAYLOADS, load_cases
from tests.sdk_forms.gemini import to_sdk

CASES = PAYLOADS / "gemini"
ADAPTER = GeminiAdapter()

#: The detail vocabulary of the shared brief, per reason.
DETAILS: dict[StopReason, set[str | None]] = {
    StopReason.OUTPUT_LIMIT: {"max_tokens", "context_window"},
    StopReason.FILTERED: {
        "refusal",
        "safety",
        "recitation",
        "prompt_blocked",
        "guardrail",
        "policy",
    },
    StopReason.PAUSED: {"continuation"},
    StopReason.UNKNOWN: {"unrecognized", "error", "missing"},
    StopReason.COMPLETED: {None},
}

#: Every field of google-genai's `Part`, by what the adapter does with it.
PART_FIELDS = {
    "text", "thought", "thought_signature",  # text (thoughts excluded), signature sent back
    "function_call",  # a client tool call
    "executable_code", "code_execution_result", "tool_call", "tool_response",  # server-side
    "function_response", "inline_data", "file_data", "video_metadata", "media_resolution",
    "part_metadata", "audio_transcription", "media_processing", "speech_metadata",
    "document_metadata", "spreadsheet_metadata", "audio_metadata",  # data: kept, not read
}  # fmt: skip


def _case(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CASES / name).read_text())
    return data


def _reply(name: str) -> dict[str, Any]:
    reply: dict[str, Any] = _case(name)["reply"]
    return reply


def test_every_sdk_finish_reason_is_mapped() -> None:
    """Every member of the installed google-genai `FinishReason` has a row in the table."""
    assert {m.value for m in genai_types.FinishReason} <= set(FINISH_REASONS)
    assert len(genai_types.FinishReason) >= 24


def test_every_sdk_blocked_reason_is_mapped() -> None:
    """Every member of the installed google-genai `BlockedReason` has a row in the table."""
    assert {m.value for m in genai_types.BlockedReason} <= set(BLOCK_REASONS)
    assert len(genai_types.BlockedReason) >= 8


def test_table_details_use_the_shared_vocabulary() -> None:
    """Each (reason, detail) pair of both tables is one the shared brief allows."""
    for table in ADAPTER.tables.values():
        for raw, (reason, detail) in table.items():
            assert detail in DETAILS[reason], (raw, reason, detail)


def test_every_table_value_has_a_payload_case() -> None:
    """Every raw value of both tables is the raw_reason of at least one payload case."""
    seen = {c.expect.get("raw_reason") for c in load_cases(CASES) if "raw_reason" in c.expect}
    assert set(FINISH_REASONS) - seen == set()
    assert set(BLOCK_REASONS) - seen == set()


def test_every_sdk_part_field_has_a_rule() -> None:
    """A new `Part` field in google-genai fails here until someone decides what it means."""
    assert set(genai_types.Part.model_fields) == PART_FIELDS


def test_enum_numbering_names_are_sdk_values() -> None:
    """Every decoded number names a member of the SDK enum, and the two numberings share 0-5."""
    finish = {m.value for m in genai_types.FinishReason}
    blocked = {m.value for m in genai_types.BlockedReason}
    for numbers in (rules.GEMINI_API_FINISH_NUMBERS, rules.VERTEX_FINISH_NUMBERS):
        assert set(numbers.values()) <= finish
    for numbers in (rules.GEMINI_API_BLOCK_NUMBERS, rules.VERTEX_BLOCK_NUMBERS):
        assert set(numbers.values()) <= blocked
    for n in range(6):
        assert rules.GEMINI_API_FINISH_NUMBERS[n] == rules.VERTEX_FINISH_NUMBERS[n]


@pytest.mark.parametrize(
    ("number", "vertex", "name"),
    [
        (1, False, "STOP"),
        (2, True, "MAX_TOKENS"),
        (6, False, "LANGUAGE"),
        (6, True, "BLOCKLIST"),
        (9, False, "SPII"),
        (9, True, "MALFORMED_FUNCTION_CALL"),
        (12, False, "UNEXPECTED_TOOL_CALL"),
        (17, False, "IMAGE_RECITATION"),
    ],
)
def test_integer_finish_reason_decodes_by_api(number: int, vertex: bool, name: str) -> None:
    """An int finishReason is decoded with the numbering of the API that sent it."""
    reply: dict[str, Any] = {"candidates": [{"content": {"parts": [{"text": "x"}]},
                                             "finishReason": number}]}  # fmt: skip
    if vertex:
        reply["createTime"] = "2025-08-19T15:20:47Z"
    stop = stopkit.normalize(reply)
    expected_reason, expected_detail = FINISH_REASONS[name]
    assert (stop.reason, stop.detail, stop.raw_reason) == (expected_reason, expected_detail, number)
    assert stop.details["decoded_reason"] == name


def test_bool_finish_reason_is_malformed_not_an_int() -> None:
    """`true` is not the enum number 1: a bool finishReason is malformed."""
    stop = stopkit.normalize({"candidates": [{"finishReason": True}]})
    assert (stop.reason, stop.detail) == (StopReason.UNKNOWN, "malformed")


@pytest.mark.parametrize(("sent", "synthetic"), [(None, True), ("", True), (["x"], False)])
def test_call_ids_absent_are_made_up_and_of_the_wrong_type_are_not_runnable(
    sent: Any, synthetic: bool
) -> None:
    """A call without an id gets `<name>_<n>`; an id that is not a string leaves it unrunnable."""
    call: dict[str, Any] = {"name": "f", "args": {}}
    if sent is not None:
        call["id"] = sent
    reply = {
        "candidates": [{"content": {"parts": [{"functionCall": call}]}, "finishReason": "STOP"}]
    }
    (made,) = stopkit.normalize(reply).tool_calls
    assert (made.id == "f_0", made.complete) == (synthetic, synthetic)
    if not synthetic:
        assert made.error == "the call's id is a list, not a string"


def test_normalize_all_gives_one_stop_per_candidate() -> None:
    """Two candidates give two Stops, each with its own reason and text."""
    stops = stopkit.normalize_all(_reply("multiple_candidates.json"))
    assert [(s.reason.value, s.text) for s in stops] == [
        ("completed", "Answer A"),
        ("output_limit", "Answer B is longer"),
    ]
    assert [s.details["candidate_index"] for s in stops] == [0, 1]


def test_normalize_all_of_a_blocked_prompt_is_one_filtered_stop() -> None:
    """A blocked prompt has no candidates: normalize_all returns its single filtered Stop."""
    (stop,) = stopkit.normalize_all(_reply("prompt_blocked_safety.json"))
    assert (stop.reason, stop.detail) == (StopReason.FILTERED, "prompt_blocked")


def test_filtered_candidate_keeps_finish_message_and_ratings() -> None:
    """A filtered candidate keeps its finishMessage and safetyRatings in details."""
    stop = stopkit.normalize(_reply("model_armor.json"))
    assert "Responsible AI" in stop.details["finish_message"]
    stop = stopkit.normalize(_reply("safety.json"))
    assert stop.details["safety_ratings"][0]["blocked"] is True


def test_lowercase_value_is_read_case_insensitively() -> None:
    """A lowercase finishReason keeps its raw spelling and says how it was read."""
    stop = stopkit.normalize(_reply("lowercase_value.json"))
    assert stop.raw_reason == "stop"
    assert any("case-insensitive" in note for note in stop.notes)


def test_detects_only_gemini_shapes() -> None:
    """Detection accepts Gemini bodies and SDK objects and rejects other providers' shapes."""
    assert ADAPTER.detects(_reply("stop_text.json"))
    assert ADAPTER.detects(to_sdk(_reply("stop_text.json")))
    assert not ADAPTER.detects({"object": "chat.completion", "choices": []})
    assert not ADAPTER.detects({"type": "message", "content": []})
    assert not ADAPTER.detects("candidates")
    assert not ADAPTER.detects(None)


# --- continuing the conversation ---------------------------------------------------------


def test_assistant_message_sends_parts_back_as_sent() -> None:
    """The model content goes back with every part, thought parts and signatures included."""
    reply = _reply("stop_function_call_with_id.json")
    (message,) = ADAPTER.assistant_message(stopkit.normalize(reply))
    assert message == {"role": "model", "parts": reply["candidates"][0]["content"]["parts"]}
    assert message["parts"][1]["thoughtSignature"] == "CiQBjz1rX4Kq3s8mVw=="


def test_assistant_message_from_sdk_object_is_camel_case_json() -> None:
    """An SDK reply's content is dumped to REST camelCase JSON, the signature as base64."""
    reply = _reply("stop_function_call_with_id.json")
    (message,) = ADAPTER.assistant_message(stopkit.normalize(to_sdk(reply)))
    part = message["parts"][1]
    assert part["functionCall"] == {
        "id": "fc_7d2a",
        "name": "get_weather",
        "args": {"city": "Oslo"},
    }
    assert base64.urlsafe_b64decode(part["thoughtSignature"]) == base64.b64decode(
        "CiQBjz1rX4Kq3s8mVw=="
    )
    json.dumps(message)


def test_assistant_message_drops_only_blank_unsigned_text() -> None:
    """A blank text part goes back only when it carries a thought signature."""
    parts = [{"text": "a"}, {"text": "", "thoughtSignature": "c2ln"}, {"text": ""}]
    stop = stopkit.normalize({"candidates": [{"content": {"role": "model", "parts": parts},
                                              "finishReason": "STOP"}]})  # fmt: skip
    assert ADAPTER.assistant_message(stop) == [{"role": "model", "parts": parts[:2]}]
    blank = {"candidates": [{"content": {"parts": [{"text": ""}]}, "finishReason": "STOP"}]}
    assert ADAPTER.assistant_message(stopkit.normalize(blank)) == []


def test_assistant_message_of_second_candidate() -> None:
    """normalize_all's Stops each send back their own candidate's content."""
    stops = stopkit.normalize_all(_reply("multiple_candidates.json"))
    assert ADAPTER.assistant_message(stops[1])[0]["parts"] == [{"text": "Answer B is longer"}]


def test_assistant_message_of_blocked_prompt_is_empty() -> None:
    """A blocked prompt has no model content to append."""
    assert ADAPTER.assistant_message(stopkit.normalize(_reply("prompt_blocked_safety.json"))) == []


def test_assistant_message_of_stream_assembles_parts() -> None:
    """From a stream, text pieces are merged, streamed arguments assembled, signatures kept."""
    stop = stopkit.normalize_stream(_case("stream_partial_args.stream.json")["events"])
    (message,) = ADAPTER.assistant_message(stop)
    first, second = message["parts"]  # the closing blank text part is not sent back
    assert first["functionCall"]["args"] == stop.tool_calls[0].arguments
    assert first["thoughtSignature"] == "CmIBjz1rX0OQAtrZ"
    assert second == {"functionCall": {"name": "set_timer", "args": {"minutes": 45}}}
    stop = stopkit.normalize_stream(_case("stream_thought_signature.stream.json")["events"])
    (message,) = ADAPTER.assistant_message(stop)
    assert message["parts"] == [
        {"text": "**Weighing** the options", "thought": True},
        {"text": "The answer is 42.", "thoughtSignature": "EuQBCuEBAdHtim8="},
    ]


def test_tool_results_one_part_per_call_in_order() -> None:
    """One user content; one functionResponse per call in the calls' order; no synthetic ids."""
    stop = stopkit.normalize(_reply("stop_parallel_calls.json"))
    ids = [call.id for call in stop.tool_calls]
    results = [
        ToolResult(call_id=ids[2], name="get_time", content="12:00"),
        ToolResult(call_id=ids[0], name="get_weather", content='{"temp": 21}'),
        ToolResult(call_id=ids[1], name="get_weather", content="boom", is_error=True),
    ]
    (content,) = ADAPTER.tool_results(stop, results)
    assert content == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"temp": 21}}},
            {"functionResponse": {"name": "get_weather", "response": {"error": "boom"}}},
            {"functionResponse": {"name": "get_time", "response": {"result": "12:00"}}},
        ],
    }


def test_tool_results_send_the_id_the_call_had() -> None:
    """A call that came with an id gets it back in its functionResponse."""
    stop = stopkit.normalize(_reply("stop_function_call_with_id.json"))
    (content,) = ADAPTER.tool_results(
        stop, [ToolResult(call_id="fc_7d2a", name="get_weather", content="[1, 2]")]
    )
    assert content["parts"] == [
        {"functionResponse": {"name": "get_weather", "id": "fc_7d2a",
                              "response": {"result": "[1, 2]"}}}
    ]  # fmt: skip


def test_tool_results_empty() -> None:
    """No results, no message."""
    assert ADAPTER.tool_results(stopkit.normalize(_reply("stop_text.json")), []) == []


def test_resume_continuation_sends_the_token() -> None:
    """A CONTINUATION Stop resumes with no new messages and the token as an override."""
    stop = stopkit.normalize(_reply("continuation.json"))
    assert ADAPTER.resume(stop) == ([], {"continuation_token": "Q2hhcHRlcl9vbmVfdG9rZW4="})


def test_resume_token_from_sdk_object_round_trips_into_the_config() -> None:
    """The SDK holds the token as bytes; the override is a string its config decodes back."""
    reply = to_sdk(_reply("continuation.json"))
    stop = stopkit.normalize(reply)
    _, overrides = ADAPTER.resume(stop)
    config = genai_types.GenerateContentConfig(**overrides)
    assert config.continuation_token == base64.b64decode("Q2hhcHRlcl9vbmVfdG9rZW4=")


def test_resume_from_stream() -> None:
    """A streamed CONTINUATION resumes with the token of its last chunk."""
    stop = stopkit.normalize_stream(_case("stream_continuation.stream.json")["events"])
    assert ADAPTER.resume(stop)[1] == {"continuation_token": "Q2hhcHRlcl9vbmVfdG9rZW4="}


def test_resume_refuses_a_stop_that_is_not_paused() -> None:
    """resume() of a completed Stop is a caller error."""
    with pytest.raises(ValueError, match="paused"):
        ADAPTER.resume(stopkit.normalize(_reply("stop_text.json")))
