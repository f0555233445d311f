"""The `langchain` adapter: what LangChain's chat models return, read with the provider's own table.

Every object here is built by langchain-core's own constructors (`AIMessage`, `ChatGeneration`,
`ChatResult`, `LLMResult`, the chunks), shaped as each integration's source builds it (the
sources are cited in stopkit/adapters/_langchain_rules.py), or returned by a real integration
(`ChatOpenAI`, `ChatGoogleGenerativeAI`) answering from a recorded reply through
`stopkit.record.ReplayTransport`. LangChain objects are not JSON bodies, so the payload-based
suites do not run on this adapter (tests/_adapters.py, FRAMEWORKS): its cases are here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.outputs import (
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
    Generation,
    LLMResult,
)
from langchain_google_genai import ChatGoogleGenerativeAI
from langchain_openai import ChatOpenAI

import stopkit
import stopkit.record
from stopkit import StopReason, ToolResult
from stopkit.adapters._bedrock_guardrail import MASKED_ONLY
from stopkit.adapters._langchain_rules import INTEGRATIONS, Integration
from stopkit.testing import assert_stop
from tests._payloads import same_stop
from tests._stream_text import assert_pieces_join, growth, tell_counting

RECORDINGS = Path(__file__).parents[1] / "recordings"
PAYLOADS = Path(__file__).parents[1] / "payloads"
ADAPTER = stopkit.get_adapter("langchain")
CALL = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}


def _message(metadata: dict[str, Any], **fields: Any) -> AIMessage:
    return AIMessage(
        content=fields.pop("content", "Paris is sunny."), response_metadata=metadata, **fields
    )


# --- every integration key, every value of its table ------------------------------------------

# Where the wire format's provider step reinterprets a value, its answer (not the table's) is
# expected: Gemini's CONTINUATION resumes only from a continuationToken, which no LangChain
# integration keeps, so it is unknown/missing, as the gemini adapter reads a reply without one.
STEPPED = {("gemini", "CONTINUATION"): (StopReason.UNKNOWN, "missing")}

ROWS = [
    pytest.param(item, raw, id=f"{item.name}-{item.key}-{raw or 'empty'}")
    for item in INTEGRATIONS
    for raw in item.rules.table
]


@pytest.mark.parametrize(("item", "raw"), ROWS)
def test_every_value_of_every_integration_key_reads_through_its_table(
    item: Integration, raw: str
) -> None:
    """Each integration's stop value, under its own key, gives the row of the table it speaks."""
    reason, detail = STEPPED.get((item.wire, raw), item.rules.table[raw])
    calls = [CALL] if reason is StopReason.TOOL_REQUEST else []
    stop = stopkit.normalize(
        _message({"model_provider": item.name, item.key: raw}, tool_calls=calls)
    )
    assert (stop.reason, stop.detail) == (reason, detail)
    assert (stop.provider, stop.raw_reason) == ("langchain", raw)
    assert stop.details["integration"] == item.name


def test_the_tables_are_the_builtin_adapters_own() -> None:
    """Each integration reads with the very table of the built-in adapter it wraps, not a copy."""
    own = {
        name: stopkit.get_adapter(name).rules.table  # type: ignore[attr-defined]
        for name in ("anthropic", "openai.chat", "openai.responses", "gemini", "bedrock", "ollama")
    }
    for item in INTEGRATIONS:
        assert item.rules.table is own[item.wire], item.name


# --- which integration: model_provider, else the key and the model's name ----------------------

GUESSED = [
    pytest.param({"stop_reason": "max_tokens"}, "anthropic", "output_limit", id="stop_reason"),
    pytest.param(
        {"stopReason": "guardrail_intervened"}, "bedrock_converse", "filtered", id="stopReason"
    ),
    pytest.param({"done_reason": "length"}, "ollama", "output_limit", id="done_reason"),
    pytest.param({"finish_reason": "length"}, "openai", "output_limit", id="finish_reason"),
    pytest.param(
        {"finish_reason": "SAFETY", "model_name": "gemini-2.5-flash"},
        "google_genai",
        "filtered",
        id="gemini-by-model-name",
    ),
    pytest.param(
        {"model_provider": "groq", "finish_reason": "stop"}, "groq", "completed", id="groq"
    ),
]


