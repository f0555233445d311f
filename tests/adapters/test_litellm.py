"""The `litellm` adapter: LiteLLM's replies, read by the provider's own value where LiteLLM kept it.

The objects are LiteLLM's own: built with its constructors (`ModelResponse`, `Choices`,
`ModelResponseStream`), or returned by `litellm.completion` itself answering from a recorded
reply through `stopkit.record.ReplayTransport` (no network). LiteLLM objects are not JSON bodies
(their JSON is a plain Chat completion, which openai.chat reads), so the payload-based suites do
not run on this adapter (tests/_adapters.py, FRAMEWORKS): its cases are here.
"""

from __future__ import annotations

import asyncio
import json
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import httpx
import httpx2
import openai
import pytest

# LiteLLM fetches its model cost map from the network when imported, unless told to use the
# copy it ships: tests never touch the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # imported after the variable above, which keeps it offline
from litellm.litellm_core_utils.core_helpers import _FINISH_REASON_MAP, map_finish_reason
from litellm.llms.custom_httpx.http_handler import HTTPHandler
from litellm.types.llms.openai import OpenAIChatCompletionFinishReason
from litellm.types.utils import (
    Choices,
    Message,
    ModelResponse,
    ModelResponseStream,
)

import stopkit
import stopkit.record
from stopkit import StopReason, ToolResult
from stopkit.adapters._litellm_rules import (
    COLLAPSED,
    KEPT_STOP_REASON,
    LITELLM_FINISH_REASON,
    NATIVE,
    wire_of,
)
from stopkit.testing import assert_stop
from tests._payloads import same_stop

# LiteLLM's own code makes pydantic warn: its `ReadOnly` TypedDict items when they first build,
# and model attributes its stream handler reads the deprecated way. Neither is stopkit's doing.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Items? .* using the `ReadOnly` qualifier:UserWarning"),
    pytest.mark.filterwarnings("ignore:Accessing the '.*' attribute on the instance is deprecated"),
]


@pytest.fixture(autouse=True, scope="module")
def _close_the_loop_litellm_leaves() -> Iterator[None]:
    """Close the event loop a sync `litellm.completion` sets on the main thread and leaves open.

    Its service logger calls `asyncio.get_event_loop()`, which makes and sets a loop; left open,
    its collection would warn during some later test.
    """
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # when none was set: one is made
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:  # a loop was explicitly unset (by another test): none is left open
            return
    if not loop.is_running():
        loop.close()
    asyncio.set_event_loop(None)


RECORDINGS = Path(__file__).parents[1] / "recordings"
ADAPTER = stopkit.get_adapter("litellm")
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}
# One LiteLLM provider name per wire format a native value may be in.
PROVIDER_OF = {"openai.chat": "openai", "anthropic": "anthropic", "bedrock": "bedrock",
               "gemini": "gemini", "ollama": "ollama_chat", "cohere": "cohere_chat"}  # fmt: skip


def _reply(
    finish: Any,
    *,
    provider: str | None = None,
    model: str = "some-model",
    calls: bool = False,
    **message: Any,
) -> ModelResponse:
    content = message.pop("content", "Paris is sunny.")
    body = {"role": "assistant", "content": content, **message}
    if calls:
        body["tool_calls"] = [CALL]
    reply = ModelResponse(
        model=model, choices=[{"index": 0, "finish_reason": finish, "message": body}]
    )
    if provider:  # as litellm.completion sets it on the reply it returns
        reply._hidden_params = {"custom_llm_provider": provider}
    return reply


# --- every value of every table ---------------------------------------------------------------

# Where the wire format's provider step reinterprets a value, its answer (not the table's) is
# expected: Gemini's CONTINUATION resumes only from a continuationToken, which LiteLLM's reply
# does not keep, so it is unknown/missing, as the gemini adapter reads a reply without one.
STEPPED = {("gemini", "CONTINUATION"): (StopReason.UNKNOWN, "missing")}

