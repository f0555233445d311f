"""The pydantic-ai adapter: pydantic-ai's own `ModelResponse`, read for the provider's answer.

Responses are built with pydantic-ai's own constructors, or by its own model classes answering
with the recorded payload files (`tests/_pydantic_ai_models.py`); pydantic-ai's tables are
checked against ours, so a value pydantic-ai learns to keep is one we read.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import pytest
from pydantic_ai.direct import model_request, model_request_stream
from pydantic_ai.messages import (
    FinishReason,
    ModelRequest,
    ModelResponse,
    ModelResponseState,
    NativeToolCallPart,
    NativeToolReturnPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.anthropic._response import FINISH_REASON_MAP as PAI_ANTHROPIC
from pydantic_ai.models.cohere import _FINISH_REASON_MAP as PAI_COHERE
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.google import _FINISH_REASON_MAP as PAI_GOOGLE
from pydantic_ai.models.openai._chat_completions import CHAT_FINISH_REASON_MAP as PAI_CHAT
from pydantic_ai.models.openai._response_fields import (
    RESPONSES_FINISH_REASON_MAP as PAI_RESPONSES,
)
from pydantic_ai.usage import RequestUsage

import stopkit
from stopkit import StopReason, ToolResult
from stopkit.adapters._pydantic_ai_rules import BLOCK_REASONS, TABLES, WIRE_OF
from stopkit.adapters.pydantic_ai import FINISH_REASON, STATE, PydanticAIAdapter
from tests._pydantic_ai_models import model, response

ADAPTER = PydanticAIAdapter()
_R = StopReason


def _response(
    provider: str | None = None,
    raw: Any = None,
    own: Any = None,
    parts: list[Any] | None = None,
    **fields: Any,
) -> ModelResponse:
    """A ModelResponse as pydantic-ai's models build one: the raw value in provider_details."""
    details = fields.pop("provider_details", None)
    if raw is not None:
        details = {"finish_reason": raw, **(details or {})}
    return ModelResponse(
        parts=[TextPart("Hi")] if parts is None else parts,
        provider_name=provider,
        provider_details=details,
        finish_reason=own,
        **fields,
    )


def _call(call_id: str = "c1") -> ToolCallPart:
    return ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id=call_id)


# --- pydantic-ai's own types and tables -------------------------------------------------------


def test_every_pydantic_ai_finish_reason_is_mapped() -> None:
    """pydantic-ai's five FinishReason values are exactly the fallback table's keys."""
    assert set(typing.get_args(FinishReason)) == set(FINISH_REASON)


def test_every_response_state_is_known() -> None:
    """Every ModelResponseState but `complete` has its row."""
    assert set(typing.get_args(ModelResponseState)) == {"complete", *STATE}


@pytest.mark.parametrize(
    ("wire", "kept"),
    [
        pytest.param("anthropic", PAI_ANTHROPIC, id="anthropic"),
        pytest.param("gemini", PAI_GOOGLE, id="google"),
        pytest.param("cohere", PAI_COHERE, id="cohere"),
        pytest.param("openai.chat", PAI_CHAT, id="openai-chat"),
        pytest.param("openai.responses", PAI_RESPONSES, id="openai-responses"),
    ],
)
def test_every_raw_value_pydantic_ai_maps_is_in_our_table(wire: str, kept: dict[str, Any]) -> None:
    """Each raw value pydantic-ai's model maps (and keeps) is in its wire format's table."""
    assert set(kept) <= set(TABLES[wire]), set(kept) - set(TABLES[wire])


def test_the_adapter_exposes_its_tables() -> None:
    """The README's table shows pydantic-ai's own values and the states."""
    assert list(ADAPTER.tables.values()) == [FINISH_REASON, STATE]
    assert ADAPTER.name == "pydantic_ai"


# --- every provider's raw values, through the table of its wire format -------------------------