@pytest.mark.parametrize(("metadata", "integration", "reason"), GUESSED)
def test_without_a_known_model_provider_the_key_says_whose_table(
    metadata: dict[str, Any], integration: str, reason: str
) -> None:
    """A message without a known `model_provider` is read by its key (and model), with a note."""
    stop = assert_stop(_message(metadata), reason=reason, notes=["names no integration stopkit"])
    assert stop.details["integration"] == integration


def test_model_provider_decides_over_the_keys() -> None:
    """A named integration reads its own key only: another's key does not stand in for it."""
    stop = stopkit.normalize(_message({"model_provider": "anthropic", "finish_reason": "stop"}))
    assert (stop.reason, stop.detail, stop.raw_reason) == (StopReason.UNKNOWN, "missing", None)
    assert any("no stop_reason in the anthropic message" in n for n in stop.notes)


def test_chat_openai_on_the_responses_api_reads_status_and_incomplete_details() -> None:
    """ChatOpenAI's Responses path keeps `status` and `incomplete_details`: both are read."""
    metadata = {
        "model_provider": "openai",
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
    }
    assert_stop(
        _message(metadata), reason="output_limit", detail="max_tokens", raw_reason="incomplete"
    )


# --- where LangChain keeps the value --------------------------------------------------------


def test_a_bare_message_has_no_stop_information() -> None:
    """A message no model returned is unknown/missing: LangChain kept no stop value (rule 7)."""
    assert_stop(
        AIMessage("Hi"),
        reason="unknown",
        detail="missing",
        provider="langchain",
        notes=["LangChain kept no stop value"],
    )


def test_generation_info_and_llm_output_are_read_as_langchain_merges_them() -> None:
    """`generation_info` lies under the message's metadata; a lone generation's `llm_output` too."""
    message = AIMessage("Hi", response_metadata={"model_provider": "openai"})
    generation = ChatGeneration(message=message, generation_info={"finish_reason": "length"})
    assert_stop(generation, reason="output_limit", raw_reason="length")
    anthropic = AIMessage("Hi", response_metadata={"model_provider": "anthropic"})
    result = ChatResult(
        generations=[ChatGeneration(message=anthropic)],
        llm_output={"stop_reason": "stop_sequence", "stop_sequence": "###"},
    )
    assert_stop(result, reason="stop_sequence", stop_sequence="###", raw_reason="stop_sequence")
    over = ChatGeneration(
        message=AIMessage(
            "Hi", response_metadata={"model_provider": "openai", "finish_reason": "stop"}
        ),
        generation_info={"finish_reason": "length"},
    )
    assert_stop(over, reason="completed")  # the message's own metadata wins, as in langchain-core


def test_each_generation_of_a_result_gives_its_own_stop() -> None:
    """`normalize_all` gives one Stop per generation, every prompt's, in order."""

    def generation(finish: str) -> ChatGeneration:
        return ChatGeneration(
            message=AIMessage("x", response_metadata={"model_provider": "openai"}),
            generation_info={"finish_reason": finish},
        )

    result = LLMResult(
        generations=[[generation("stop"), generation("length")], [generation("content_filter")]],
        llm_output={"finish_reason": "stop"},  # several generations: not merged in
    )
    stops = stopkit.normalize_all(result)
    assert [s.reason.value for s in stops] == ["completed", "output_limit", "filtered"]
    assert [s.details["generation"] for s in stops] == [0, 1, 2]
    assert stopkit.normalize(result).reason is StopReason.COMPLETED
    assert ADAPTER.assistant_message(stops[2]) == [result.generations[1][0].message]


def test_an_llm_generation_reads_its_text_and_generation_info() -> None:
    """A completion model's `Generation` (no message) is read from its text and info."""
    result = LLMResult(
        generations=[[Generation(text="4", generation_info={"finish_reason": "stop"})]]
    )
    assert_stop(result, reason="completed", text="4")


def test_a_result_without_generations_is_malformed() -> None:
    """An empty ChatResult has nothing to read: unknown/malformed, not a crash."""
    assert_stop(ChatResult(generations=[]), reason="unknown", detail="malformed")


# --- what the message says beside the stop value ---------------------------------------------