NATIVE_ROWS = [
    pytest.param(name, raw, id=f"{name}-{raw or 'empty'}")
    for name, rules in NATIVE.items()
    for raw in rules.table
]


@pytest.mark.parametrize(("name", "raw"), NATIVE_ROWS)
def test_every_provider_value_reads_through_its_wire_table(name: str, raw: str) -> None:
    """The provider's own value, given to LiteLLM's `Choices`, reads as its wire table says.

    Where LiteLLM maps the value to another it keeps it as `native_finish_reason`; where the
    value is OpenAI's own it is kept as the finish_reason: either way the provider's row.
    """
    reason, detail = STEPPED.get((name, raw), NATIVE[name].table[raw])
    reply = _reply(raw, provider=PROVIDER_OF[name], calls=reason is StopReason.TOOL_REQUEST)
    stop = stopkit.normalize(reply)
    assert (stop.reason, stop.detail, stop.raw_reason) == (reason, detail, raw)
    assert (stop.provider, stop.details["integration"]) == ("litellm", PROVIDER_OF[name])


@pytest.mark.parametrize("raw", list(KEPT_STOP_REASON.table))
def test_every_anthropic_stop_reason_kept_in_the_message_reads_through_anthropics_table(
    raw: str,
) -> None:
    """Anthropic's `stop_reason`, kept in the message's provider fields by LiteLLM, wins."""
    reason, detail = KEPT_STOP_REASON.table[raw]
    mapped = _FINISH_REASON_MAP[raw]
    reply = _reply(
        mapped,
        provider="anthropic",
        calls=reason is StopReason.TOOL_REQUEST,
        provider_specific_fields={"stop_reason": raw},
    )
    assert_stop(reply, reason=reason.value, detail=detail, raw_reason=raw)


@pytest.mark.parametrize("own", list(LITELLM_FINISH_REASON))
def test_every_value_of_litellms_own_reads_through_its_table_with_a_note(own: str) -> None:
    """Where LiteLLM kept no provider value, its own finish_reason is read, and a note says so."""
    reason, detail = LITELLM_FINISH_REASON[own]
    reply = _reply("stop", calls=reason is StopReason.TOOL_REQUEST)
    reply.choices[0].finish_reason = own  # LiteLLM's streaming handler sets its values this way
    assert_stop(
        reply,
        reason=reason.value,
        detail=detail,
        raw_reason=own,
        notes=["LiteLLM kept no native_finish_reason"],
    )


# --- what LiteLLM itself knows, pinned (SDK drift) --------------------------------------------


def test_litellms_own_values_are_its_finish_reason_type() -> None:
    """LiteLLM's own table holds exactly the values of `OpenAIChatCompletionFinishReason`."""
    assert set(LITELLM_FINISH_REASON) == set(get_args(OpenAIChatCompletionFinishReason))
    assert set(_FINISH_REASON_MAP.values()) <= set(LITELLM_FINISH_REASON)


# Values LiteLLM maps that no built-in table holds: each reads as LiteLLM maps it (its documented
# map), never as `completed` when LiteLLM made it `stop`.
# (Cohere v1's ERROR_TOXIC, HuggingFace's eos_token, Zhipu's network_error and sensitive.)
_OFF_TABLE = {
    "ERROR_TOXIC": "filtered",
    "eos_token": "unknown",
    "network_error": "unknown",
    "sensitive": "filtered",
}


@pytest.mark.parametrize("raw", sorted(_FINISH_REASON_MAP))
def test_every_value_litellm_maps_reads_with_a_table(raw: str) -> None:
    """Each provider value LiteLLM's map knows is in a built-in table, or is one named above."""
    tables = [rules.table for rules in NATIVE.values()]
    if raw in _OFF_TABLE:
        assert not any(raw in table for table in tables)
        assert_stop(_reply(raw), reason=_OFF_TABLE[raw], raw_reason=raw)
    else:
        assert any(raw in table for table in tables), raw