#: provider_name -> the wire format whose table reads its raw value (the OpenAI-compatible ones
#: name a Chat `finish_reason`, or a Responses status / incomplete reason, told by the value).
PROVIDERS = {
    "anthropic": ("anthropic",),
    "google": ("gemini",),
    "google-gla": ("gemini",),
    "google-cloud": ("gemini",),
    "google-vertex": ("gemini",),
    "bedrock": ("bedrock",),
    "cohere": ("cohere",),
    "openai": ("openai.chat", "openai.responses"),
    "azure": ("openai.chat", "openai.responses"),
    "groq": ("openai.chat",),
    "mistral": ("openai.chat",),
    "deepseek": ("openai.chat",),
    "openrouter": ("openai.chat",),
    "ollama": ("openai.chat",),
}

_ROWS = [
    pytest.param(provider, wire, raw, id=f"{provider}-{raw}")
    for provider, wires in PROVIDERS.items()
    for wire in wires
    for raw in TABLES[wire]
    if wire != "openai.responses" or raw not in TABLES["openai.chat"]  # read as Chat
]


@pytest.mark.parametrize(("provider", "wire", "raw"), _ROWS)
def test_every_raw_value_reads_with_its_providers_table(provider: str, wire: str, raw: str) -> None:
    """provider_details["finish_reason"] means what its wire format's table says, raw kept."""
    reason, detail = TABLES[wire][raw]
    parts = [TextPart("Hi"), _call()] if reason is _R.TOOL_REQUEST else [TextPart("Hi")]
    stop = stopkit.normalize(_response(provider, raw, "stop", parts))
    assert (stop.provider, stop.reason, stop.detail, stop.raw_reason) == (
        "pydantic_ai",
        reason,
        detail,
        raw,
    )
    assert stop.details["integration"] == provider
    assert stop.details["read_as"] == wire
    assert stop.details["framework_finish_reason"] == "stop"


#: Stop values both OpenAI formats send (a Chat finish_reason and a Responses reason).
_SHARED = set(TABLES["openai.chat"]) & set(TABLES["openai.responses"])


def test_a_value_both_openai_formats_send_means_the_same_in_both() -> None:
    """Reading a shared value with the Chat table cannot differ from reading it as Responses."""
    assert "content_filter" in _SHARED
    for raw in _SHARED:
        assert TABLES["openai.chat"][raw] == TABLES["openai.responses"][raw]


def test_every_listed_provider_is_routed() -> None:
    """The providers named above are every one our routing table knows, and then some."""
    assert set(WIRE_OF) <= set(PROVIDERS)


@pytest.mark.parametrize("raw", list(BLOCK_REASONS))
def test_a_blocked_prompt_reads_its_block_reason(raw: str) -> None:
    """GoogleModel's blocked prompt keeps `block_reason`: filtered/prompt_blocked, raw kept."""
    reply = _response("google", own="content_filter", parts=[])
    reply.provider_details = {"block_reason": raw}
    stop = stopkit.normalize(reply)
    assert (stop.reason, stop.detail, stop.raw_reason) == (*BLOCK_REASONS[raw], raw)


# --- what the rest of the response says -------------------------------------------------------