def test_tool_calls_and_invalid_tool_calls() -> None:
    """`tool_calls` are runnable; an `invalid_tool_calls` entry is listed with complete=False."""
    message = _message(
        {"model_provider": "anthropic", "stop_reason": "tool_use"},
        tool_calls=[CALL],
        invalid_tool_calls=[
            {"name": "search", "args": '{"q": "Paris"', "id": "call_2", "error": "bad"}
        ],
    )
    stop = assert_stop(
        message,
        reason="tool_request",
        tool_calls=[{"id": "call_1", "complete": True}, {"id": "call_2", "complete": False}],
        notes=["search incomplete"],
    )
    assert [c.id for c in stop.runnable_tool_calls] == ["call_1"]
    parsed_but_refused = _message(
        {"model_provider": "openai", "finish_reason": "tool_calls"},
        invalid_tool_calls=[{"name": "f", "args": "{}", "id": "call_3", "error": "no such tool"}],
    )
    assert_stop(
        parsed_but_refused,
        tool_calls=[{"complete": False, "error": "an invalid tool call: no such tool"}],
    )


def test_calls_of_a_cut_reply_are_never_runnable() -> None:
    """A length cut with calls: the calls are listed, marked incomplete."""
    message = _message({"model_provider": "openai", "finish_reason": "length"}, tool_calls=[CALL])
    assert_stop(message, reason="output_limit", tool_calls=[{"complete": False}])


# Stop values that say the calls themselves are bad (DESIGN section 3), per integration.
BAD_CALL_VALUES = [
    *(("google_genai", "finish_reason", v) for v in ("MALFORMED_FUNCTION_CALL",
      "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS")),
    *(("bedrock_converse", "stopReason", v) for v in ("malformed_model_output",
      "malformed_tool_use")),
]  # fmt: skip


@pytest.mark.parametrize(("provider", "key", "raw"), BAD_CALL_VALUES)
def test_calls_under_a_stop_saying_they_are_bad_are_never_runnable(
    provider: str, key: str, raw: str
) -> None:
    """A call under a malformed-call stop is complete=False, its error naming the value."""
    metadata = {"model_provider": provider, key: raw}
    chunks = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[
                {"name": "get_weather", "args": '{"city": "Paris"}', "id": "call_1", "index": 0}
            ],
            response_metadata={"model_provider": provider},
        ),
        AIMessageChunk(content="", response_metadata=metadata, chunk_position="last"),
    ]
    for reply in (_message(metadata, tool_calls=[CALL]), chunks):
        stop = assert_stop(reply, reason="unknown", detail="error", raw_reason=raw)
        (call,) = stop.tool_calls
        assert not call.complete
        assert repr(raw) in (call.error or "")
        assert stop.runnable_tool_calls == ()


@pytest.mark.parametrize(
    "message",
    [
        AIMessage(
            "",
            additional_kwargs={"refusal": "I can't help with that."},
            response_metadata={"model_provider": "openai", "finish_reason": "stop"},
        ),
        AIMessage(
            [{"type": "refusal", "refusal": "I can't help with that."}],
            response_metadata={"model_provider": "openai", "status": "completed"},
        ),
    ],
    ids=["additional_kwargs", "responses-content-block"],
)
def test_a_refusal_where_the_integration_keeps_it(message: AIMessage) -> None:
    """ChatOpenAI keeps a refusal in `additional_kwargs` (Chat) or a content block (Responses)."""
    assert_stop(message, reason="filtered", detail="refusal", refusal="I can't help with that.")


def test_a_none_refusal_is_no_refusal() -> None:
    """ChatOpenAI sets `additional_kwargs["refusal"] = None` on every reply: not a refusal."""
    message = AIMessage(
        "Hi",
        additional_kwargs={"refusal": None},
        response_metadata={"model_provider": "openai", "finish_reason": "stop"},
    )
    assert_stop(message, reason="completed", refusal=None)


def test_text_is_the_text_blocks_only() -> None:
    """Thinking and tool_use blocks are not text; bare strings in a block list are."""
    message = _message(
        {"model_provider": "anthropic", "stop_reason": "end_turn"},
        content=[
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "text", "text": "Paris "},
            "is sunny.",
        ],
    )
    assert_stop(message, reason="completed", text="Paris is sunny.")