# --- where the provider's value is kept, and where not ----------------------------------------


def test_litellms_collapsed_values_are_its_map_of_each_wire_table() -> None:
    """COLLAPSED holds, per wire format, each LiteLLM value its map sends several values to."""
    found: dict[str, dict[str, list[str]]] = {}
    for name, rules in NATIVE.items():
        groups: dict[str, list[str]] = {}
        for raw in rules.table:
            groups.setdefault(map_finish_reason(raw) if raw else "stop", []).append(raw)
        found[name] = {own: values for own, values in groups.items() if len(values) > 1}
    assert {name: {own: list(v) for own, v in by.items()} for name, by in COLLAPSED.items()} == {
        name: by for name, by in found.items() if by
    }


@pytest.mark.parametrize(
    ("name", "detail"),
    [(name, None if "length" in COLLAPSED.get(name, {}) else "max_tokens") for name in NATIVE],
)
def test_a_length_with_no_provider_value_kept_names_no_ceiling_where_it_collapsed(
    name: str, detail: str | None
) -> None:
    """LiteLLM's `length`, no value kept: output_limit, with no detail where `length` collapsed."""
    stop = assert_stop(
        _reply("length", provider=PROVIDER_OF[name]),
        reason="output_limit",
        detail=detail,
        raw_reason="length",
        notes=["LiteLLM kept no native_finish_reason"],
    )
    if detail is None:
        assert any("LiteLLM did not keep the provider's value" in n for n in stop.notes)
        assert any(repr(COLLAPSED[name]["length"][0]) in n for n in stop.notes)


@pytest.mark.parametrize("raw", ["model_context_window_exceeded", "compaction", "max_tokens"])
@pytest.mark.parametrize("stream", [False, True], ids=["reply", "stream"])
def test_litellm_collapses_anthropic_ceilings_and_compaction_into_a_length_of_no_detail(
    raw: str, stream: bool, tmp_path: Path
) -> None:
    """`litellm.completion` on Anthropic's ceilings or compaction: output_limit, detail None."""
    name = "max_tokens.stream" if stream else "max_tokens"
    recording = json.loads((RECORDINGS / "anthropic" / f"{name}.json").read_text())
    said = recording["response"]
    if stream:
        (delta,) = [e for e in said["events"] if e.get("type") == "message_delta"]
        delta["delta"]["stop_reason"] = raw
    else:
        said["body"]["stop_reason"] = raw
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(recording))
    got = _completion("anthropic", path, stream)
    stop = stopkit.normalize_stream(list(got)) if stream else stopkit.normalize(got)
    assert (stop.reason.value, stop.detail, stop.raw_reason) == ("output_limit", None, "length")
    assert any("LiteLLM did not keep the provider's value" in n for n in stop.notes)


def test_a_value_litellm_turned_into_stop_is_not_completed() -> None:
    """An unknown value LiteLLM made `stop` (keeping it as native) is unknown, as sent."""
    stop = assert_stop(
        _reply("brand_new_reason", provider="openai"),
        reason="unknown",
        detail="unrecognized",
        raw_reason="brand_new_reason",
    )
    assert stop.details["litellm_finish_reason"] == "stop"


def test_a_missing_value_is_what_litellm_made_of_it_with_a_note() -> None:
    """A choice without finish_reason gets LiteLLM's `stop`: read, with a note saying so."""
    assert_stop(
        _reply(None),
        reason="completed",
        raw_reason="stop",
        notes=["turns a missing value into 'stop'"],
    )


def test_the_hidden_params_copy_of_the_kept_stop_reason() -> None:
    """A reply whose message lost its provider fields still has `_hidden_params`' copy."""
    reply = _reply("length", provider="anthropic")
    reply._hidden_params["provider_specific_fields"] = {"stop_reason": "pause_turn"}
    assert_stop(reply, reason="paused", raw_reason="pause_turn")