SPEC = [
    pytest.param(
        _response("google", "CONTINUATION", "length"),
        (_R.PAUSED, "continuation", "CONTINUATION"),
        "",
        id="the-raw-value-wins-over-pydantic-ai's",
    ),
    pytest.param(
        _response("huggingface", "eos_token", "stop"),
        (_R.COMPLETED, None, "eos_token"),
        "finish_reason 'eos_token' is not in the openai.chat table: read pydantic-ai's",
        id="off-table-raw-value-pydantic-ai-mapped",
    ),
    pytest.param(
        _response("zai", "sensitive", "content_filter"),
        (_R.FILTERED, "safety", "sensitive"),
        "read pydantic-ai's finish_reason 'content_filter'",
        id="zai-sensitive",
    ),
    pytest.param(
        _response("anthropic", "brand_new_reason", None),
        (_R.UNKNOWN, "unrecognized", "brand_new_reason"),
        "finish_reason 'brand_new_reason' is not a documented value",
        id="off-table-raw-value-nobody-mapped",
    ),
    pytest.param(
        _response("xai", None, "length"),
        (_R.OUTPUT_LIMIT, "max_tokens", "length"),
        "pydantic-ai kept no raw finish_reason (xai): read its own finish_reason 'length'",
        id="no-raw-value-kept",
    ),
    pytest.param(
        _response(None, None, "tool_call", [_call()]),
        (_R.TOOL_REQUEST, None, "tool_call"),
        "kept no raw finish_reason",
        id="no-provider-no-raw-value",
    ),
    pytest.param(
        _response(None, None, None),
        (_R.UNKNOWN, "missing", None),
        "no finish_reason in the reply: unknown/missing",
        id="a-bare-response",
    ),
    pytest.param(
        _response("openai", None, "content_filter", [], provider_details={"refusal": "No."}),
        (_R.FILTERED, "refusal", "content_filter"),
        "pydantic-ai kept a refusal and no raw finish_reason (openai): filtered/refusal",
        id="openai-refusal",
    ),
    pytest.param(
        _response("google", "STOP", "stop", [TextPart("Let me check."), _call()]),
        (_R.TOOL_REQUEST, None, "STOP"),
        "finish_reason 'STOP' with 1 tool call: treated as tool_request",
        id="gemini-stop-with-a-call",
    ),
    pytest.param(
        _response("anthropic", "max_tokens", "length", [_call()]),
        (_R.OUTPUT_LIMIT, "max_tokens", "max_tokens"),
        "cut the reply with 1 tool call: marked incomplete",
        id="a-call-in-a-cut-reply",
    ),
    pytest.param(
        _response("mistral", "model_length", "length"),
        (_R.OUTPUT_LIMIT, "context_window", "model_length"),
        "finish_reason 'model_length' (Mistral)",
        id="a-chat-dialect-value-keeps-its-note",
    ),
    pytest.param(
        _response("anthropic", "pause_turn", None, state="suspended"),
        (_R.PAUSED, "server_tool_limit", "pause_turn"),
        "",
        id="suspended-pause-turn",
    ),
    pytest.param(
        _response("openai", "queued", None, state="suspended"),
        (_R.PAUSED, "background", "queued"),
        "",
        id="suspended-background",
    ),
    pytest.param(
        _response("openai", None, None, state="suspended"),
        (_R.PAUSED, "continuation", None),
        "pydantic-ai state 'suspended': the model paused mid-turn",
        id="suspended-with-no-stop-value",
    ),
    pytest.param(
        _response("anthropic", None, None, state="incomplete"),
        (_R.UNKNOWN, "stream_incomplete", None),
        "pydantic-ai state 'incomplete'",
        id="still-streaming",
    ),
    pytest.param(
        _response("anthropic", None, None, [_call()], state="interrupted"),
        (_R.UNKNOWN, "stream_incomplete", None),
        "pydantic-ai state 'interrupted': the response stopped before it was complete",
        id="interrupted-with-no-stop-value",
    ),
    pytest.param(
        _response("anthropic", "end_turn", "stop", state="interrupted"),
        (_R.COMPLETED, None, "end_turn"),
        "the run stopped before acting on this response",
        id="interrupted-after-a-complete-response",
    ),
]


@pytest.mark.parametrize(("reply", "expected", "note"), SPEC)
def test_what_the_response_says(reply: ModelResponse, expected: tuple[Any, ...], note: str) -> None:
    """Reason, detail and raw value of each kind of response, and the note that explains it."""
    stop = stopkit.normalize(reply)
    assert (stop.reason, stop.detail, stop.raw_reason) == expected
    if note:
        assert any(note in n for n in stop.notes), stop.notes
    else:  # a documented value, read as is: nothing to explain
        assert stop.notes == ()


# Raw values saying the calls themselves are bad (DESIGN section 3), by the provider sending them.
BAD_CALL_VALUES = [
    *(("google", v) for v in ("MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL",
      "TOO_MANY_TOOL_CALLS")),
    *(("bedrock", v) for v in ("malformed_model_output", "malformed_tool_use")),
]  # fmt: skip


@pytest.mark.parametrize(("provider", "raw"), BAD_CALL_VALUES)
def test_calls_under_a_stop_saying_they_are_bad_are_never_runnable(provider: str, raw: str) -> None:
    """A ToolCallPart under a malformed-call stop is complete=False, its error naming the value."""
    reply = _response(provider, raw, "error", [_call()])
    for stop in (stopkit.normalize(reply), stopkit.normalize_stream([reply])):
        assert (stop.reason, stop.detail, stop.raw_reason) == (_R.UNKNOWN, "error", raw)
        (call,) = stop.tool_calls
        assert not call.complete
        assert repr(raw) in (call.error or "")