def test_usage_is_read_as_langchain_counts_it() -> None:
    """`usage_metadata`: input includes cache, output includes reasoning, each detail kept."""
    usage = {
        "input_tokens": 120,
        "output_tokens": 40,
        "total_tokens": 160,
        "input_token_details": {"cache_read": 100, "cache_creation": 5},
        "output_token_details": {"reasoning": 30},
    }
    stop = assert_stop(
        _message({"model_provider": "openai", "finish_reason": "stop"}, usage_metadata=usage),
        usage={
            "input_tokens": 120,
            "output_tokens": 40,
            "reasoning_tokens": 30,
            "cache_read_tokens": 100,
            "cache_write_tokens": 5,
            "total_tokens": 160,
        },
    )
    assert stop.details["usage"] == usage


def test_a_ceiling_spent_on_reasoning() -> None:
    """A max_tokens cut with no visible text and reasoning tokens is output_limit/reasoning."""
    usage = {"input_tokens": 5, "output_tokens": 64, "total_tokens": 69,
             "output_token_details": {"reasoning": 64}}  # fmt: skip
    message = _message(
        {"model_provider": "openai", "finish_reason": "length"}, content="", usage_metadata=usage
    )
    assert_stop(message, reason="output_limit", detail="reasoning")


def test_a_blocked_gemini_prompt() -> None:
    """langchain-google-genai keeps a blocked prompt's `prompt_feedback`: its reason counts."""
    blocked = AIMessage(
        "",
        response_metadata={
            "model_provider": "google_genai",
            "prompt_feedback": {"block_reason": "SAFETY", "safety_ratings": []},
        },
    )
    assert_stop(blocked, reason="filtered", detail="prompt_blocked", raw_reason="SAFETY")
    proto_spelling = _message(
        {"model_provider": "google_genai",
         "prompt_feedback": {"block_reason": "BLOCK_REASON_UNSPECIFIED", "safety_ratings": []}},
        content="",
    )  # fmt: skip
    assert_stop(
        proto_spelling,
        reason="filtered",
        detail="prompt_blocked",
        raw_reason="BLOCK_REASON_UNSPECIFIED",
    )
    fine = _message(
        {"model_provider": "google_genai", "finish_reason": "STOP",
         "prompt_feedback": {"block_reason": 0, "safety_ratings": []}}
    )  # fmt: skip
    assert_stop(fine, reason="completed")


# --- streams ----------------------------------------------------------------------------------


def _anthropic_chunks() -> list[AIMessageChunk]:
    """A ChatAnthropic stream as langchain-anthropic builds it (`_make_message_chunk_...`)."""
    provider = {"model_provider": "anthropic"}
    return [
        AIMessageChunk(
            content="",
            response_metadata={**provider, "model_name": "claude-sonnet-4-5"},
            usage_metadata={"input_tokens": 12, "output_tokens": 0, "total_tokens": 12},
        ),
        AIMessageChunk(content="Let me check.", response_metadata=provider),
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "get_weather", "args": "", "id": "call_1", "index": 1}],
            response_metadata=provider,
        ),
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": None, "args": '{"city": "Paris"}', "id": None, "index": 1}],
            response_metadata=provider,
        ),
        AIMessageChunk(
            content="",
            response_metadata={**provider, "stop_reason": "tool_use", "stop_sequence": None},
            usage_metadata={"input_tokens": 0, "output_tokens": 20, "total_tokens": 20},
            chunk_position="last",
        ),
    ]


def test_a_stream_gives_the_stop_of_the_message_it_amounts_to() -> None:
    """The chunks, merged as LangChain merges them, give the Stop of the twin message."""
    stop = assert_stop(
        _anthropic_chunks(),
        reason="tool_request",
        provider="langchain",
        text="Let me check.",
        tool_calls=[{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}],
        usage={"input_tokens": 12, "output_tokens": 20, "total_tokens": 32},
    )
    twin = AIMessage(
        "Let me check.",
        tool_calls=[CALL],
        response_metadata={
            "model_provider": "anthropic",
            "stop_reason": "tool_use",
            "stop_sequence": None,
        },
        usage_metadata={"input_tokens": 12, "output_tokens": 20, "total_tokens": 32},
    )
    same_stop(stop, stopkit.normalize(twin))
    assert ADAPTER.assistant_message(stop)[0] is stop.raw  # the merged chunk, sent back as is