@pytest.mark.parametrize(
    ("hidden", "model", "expected"),
    [
        ({"custom_llm_provider": "vertex_ai"}, "gemini-2.5-pro", ("gemini", "vertex_ai")),
        (
            {"custom_llm_provider": "vertex_ai"},
            "claude-sonnet-4-5@2025",
            ("anthropic", "vertex_ai"),
        ),
        ({"custom_llm_provider": "groq"}, "llama-3.3-70b", ("openai.chat", "groq")),
        (
            {"litellm_model_name": "gemini/gemini-2.5-flash"},
            "gemini-2.5-flash",
            ("gemini", "gemini"),
        ),
        ({"litellm_model_name": "openai/gpt-4o"}, "gpt-4o", ("openai.chat", "openai")),
        (None, "ollama_chat/llama3", ("ollama", "ollama_chat")),
        (None, "meta-llama/Llama-3-8b", ("openai.chat", None)),
        (None, "claude-sonnet-4-5", ("anthropic", None)),
        (None, "gpt-4o", ("openai.chat", None)),
    ],
)
def test_which_table_reads_the_native_value(hidden: Any, model: str, expected: Any) -> None:
    """`_hidden_params` names the provider, else a known `provider/` prefix, else the family."""
    assert wire_of(hidden, model) == expected


def test_the_provider_decides_what_a_native_value_means() -> None:
    """One native value, two providers' tables: Gemini's error, an unknown value elsewhere."""
    gemini = _reply("MALFORMED_FUNCTION_CALL", provider="vertex_ai", model="gemini-2.5-pro")
    assert_stop(gemini, reason="unknown", detail="error", notes=["gemini native_finish_reason"])
    claude = _reply("MALFORMED_FUNCTION_CALL", provider="vertex_ai", model="claude-sonnet-4-5")
    assert_stop(claude, reason="unknown", detail="unrecognized")


# Values saying the calls themselves are bad (DESIGN section 3): the provider's own, kept by
# LiteLLM as native_finish_reason, and LiteLLM's own lowercased Vertex AI value.
BAD_CALL_VALUES = [
    *(("gemini", v) for v in ("MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL",
      "TOO_MANY_TOOL_CALLS")),
    *(("bedrock", v) for v in ("malformed_model_output", "malformed_tool_use")),
]  # fmt: skip


@pytest.mark.parametrize(("provider", "raw"), BAD_CALL_VALUES)
def test_calls_under_a_kept_value_saying_they_are_bad_are_never_runnable(
    provider: str, raw: str
) -> None:
    """A call under a kept malformed-call value is complete=False, its error naming the value."""
    stop = assert_stop(
        _reply(raw, provider=provider, calls=True), reason="unknown", detail="error", raw_reason=raw
    )
    (call,) = stop.tool_calls
    assert not call.complete
    assert repr(raw) in (call.error or "")


def test_calls_under_litellms_own_malformed_function_call_are_never_runnable() -> None:
    """LiteLLM's own `malformed_function_call`, in a reply or a stream, leaves no runnable call."""
    reply = _reply("stop", calls=True)
    reply.choices[0].finish_reason = "malformed_function_call"
    fragment = {**CALL, "index": 0}
    chunks = [
        ModelResponseStream(
            model="gemini-2.5-pro", choices=[{"index": 0, "delta": {"tool_calls": [fragment]}}]
        ),
        ModelResponseStream(model="gemini-2.5-pro", choices=[{"index": 0, "delta": {}}]),
    ]
    chunks[1].choices[0].finish_reason = "malformed_function_call"  # as the handler sets it
    for given in (reply, chunks):
        stop = assert_stop(given, reason="unknown", raw_reason="malformed_function_call")
        (call,) = stop.tool_calls
        assert not call.complete
        assert "'malformed_function_call'" in (call.error or "")