def test_a_kept_refusal_is_the_stop_refusal() -> None:
    """Anthropic's refusal explanation, kept in provider_details, is Stop.refusal."""
    details = {"refusal": "It asks for malware.", "refusal_category": "cyber"}
    stop = stopkit.normalize(
        _response("anthropic", "refusal", "content_filter", provider_details=details)
    )
    assert (stop.reason, stop.detail, stop.refusal) == (
        _R.FILTERED,
        "refusal",
        "It asks for malware.",
    )
    assert stop.details["provider_details"]["refusal_category"] == "cyber"


def test_only_client_calls_are_pending_and_thinking_is_not_text() -> None:
    """ToolCallParts are calls; native tool calls and returns are not; thinking is left out."""
    parts = [
        ThinkingPart("Let me think."),
        TextPart("Searching. "),
        NativeToolCallPart("web_search", {"query": "Paris"}, tool_call_id="srv_1"),
        NativeToolReturnPart("web_search", {"hits": 3}, tool_call_id="srv_1"),
        TextPart("Now the weather."),
        ToolCallPart("get_weather", '{"city": "Paris"}', tool_call_id="c1"),
        ToolCallPart("get_time", '{"city": ', tool_call_id="c2"),
    ]
    stop = stopkit.normalize(_response("anthropic", "tool_use", "tool_call", parts))
    assert stop.text == "Searching. Now the weather."
    assert [(c.id, c.name, c.complete) for c in stop.tool_calls] == [
        ("c1", "get_weather", True),
        ("c2", "get_time", False),
    ]
    assert stop.tool_calls[0].arguments == {"city": "Paris"}


def test_usage_is_pydantic_ai_request_usage() -> None:
    """RequestUsage's counts, in pydantic-ai's convention; the object kept in details."""
    usage = RequestUsage(
        input_tokens=1200,
        output_tokens=300,
        cache_read_tokens=1000,
        cache_write_tokens=50,
        output_reasoning_tokens=120,
    )
    stop = stopkit.normalize(_response("anthropic", "end_turn", "stop", usage=usage))
    assert stop.usage is not None
    assert stop.usage.model_dump() == {
        "input_tokens": 1200,
        "output_tokens": 300,
        "reasoning_tokens": 120,
        "cache_read_tokens": 1000,
        "cache_write_tokens": 50,
        "total_tokens": 1500,
    }
    assert stop.details["usage"] is usage


def test_reasoning_tokens_kept_in_usage_details_are_read() -> None:
    """A RequestUsage that keeps reasoning only in `details` (OpenAI's name) still says it."""
    usage = RequestUsage(input_tokens=10, output_tokens=256, details={"reasoning_tokens": 256})
    stop = stopkit.normalize(_response("openai", "length", "length", [], usage=usage))
    assert stop.usage is not None
    assert stop.usage.reasoning_tokens == 256
    assert (stop.reason, stop.detail) == (_R.OUTPUT_LIMIT, "reasoning")


def test_a_response_that_omitted_usage_has_none() -> None:
    """`unmeasured_requests` says the counts carry no information: no Usage."""
    usage = RequestUsage(unmeasured_requests=1)
    assert stopkit.normalize(_response("openai", "stop", "stop", usage=usage)).usage is None


# --- pydantic-ai's own models, answering with the recorded replies ----------------------------