def test_a_stream_cut_before_its_stop_value_is_incomplete() -> None:
    """Without the chunk carrying the stop value the stream is unknown; its calls never run."""
    stop = assert_stop(
        _anthropic_chunks()[:-1],
        reason="unknown",
        detail="stream_incomplete",
        tool_calls=[{"complete": False}],
        notes=["without a chunk carrying a stop value"],
    )
    assert stop.runnable_tool_calls == ()


def test_after_the_end_usage_counts_and_text_does_not() -> None:
    """A chunk after the stop value brings its usage, never its text (a note counts it)."""
    provider = {"model_provider": "bedrock_converse"}
    chunks = [
        AIMessageChunk(content="Paris is sunny.", response_metadata=provider),
        AIMessageChunk(content="", response_metadata={**provider, "stopReason": "end_turn"}),
        AIMessageChunk(
            content=" Late.",
            response_metadata={**provider, "metrics": {"latencyMs": [5]}},
            usage_metadata={"input_tokens": 9, "output_tokens": 4, "total_tokens": 13},
        ),
    ]
    assert_stop(
        chunks,
        reason="completed",
        text="Paris is sunny.",
        usage={"input_tokens": 9, "output_tokens": 4},
        notes=["1 chunk after the stop value carried text"],
    )


@pytest.mark.parametrize(
    ("later", "reason", "raw_reason"),
    [("content_filter", "filtered", "content_filter"), ("length", "output_limit", "length")],
)
def test_a_later_stop_value_wins_only_when_stricter(
    later: str, reason: str, raw_reason: str
) -> None:
    """A second stop value replaces the first only when stricter; the values are never joined."""
    provider = {"model_provider": "openai"}
    chunks = [
        AIMessageChunk(content="Hi", response_metadata={**provider, "finish_reason": "stop"}),
        AIMessageChunk(content="", response_metadata={**provider, "finish_reason": later}),
    ]
    assert_stop(chunks, reason=reason, raw_reason=raw_reason, notes=["stricter"])
    milder = [
        chunks[1],
        AIMessageChunk(content="", response_metadata={**provider, "finish_reason": "stop"}),
    ]
    assert_stop(milder, raw_reason=later)


def test_generation_chunks_are_read_with_their_generation_info() -> None:
    """ChatGenerationChunks (a chat model's `_stream`) carry the stop value in generation_info."""
    chunks = [
        ChatGenerationChunk(
            message=AIMessageChunk(content="Paris", response_metadata={"model_provider": "ollama"})
        ),
        ChatGenerationChunk(
            message=AIMessageChunk(content=" is", response_metadata={"model_provider": "ollama"}),
            generation_info={"done": True, "done_reason": "length", "model_provider": "ollama"},
        ),
    ]
    assert_stop(chunks, reason="output_limit", raw_reason="length", text="Paris is")


def test_the_last_chunk_without_a_stop_value_ends_the_stream_with_none() -> None:
    """`chunk_position="last"` ends the stream; with no stop value kept it is unknown/missing."""
    chunks = [AIMessageChunk(content="Hi", chunk_position="last")]
    assert_stop(chunks, reason="unknown", detail="missing", notes=["LangChain kept no stop value"])


def test_what_is_not_a_chunk_is_skipped_and_unmergeable_chunks_are_malformed() -> None:
    """Events that are not chunks are counted and ignored; unmergeable chunks are malformed."""
    chunks: list[Any] = [
        AIMessage("Hi"),
        AIMessageChunk(content="Hi", response_metadata={"finish_reason": "stop"}),
    ]
    assert_stop(stopkit.normalize_stream(chunks, adapter="langchain"), reason="completed",
                notes=["1 event ignored: not a LangChain message chunk"])  # fmt: skip
    clash = [
        AIMessageChunk(content="a", response_metadata={"x": "text"}),
        AIMessageChunk(content="b", response_metadata={"x": 1, "finish_reason": "stop"}),
    ]
    assert_stop(clash, reason="unknown", detail="malformed", notes=["could not merge"])


# --- the real integrations, answering recorded replies ----------------------------------------


def _recording(folder: str, name: str) -> Path:
    return RECORDINGS / folder / f"{name}.json"