def test_tool_calls_usage_and_choices() -> None:
    """Tool calls come from the message, usage as Chat counts it, one Stop per choice."""
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 40,
        "total_tokens": 160,
        "cache_read_input_tokens": 100,
        "cache_creation_input_tokens": 5,
        "reasoning_tokens": 30,
    }
    reply = ModelResponse(
        model="claude-sonnet-4-5",
        choices=[
            Choices(index=1, finish_reason="max_tokens", message=Message(content="Paris is")),
            Choices(
                index=0, finish_reason="tool_use", message=Message(content=None, tool_calls=[CALL])
            ),
        ],
        usage=usage,
    )
    reply._hidden_params = {"custom_llm_provider": "anthropic"}
    first, second = stopkit.normalize_all(reply)
    assert_stop(
        first,
        reason="tool_request",
        raw_reason="tool_use",
        tool_calls=[{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}],
        usage={
            "input_tokens": 120,
            "output_tokens": 40,
            "reasoning_tokens": 30,
            "cache_read_tokens": 100,
            "cache_write_tokens": 5,
            "total_tokens": 160,
        },
    )
    assert_stop(second, reason="output_limit", raw_reason="max_tokens", text="Paris is")
    broken = _reply(
        "tool_calls",
        content=None,
        tool_calls=[{**CALL, "function": {"name": "f", "arguments": "{"}}],
    )
    assert_stop(broken, reason="tool_request", tool_calls=[{"complete": False}])


# --- streams ----------------------------------------------------------------------------------


def _chunks(*finishes: Any, provider: str = "openai") -> list[ModelResponseStream]:
    chunks = [
        ModelResponseStream(
            model="gpt-4o",
            choices=[{"index": 0, "delta": {"role": "assistant", "content": "Paris"}}],
        ),
        ModelResponseStream(
            model="gpt-4o", choices=[{"index": 0, "delta": {"content": " is sunny."}}]
        ),
        *(
            ModelResponseStream(
                model="gpt-4o", choices=[{"index": 0, "delta": {}, "finish_reason": f}]
            )
            for f in finishes
        ),
    ]
    for chunk in chunks:
        chunk._hidden_params = {"custom_llm_provider": provider}
    return chunks


def test_a_stream_gives_the_stop_of_its_twin() -> None:
    """LiteLLM's stream chunks give the Stop of the ModelResponse they amount to."""
    stop = assert_stop(
        _chunks("length"), reason="output_limit", provider="litellm", text="Paris is sunny."
    )
    same_stop(
        stop, stopkit.normalize(_reply("length", provider="openai", content="Paris is sunny."))
    )


def test_a_stream_without_its_finish_reason_is_incomplete() -> None:
    """Chunks without a finish_reason are unknown/stream_incomplete."""
    assert_stop(_chunks(), reason="unknown", detail="stream_incomplete")


def test_a_stream_keeps_no_native_value_but_a_chunk_may_carry_anthropics() -> None:
    """LiteLLM maps a chunk's value with no native kept; a delta's kept stop_reason wins."""
    chunks = _chunks("length", provider="anthropic")
    assert_stop(
        chunks,
        reason="output_limit",
        raw_reason="length",
        notes=["LiteLLM kept no native_finish_reason"],
    )
    chunks[1].choices[0].delta.provider_specific_fields = {"stop_reason": "pause_turn"}
    assert_stop(chunks, reason="paused", raw_reason="pause_turn")


@pytest.mark.parametrize(
    ("first", "later", "reason"),
    [
        ("refusal", "end_turn", "filtered"),
        ("max_tokens", "end_turn", "output_limit"),
        ("end_turn", "refusal", "filtered"),
    ],
)
def test_a_later_milder_kept_value_does_not_undo_a_stricter_one(
    first: str, later: str, reason: str
) -> None:
    """A provider value a later chunk kept replaces the held one only when as strict."""
    chunks = _chunks("stop", "stop", provider="anthropic")
    chunks[2].choices[0].delta.provider_specific_fields = {"stop_reason": first}
    chunks[3].choices[0].delta.provider_specific_fields = {"stop_reason": later}
    assert_stop(chunks, reason=reason)