#: (payload folder, case): the same reply read through pydantic-ai and read directly.
RECORDED = [
    *(
        ("anthropic", case)
        for case in (
            "end_turn_text",
            "end_turn_thinking",
            "tool_use_parallel",
            "max_tokens_in_tool_use",
            "pause_turn",
            "refusal",
            "stop_sequence",
            "compaction",
            "server_tool_web_search",
        )
    ),
    *(
        ("openai_chat", case)
        for case in (
            "stop",
            "tool_calls",
            "stop_with_tool_calls",
            "length_with_tool_call",
            "content_filter",
            "deepseek_insufficient_system_resource",
            "mistral_model_length",
            "together_eos",
            "vllm_repetition",
            "unrecognized",
        )
    ),
    *(
        ("openai_responses", case)
        for case in (
            "completed_text",
            "completed_function_call",
            "parallel_function_calls",
            "incomplete_max_output_tokens",
            "incomplete_content_filter",
            "incomplete_max_messages",
            "incomplete_reasoning_only",
            "queued",
            "cancelled",
            "refusal",
        )
    ),
    *(
        ("gemini", case)
        for case in (
            "stop_text",
            "stop_function_call",
            "max_tokens_text",
            "safety",
            "recitation",
            "blocklist",
            "malformed_function_call",
            "malformed_function_call_with_call",
            "prompt_blocked_safety",
            "prompt_blocked_jailbreak",
            "thought_parts_excluded",
        )
    ),
    *(
        ("cohere", case)
        for case in (
            "complete",
            "tool_call",
            "max_tokens_tool_call",
            "stop_sequence",
            "error",
            "timeout",
        )
    ),
]


def _direct(folder: str, case: str) -> stopkit.Stop:
    from tests._pydantic_ai_models import _case

    return stopkit.normalize(_case(folder, f"{case}.json")["reply"])


@pytest.mark.parametrize(("folder", "case"), RECORDED, ids=[f"{f}/{c}" for f, c in RECORDED])
async def test_pydantic_ai_models_give_the_direct_answer(folder: str, case: str) -> None:
    """A recorded reply read through pydantic-ai's model means what it means read directly."""
    via = stopkit.normalize(await response(folder, case))
    direct = _direct(folder, case)
    assert via.provider == "pydantic_ai"
    assert (via.reason, via.detail, via.text) == (direct.reason, direct.detail, direct.text)
    assert [(c.name, c.complete, c.arguments) for c in via.tool_calls] == [
        (c.name, c.complete, c.arguments) for c in direct.tool_calls
    ]
    if folder != "gemini":  # Gemini sends no call ids: each side makes its own up
        assert [c.id for c in via.tool_calls] == [c.id for c in direct.tool_calls]
    if via.raw_reason not in _SHARED:  # a value both OpenAI formats send reads the same
        assert via.details.get("read_as", direct.provider) == direct.provider
    if folder == "openai_responses" and direct.raw_reason == "incomplete":
        # OpenAIResponsesModel keeps `incomplete_details.reason` in the status's place.
        assert via.raw_reason == direct.details["incomplete_details"]["reason"]
    elif not (folder in ("openai_chat", "openai_responses") and direct.refusal is not None):
        assert via.raw_reason == direct.raw_reason  # the OpenAI models drop a refusal's value


async def test_anthropic_cache_and_thinking_usage_through_pydantic_ai() -> None:
    """AnthropicModel's usage: input tokens include the cache, as pydantic-ai counts them."""
    stop = stopkit.normalize(await response("anthropic", "end_turn_cached_usage"))
    assert stop.usage is not None
    assert stop.usage.model_dump() == {
        "input_tokens": 12 + 30512 + 2048,
        "output_tokens": 310,
        "reasoning_tokens": 250,
        "cache_read_tokens": 30512,
        "cache_write_tokens": 2048,
        "total_tokens": 12 + 30512 + 2048 + 310,
    }


async def test_a_stream_of_snapshots_is_read_at_its_last() -> None:
    """A pydantic-ai stream's snapshots give the whole reply's Stop; a prefix is incomplete."""
    request = ModelRequest(parts=[UserPromptPart("Weather in Paris?")])
    snapshots = []
    async with model_request_stream(model("anthropic", "tool_use_parallel"), [request]) as stream:
        async for _event in stream:
            snapshots.append(stream.get())
        snapshots.append(stream.get())  # the finished response, as `stream_responses` ends
    assert [s.state for s in snapshots[-2:]] == ["incomplete", "complete"]
    whole = stopkit.normalize_stream(snapshots)
    assert whole == stopkit.normalize(snapshots[-1])
    assert (whole.reason, len(whole.tool_calls)) == (_R.TOOL_REQUEST, 2)
    cut = stopkit.normalize_stream(snapshots[:2])
    assert (cut.reason, cut.detail) == (_R.UNKNOWN, "stream_incomplete")
    empty = ADAPTER.stream().result()
    assert (empty.reason, empty.detail) == (_R.UNKNOWN, "stream_incomplete")