def _chat_openai(path: Path) -> ChatOpenAI:
    transport = stopkit.record.ReplayTransport(path)
    return ChatOpenAI(
        model="gpt-4o",
        api_key="sk-test",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    )


def _chat_google(path: Path) -> ChatGoogleGenerativeAI:
    transport = stopkit.record.ReplayTransport(path)
    return ChatGoogleGenerativeAI(
        model="gemini-2.5-flash",
        google_api_key="k",
        max_retries=0,
        client_args={"transport": transport},
    )


def _direct(path: Path) -> stopkit.Stop:
    recorded = json.loads(path.read_text())["response"]
    if "events" in recorded:
        return stopkit.normalize_stream(recorded["events"])
    return stopkit.normalize(recorded["body"])


def _agrees(ours: stopkit.Stop, direct: stopkit.Stop) -> None:
    """What LangChain keeps reads as the provider's own reply does (call ids aside: LangChain's)."""
    assert ours.provider == "langchain"
    assert (ours.reason, ours.detail, ours.raw_reason) == (
        direct.reason,
        direct.detail,
        direct.raw_reason,
    )
    assert (ours.text, ours.refusal) == (direct.text, direct.refusal)
    assert [(c.name, c.arguments, c.complete) for c in ours.tool_calls] == [
        (c.name, c.arguments, c.complete) for c in direct.tool_calls
    ]


OPENAI_RECORDINGS = ["content_filter", "length", "refusal", "stop", "tool_calls", "unrecognized"]
GEMINI_RECORDINGS = [
    "function_call",
    "malformed_function_call",
    "max_tokens",
    "prompt_blocked",
    "safety",
    "stop",
]


@pytest.mark.parametrize("name", OPENAI_RECORDINGS)
def test_chat_openai_replies_read_as_the_chat_completion_does(name: str) -> None:
    """ChatOpenAI's AIMessage for a recorded completion gives that completion's decision."""
    path = _recording("openai_chat", name)
    message = _chat_openai(path).invoke("Weather in Paris?")
    stop = stopkit.normalize(message)
    _agrees(stop, _direct(path))
    assert stop.details["integration"] == "openai"


@pytest.mark.parametrize("name", [n for n in OPENAI_RECORDINGS if n != "refusal"])
def test_chat_openai_streams_read_as_the_chat_stream_does(name: str) -> None:
    """ChatOpenAI's chunks for a recorded stream give that stream's decision."""
    path = _recording("openai_chat", f"{name}.stream")
    chunks = list(_chat_openai(path).stream("Weather in Paris?"))
    _agrees(stopkit.normalize_stream(chunks), _direct(path))


def test_chat_openai_streams_drop_a_refusal() -> None:
    """langchain-openai keeps no `delta.refusal` from a stream: what it yields reads completed.

    A loss in LangChain, not in stopkit (its non-streaming reply keeps the refusal, above);
    this pins it so a langchain-openai that starts keeping it is noticed.
    """
    path = _recording("openai_chat", "refusal.stream")
    chunks = list(_chat_openai(path).stream("Weather in Paris?"))
    assert _direct(path).reason is StopReason.FILTERED
    assert_stop(chunks, reason="completed", text="", refusal=None)


@pytest.mark.parametrize("name", GEMINI_RECORDINGS)
@pytest.mark.parametrize("suffix", ["", ".stream"])
def test_chat_google_genai_reads_as_the_gemini_reply_does(name: str, suffix: str) -> None:
    """ChatGoogleGenerativeAI's message (or chunks) for a recorded reply give its decision."""
    path = _recording("gemini", f"{name}{suffix}")
    model = _chat_google(path)
    stop = (
        stopkit.normalize_stream(list(model.stream("Weather?")))
        if suffix
        else stopkit.normalize(model.invoke("Weather?"))
    )
    _agrees(stop, _direct(path))
    assert stop.details["integration"] == "google_genai"