# --- the real LiteLLM, answering recorded replies ---------------------------------------------

# (folder, recording) -> the Stop LiteLLM's reply gives where it differs from the provider's own
# reply (None: the same reason, detail and raw value). Each difference is a value LiteLLM did not
# keep: its own mapped value is read, with a note.
_KEPT = None
LITELLM_RECORDINGS = {
    ("gemini", "function_call"): _KEPT,
    ("gemini", "function_call.stream"): ("tool_request", None, "tool_calls"),
    ("gemini", "malformed_function_call"): _KEPT,
    ("gemini", "malformed_function_call.stream"): ("completed", None, "stop"),  # LiteLLM's loss
    ("gemini", "max_tokens"): _KEPT,
    ("gemini", "max_tokens.stream"): ("output_limit", None, "length"),  # or CONTINUATION
    ("gemini", "prompt_blocked.stream"): ("filtered", "safety", "content_filter"),
    ("gemini", "safety"): ("filtered", "safety", "content_filter"),
    ("gemini", "safety.stream"): ("filtered", "safety", "content_filter"),
    ("gemini", "stop"): _KEPT,
    ("gemini", "stop.stream"): ("completed", None, "stop"),
    ("openai_chat", "content_filter"): _KEPT,
    ("openai_chat", "content_filter.stream"): _KEPT,
    ("openai_chat", "length"): _KEPT,
    ("openai_chat", "length.stream"): _KEPT,
    ("openai_chat", "refusal"): _KEPT,
    ("openai_chat", "refusal.stream"): ("completed", None, "stop"),  # LiteLLM drops the refusal
    ("openai_chat", "stop"): _KEPT,
    ("openai_chat", "stop.stream"): _KEPT,
    ("openai_chat", "tool_calls"): _KEPT,
    ("openai_chat", "tool_calls.stream"): _KEPT,
    ("openai_chat", "unrecognized"): _KEPT,
    ("openai_chat", "unrecognized.stream"): ("completed", None, "stop"),  # LiteLLM's loss
    ("anthropic", "end_turn"): ("completed", None, "stop"),
    ("anthropic", "end_turn.stream"): ("completed", None, "stop"),
    # LiteLLM's `length` for Anthropic also stands for model_context_window_exceeded and
    # compaction: which ceiling (or a pause) is not known.
    ("anthropic", "max_tokens"): ("output_limit", None, "length"),
    ("anthropic", "max_tokens.stream"): ("output_limit", None, "length"),
    ("anthropic", "pause_turn"): _KEPT,
    ("anthropic", "pause_turn.stream"): _KEPT,
    ("anthropic", "refusal"): _KEPT,
    ("anthropic", "refusal.stream"): _KEPT,
    ("anthropic", "stop_sequence"): ("completed", None, "stop"),
    ("anthropic", "stop_sequence.stream"): ("completed", None, "stop"),
    ("anthropic", "tool_use"): ("tool_request", None, "tool_calls"),
    ("anthropic", "tool_use.stream"): ("tool_request", None, "tool_calls"),
    ("anthropic", "unrecognized"): ("completed", None, "stop"),  # LiteLLM's loss
    ("anthropic", "unrecognized.stream"): ("completed", None, "stop"),  # LiteLLM's loss
}
_MODELS = {
    "gemini": "gemini/gemini-2.5-flash",
    "openai_chat": "openai/gpt-4o",
    "anthropic": "anthropic/claude-test",
}