async def test_a_snapshot_after_the_complete_one_changes_nothing_milder() -> None:
    """A snapshot after the complete one decides only when stricter; a note counts it."""
    request = ModelRequest(parts=[UserPromptPart("Weather in Paris?")])
    async with model_request_stream(model("anthropic", "tool_use_parallel"), [request]) as stream:
        async for _event in stream:
            pass
        final = stream.get()
    milder = dataclasses.replace(
        final, parts=[TextPart("Done.")], finish_reason="stop", provider_details=None
    )
    stop = stopkit.normalize_stream([final, milder])
    assert (stop.reason, len(stop.runnable_tool_calls)) == (_R.TOOL_REQUEST, 2)
    assert any("1 event arrived after the complete snapshot" in n for n in stop.notes)
    stricter = dataclasses.replace(milder, finish_reason="content_filter")
    assert stopkit.normalize_stream([final, stricter]).reason is _R.FILTERED


# --- detection and the loop -------------------------------------------------------------------


def test_detected_by_its_class_and_nothing_else() -> None:
    """A ModelResponse is detected by module; its dict dump and a ModelRequest are not."""
    reply = _response("anthropic", "end_turn", "stop")
    assert stopkit.detect(reply) is stopkit.get_adapter("pydantic_ai")
    assert [a.name for a in stopkit.registered_adapters() if a.detects(reply)] == ["pydantic_ai"]
    assert not ADAPTER.detects(ModelRequest(parts=[UserPromptPart("hi")]))
    assert not ADAPTER.detects({"parts": [], "kind": "response", "finish_reason": "stop"})

    class Mine(ModelResponse):
        pass

    assert ADAPTER.detects(Mine(parts=[]))


async def test_the_loop_runs_over_pydantic_ai_messages() -> None:
    """arun_loop drives a pydantic-ai model: its messages go back as pydantic-ai messages."""
    seen: list[list[Any]] = []

    def answer(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        if len(messages) == 1:
            return ModelResponse(parts=[_call()], finish_reason="tool_call")
        return ModelResponse(parts=[TextPart("21 °C")], finish_reason="stop")

    fn = FunctionModel(answer)

    async def call_model(messages: list[Any], **overrides: Any) -> ModelResponse:
        return await model_request(fn, messages)

    outcome = await stopkit.arun_loop(
        call_model,
        [ModelRequest(parts=[UserPromptPart("Weather in Paris?")])],
        tools={"get_weather": lambda city: "21 °C"},
    )
    assert (outcome.termination.value, outcome.text) == ("completed", "21 °C")
    returned = seen[1][-1].parts[0]
    assert isinstance(returned, ToolReturnPart)
    assert (returned.tool_call_id, returned.content) == ("c1", "21 °C")


def test_a_failed_call_is_returned_as_failed() -> None:
    """An error result goes back as a ToolReturnPart whose outcome is `failed`."""
    stop = stopkit.normalize(_response("anthropic", "tool_use", "tool_call", [_call()]))
    [request] = ADAPTER.tool_results(
        stop, [ToolResult(call_id="c1", name="get_weather", content="boom", is_error=True)]
    )
    assert request.parts[0].outcome == "failed"
    assert ADAPTER.assistant_message(stop) == [stop.raw]
    [prompt] = ADAPTER.user_message("Go on.").parts
    assert isinstance(prompt, UserPromptPart)
    assert prompt.content == "Go on."


def test_a_suspended_response_is_resumed_by_sending_it_back() -> None:
    """resume() sends the suspended response back; anything else cannot be resumed."""
    paused = stopkit.normalize(_response("anthropic", "pause_turn", None, state="suspended"))
    assert ADAPTER.resume(paused) == ([paused.raw], {})
    with pytest.raises(ValueError, match="only a paused reply"):
        ADAPTER.resume(stopkit.normalize(_response("anthropic", "end_turn", "stop")))