# --- ChatBedrockConverse, built as langchain-aws builds it --------------------------------------
# langchain-aws is not a test dependency: its messages are built here as
# langchain_aws/chat_models/bedrock_converse.py builds them (langchain-aws main, read in its
# repository): `_parse_response` pops `output` (its content blocks, one text block as a str) and
# `usage` (to `usage_metadata`) and keeps the rest of the Converse body, `trace` included, as
# `response_metadata`, to which `_generate` adds `model_provider` and `model_name`;
# `_parse_stream_event` turns `messageStop` into a chunk whose `response_metadata` is the event,
# and the `metadata` event (usage popped) into one whose `response_metadata` is the rest of it;
# `_stream` adds `model_provider` to every chunk.
PROVIDER = {"model_provider": "bedrock_converse", "model_name": "amazon.nova-lite-v1:0"}


def _converse_usage(usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "input_tokens": usage.get("inputTokens", 0),
        "output_tokens": usage.get("outputTokens", 0),
        "total_tokens": usage.get("totalTokens", 0),
    }


def _converse_message(body: dict[str, Any]) -> AIMessage:
    body = dict(body)
    blocks = [{"type": "text", "text": b["text"]} for b in body.pop("output")["message"]["content"]]
    content: Any = blocks[0]["text"] if len(blocks) == 1 else blocks
    usage = _converse_usage(body.pop("usage"))
    return AIMessage(content=content, usage_metadata=usage, response_metadata={**body, **PROVIDER})


def _converse_chunks(events: list[dict[str, Any]]) -> list[AIMessageChunk]:
    provider = {"model_provider": PROVIDER["model_provider"]}  # `_stream` marks every chunk
    chunks = []
    for event in events:
        if "contentBlockDelta" in event:
            text = [{"type": "text", "text": event["contentBlockDelta"]["delta"]["text"]}]
            chunks.append(AIMessageChunk(content=text, response_metadata=provider))
        elif "messageStop" in event:
            said = {**event["messageStop"], **provider}
            chunks.append(AIMessageChunk(content="", response_metadata=said))
        elif "metadata" in event:
            rest = {**event["metadata"], **provider}
            usage = _converse_usage(rest.pop("usage"))
            chunks.append(AIMessageChunk(content="", response_metadata=rest, usage_metadata=usage))
    return chunks


@pytest.mark.parametrize("name", ["guardrail_masked", "guardrail_intervened"])
@pytest.mark.parametrize("suffix", ["", ".stream"])
def test_chat_bedrock_converse_reads_a_guardrail_as_the_converse_reply_does(
    name: str, suffix: str
) -> None:
    """A guardrail read through ChatBedrockConverse says what the native read does, masking too."""
    case = json.loads((PAYLOADS / "bedrock" / f"{name}{suffix}.json").read_text())
    if suffix:
        direct = stopkit.normalize_stream(case["events"], adapter="bedrock")
        ours = stopkit.normalize_stream(_converse_chunks(case["events"]))
    else:
        direct = stopkit.normalize(case["reply"], adapter="bedrock")
        ours = stopkit.normalize(_converse_message(case["reply"]))
    _agrees(ours, direct)
    assert (ours.reason, ours.detail) == (StopReason.FILTERED, "guardrail")
    assert ours.details.get(MASKED_ONLY) == direct.details.get(MASKED_ONLY)
    assert (MASKED_ONLY in ours.details) is (name == "guardrail_masked")


@pytest.mark.parametrize(
    ("folder", "name"),
    [("openai_chat", f"{n}.stream") for n in OPENAI_RECORDINGS if n != "refusal"]
    + [("gemini", f"{n}.stream") for n in GEMINI_RECORDINGS],
)
def test_a_real_integrations_stream_is_told_as_its_text_grows(folder: str, name: str) -> None:
    """`on_text` tells the recorded stream's text piece by piece, without merging per chunk."""
    path = _recording(folder, name)
    model = _chat_openai(path) if folder == "openai_chat" else _chat_google(path)
    chunks = list(model.stream("Weather?"))
    assert_pieces_join(ADAPTER, chunks)
    told, streamed, results = tell_counting(ADAPTER, chunks)
    assert streamed.stop is not None
    assert "".join(told) == streamed.stop.text == growth(ADAPTER, chunks)
    assert results <= 2


# --- detection and the conversation -----------------------------------------------------------