def _completion(folder: str, path: Path, stream: bool) -> Any:
    transport = stopkit.record.ReplayTransport(path)
    client: Any
    if folder == "openai_chat":  # LiteLLM's OpenAI route sends through the openai SDK
        client = openai.OpenAI(
            api_key="sk-test", http_client=httpx2.Client(transport=transport), max_retries=0
        )
    else:
        client = HTTPHandler(client=httpx.Client(transport=transport))
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    return litellm.completion(
        model=_MODELS[folder],
        messages=messages,
        api_key="sk-test",
        max_tokens=256,
        client=client,
        stream=stream,
    )


def _direct(path: Path) -> stopkit.Stop:
    recorded = json.loads(path.read_text())["response"]
    if "events" in recorded:
        return stopkit.normalize_stream(recorded["events"])
    return stopkit.normalize(recorded["body"])


@pytest.mark.parametrize(("folder", "name"), list(LITELLM_RECORDINGS), ids=lambda v: str(v))
def test_litellm_completion_reads_as_the_providers_reply_where_litellm_kept_its_value(
    folder: str, name: str
) -> None:
    """`litellm.completion` on a recorded reply: the provider's decision where LiteLLM kept it."""
    path = RECORDINGS / folder / f"{name}.json"
    stream = name.endswith(".stream")
    got = _completion(folder, path, stream)
    stop = stopkit.normalize_stream(list(got)) if stream else stopkit.normalize(got)
    direct = _direct(path)
    assert stop.provider == "litellm"
    assert (stop.text, [(c.name, c.arguments) for c in stop.tool_calls]) == (
        direct.text,
        [(c.name, c.arguments) for c in direct.tool_calls],
    )
    expected = LITELLM_RECORDINGS[(folder, name)]
    if expected is _KEPT:
        assert (stop.reason, stop.detail, stop.raw_reason) == (
            direct.reason,
            direct.detail,
            direct.raw_reason,
        )
    else:
        assert (stop.reason.value, stop.detail, stop.raw_reason) == expected
        assert any("LiteLLM kept no native_finish_reason" in n for n in stop.notes)


# --- detection and the conversation -----------------------------------------------------------


def test_only_the_litellm_adapter_claims_litellm_objects_and_no_others() -> None:
    """Its objects are claimed by it alone (Chat would take them): a dict or an SDK object never."""
    reply, chunk = _reply("stop"), _chunks("stop")[0]
    assert stopkit.get_adapter("openai.chat").detects(reply)  # why litellm is tried before it
    assert next(a.name for a in stopkit.registered_adapters() if a.detects(reply)) == "litellm"
    assert stopkit.detect(reply).name == "litellm"
    starts = [a.name for a in stopkit.registered_adapters() if a.detects_event(chunk)]
    assert starts[0] == "litellm"
    body = reply.model_dump(mode="json")
    assert not ADAPTER.detects(body)
    assert not ADAPTER.detects(openai.types.chat.ChatCompletion.model_validate(body))
    assert stopkit.detect(body).name == "openai.chat"


def test_the_conversation_continues_in_openai_chat_form_and_anthropic_pauses_resume() -> None:
    """LiteLLM takes OpenAI Chat messages (its own and the user's); a kept pause_turn resumes."""
    stop = stopkit.normalize(_reply("tool_calls", provider="openai", calls=True, content=None))
    chat = stopkit.get_adapter("openai.chat")
    assert ADAPTER.assistant_message(stop) == chat.assistant_message(stop)
    assert ADAPTER.user_message("Go on.") == chat.user_message("Go on.")
    results = [ToolResult(call_id="call_1", name="get_weather", content="18C")]
    assert ADAPTER.tool_results(stop, results) == [
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"}
    ]
    with pytest.raises(ValueError, match="only a paused Anthropic reply"):
        ADAPTER.resume(stop)
    paused = stopkit.normalize(_reply("pause_turn", provider="anthropic"))
    messages, overrides = ADAPTER.resume(paused)
    assert (messages, overrides) == (ADAPTER.assistant_message(paused), {})