def _every_kind() -> list[Any]:
    message = _message({"model_provider": "openai", "finish_reason": "stop"})
    chunk = AIMessageChunk(content="Hi", response_metadata={"finish_reason": "stop"})
    generation = ChatGeneration(message=message)
    return [
        message,
        chunk,
        generation,
        ChatGenerationChunk(message=chunk),
        Generation(text="Hi", generation_info={"finish_reason": "stop"}),
        ChatResult(generations=[generation]),
        LLMResult(generations=[[generation]]),
    ]


@pytest.mark.parametrize("obj", _every_kind(), ids=lambda o: type(o).__name__)
def test_only_the_langchain_adapter_claims_a_langchain_object(obj: Any) -> None:
    """No other adapter claims a LangChain object, as a reply or as a stream's first event."""
    claims = [a.name for a in stopkit.registered_adapters() if a.detects(obj)]
    assert claims == ["langchain"]
    starts = [a.name for a in stopkit.registered_adapters() if a.detects_event(obj)]
    chunk = isinstance(obj, AIMessageChunk | ChatGenerationChunk)
    assert starts == (["langchain"] if chunk else [])


def test_other_messages_are_not_replies() -> None:
    """A HumanMessage is no model's reply: no adapter reads it."""
    with pytest.raises(stopkit.UnsupportedReply):
        stopkit.normalize(HumanMessage("Hi"))


def test_tool_results_are_tool_messages_and_a_paused_anthropic_turn_resumes() -> None:
    """Results go back as ToolMessages; a ChatAnthropic pause_turn is resumed by its message."""
    stop = stopkit.normalize(
        _message({"model_provider": "anthropic", "stop_reason": "tool_use"}, tool_calls=[CALL])
    )
    sent = ADAPTER.tool_results(
        stop, [ToolResult(call_id="call_1", name="get_weather", content="18C", is_error=True)]
    )
    assert sent == [
        ToolMessage(content="18C", tool_call_id="call_1", name="get_weather", status="error")
    ]
    with pytest.raises(ValueError, match="only a paused ChatAnthropic reply"):
        ADAPTER.resume(stop)
    paused = stopkit.normalize(
        _message({"model_provider": "anthropic", "stop_reason": "pause_turn"})
    )
    assert ADAPTER.resume(paused) == ([paused.raw], {})


def _tool_then_answer() -> Iterator[AIMessage]:
    """A ChatAnthropic turn asking for the weather tool, then its answer."""
    return iter(
        [
            _message(
                {"model_provider": "anthropic", "stop_reason": "tool_use"},
                content="",
                tool_calls=[CALL],
            ),
            _message({"model_provider": "anthropic", "stop_reason": "end_turn"}),
        ]
    )


def test_the_loop_runs_a_langchain_chat_model() -> None:
    """`run_loop` drives a LangChain chat model: the tool request, the ToolMessage, the answer."""
    replies = _tool_then_answer()
    model = GenericFakeChatModel(messages=replies)
    outcome = stopkit.run_loop(
        lambda messages, **overrides: model.invoke(messages),
        [HumanMessage("Weather in Paris?")],
        tools={"get_weather": lambda city: f"sunny in {city}"},
    )
    assert outcome.termination.value == "completed"
    assert outcome.text == "Paris is sunny."
    tool_message = outcome.messages[2]
    assert isinstance(tool_message, ToolMessage)
    assert (tool_message.tool_call_id, tool_message.content) == ("call_1", "sunny in Paris")


@pytest.mark.parametrize(("adapter", "first_call"), [("langchain", 0), (None, 1)])
def test_a_text_prompt_reaches_the_chat_model_as_a_human_message(
    adapter: str | None, first_call: int
) -> None:
    """A `str` prompt goes to a LangChain chat model as LangChain's `HumanMessage`.

    With `adapter="langchain"` from the first call; without it, from the call after the first
    reply said which adapter (the transcript's first message is then re-shaped too).
    """
    seen: list[list[Any]] = []
    replies = _tool_then_answer()

    def call(messages: list[Any], **overrides: Any) -> AIMessage:
        seen.append(list(messages))
        return next(replies)

    outcome = stopkit.run_loop(
        call,
        "Weather in Paris?",
        tools={"get_weather": lambda city: f"sunny in {city}"},
        adapter=adapter,
    )
    assert outcome.termination.value == "completed"
    for messages in (seen[first_call], outcome.messages):
        assert isinstance(messages[0], HumanMessage)
        assert messages[0].content == "Weather in Paris?"
