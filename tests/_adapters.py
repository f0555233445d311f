"""The one registry of the built-in adapters that every cross-adapter suite is parametrized over.

One row per built-in adapter: its name, its payload folder (also the name of its module and of
its `tests/sdk_forms/` module), the shared corpus's wire formats it reads, where a reply keeps
its stop value (for the property tests), which event ends one of its streams, and whether its
streams are server-sent events on the wire. `tests/test_registry.py` pins the rows to the
adapters stopkit registers, by reflection: a new built-in adapter fails that test until it has
its row here, and then every cross-adapter suite covers it.

An adapter of a framework's objects (which no payload file can hold) has its row in
`FRAMEWORKS` instead (see `Framework`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.loop import _duplicates as dup
from tests.loop import _validate as transcripts
from tests.loop._duplicates import Duplicates

_MISSING: Any = object()
Path = tuple[Any, ...]
"""Keys and indexes leading to a value inside a JSON reply."""


def get(obj: Any, key: Any) -> Any:
    """`obj[key]` for a dict key or a list index, `_MISSING` when there is none."""
    if isinstance(obj, dict):
        return obj.get(key, _MISSING)
    if isinstance(obj, list) and isinstance(key, int) and 0 <= key < len(obj):
        return obj[key]
    return _MISSING


def value_at(reply: Any, path: Path) -> Any:
    """The value at `path` in `reply`, or `MISSING`."""
    node = reply
    for key in path:
        node = get(node, key)
        if node is _MISSING:
            return _MISSING
    return node


MISSING = _MISSING


def _either(obj: Any, camel: str, snake: str) -> str:
    """The key a camel-or-snake reader takes (the camel one unless it is absent or None)."""
    value = get(obj, camel)
    return camel if value is not _MISSING and value is not None else snake


# --- where each adapter reads its stop value ---------------------------------------------------


def _chat_path(reply: Any) -> Path | None:
    choices = get(reply, "choices")
    if not isinstance(choices, list) or not choices:
        return None

    def index(i: int) -> int:
        value = get(choices[i], "index")
        return value if type(value) is int else 0

    first = 0 if len(choices) == 1 else min(range(len(choices)), key=index)
    return ("choices", first, "finish_reason")


def _gemini_path(reply: Any) -> Path | None:
    candidates = get(reply, "candidates")
    if isinstance(candidates, list) and candidates:
        return ("candidates", 0, _either(candidates[0], "finishReason", "finish_reason"))
    if candidates is _MISSING or candidates is None or candidates == []:
        feedback = _either(reply, "promptFeedback", "prompt_feedback")
        return (feedback, _either(get(reply, feedback), "blockReason", "block_reason"))
    return None


# --- what ends a stream (DESIGN section 3, and each adapter's stream_notes) ---------------------


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else None


def _listed(obj: Any, name: str) -> list[Any]:
    value = _field(obj, name)
    return value if isinstance(value, list) else []


def _chat_ends(event: Any) -> bool:
    # finish_reason, or the legacy finish_details that stands in for it (DESIGN section 3)
    choices = _listed(event, "choices")
    return any(_field(c, "finish_reason") or _field(c, "finish_details") for c in choices)


def _gemini_ends(event: Any) -> bool:
    candidates = _listed(event, "candidates")
    if any(_field(c, "finishReason") or _field(c, "finish_reason") for c in candidates):
        return True
    feedback = _field(event, "promptFeedback") or _field(event, "prompt_feedback")
    return bool(_field(feedback, "blockReason") or _field(feedback, "block_reason"))


def _bedrock_ends(event: Any) -> bool:
    from stopkit.adapters.bedrock import STREAM_ERRORS

    if not isinstance(event, dict):
        return False
    kind = event.get("type")
    keys = {kind} if isinstance(kind, str) else set(event)
    return bool(keys & {"messageStop", *STREAM_ERRORS})


def _bedrock_invoke_path(reply: Any) -> Path | None:
    # The first output's stop field of the family the body's key names (one key per body).
    from stopkit.adapters._bedrock_invoke_rules import family_of

    family = family_of(reply) if isinstance(reply, dict) else None
    if family is None:
        return None
    return (family.key, 0, family.stop) if family.listed else (family.stop,)


def _bedrock_invoke_ends(event: Any) -> bool:
    # The chunk with a stop value or the invocation metrics, an exception, or a guardrail's
    # intervention (it stands without a last chunk: see the adapter's stream_notes).
    from stopkit.adapters._bedrock_invoke_rules import STREAM_ERRORS

    if not isinstance(event, dict):
        return False
    outputs = _listed(event, "outputs")
    stops = [_field(o, "stop_reason") for o in outputs]
    stops += [event.get("completionReason"), event.get("stop_reason")]
    return (
        any(s is not None for s in stops)
        or "amazon-bedrock-invocationMetrics" in event
        or event.get("amazon-bedrock-guardrailAction") == "INTERVENED"
        or bool(set(event) & set(STREAM_ERRORS))
    )


_RESPONSES_END = {"response.completed", "response.incomplete", "response.failed"}


def _xai_path(reply: Any) -> Path | None:
    outputs = get(reply, "outputs")
    if not isinstance(outputs, list) or not outputs:
        return None
    return ("outputs", 0, _either(outputs[0], "finishReason", "finish_reason"))


def _xai_ends(event: Any) -> bool:
    # A finish_reason other than the proto default (REASON_INVALID) ends it.
    return any(
        (_field(o, "finish_reason") or _field(o, "finishReason")) not in (None, "REASON_INVALID")
        for o in _listed(event, "outputs")
    )


# --- where a reply names its model and its own id (each wire's field names) -------------------


def _model_and_id(model: str | None, reply_id: str | None) -> Callable[[Any], tuple[Any, Any]]:
    """The values a reply holds under `model` and `reply_id` (None: the wire has no such field)."""

    def names(reply: Any) -> tuple[Any, Any]:
        return (
            None if model is None else _field(reply, model),
            None if reply_id is None else _field(reply, reply_id),
        )

    return names


_MODEL_AND_ID = _model_and_id("model", "id")  # the usual field names


def _gemini_names(reply: Any) -> tuple[Any, Any]:
    return (
        _field(reply, _either(reply, "modelVersion", "model_version")),
        _field(reply, _either(reply, "responseId", "response_id")),
    )


@dataclass(frozen=True)
class Builtin:
    """What the cross-adapter suites know of one built-in adapter."""

    name: str
    folder: str
    """Its payload folder, module and `tests/sdk_forms/` module name."""
    corpus: tuple[str, ...]
    """The shared corpus's `wire_format` labels it reads."""
    stop_path: Callable[[Any], Path | None]
    """Where the first choice's/candidate's stop value sits (None: nowhere readable)."""
    ends: Callable[[Any], bool]
    """Whether a stream event is its stream's terminal event."""
    more_stop_fields: tuple[Path, ...] = ()
    """Further stop fields an unknown string must not make "fine"."""
    sse: bool = True
    """Whether its streams are server-sent events on the wire (Ollama: JSON lines; Bedrock:
    AWS event stream)."""
    tools: bool = True
    """Whether its replies can carry client tool calls (the loop's tool suites run over those)."""
    names: Callable[[Any], tuple[Any, Any]] = _MODEL_AND_ID
    """The model and the reply id a reply names (`Stop.model`, `Stop.response_id`)."""
    transcript: Callable[[Sequence[Any]], None] = field(kw_only=True)
    """Validates the messages the loop writes as its SDK's request messages."""
    duplicates: Duplicates | None = None
    """Two calls under one id through the loop: what runs and what is sent back (tools only)."""
    otel_provider: str | None = None
    """Its `gen_ai.provider.name`, a well-known value of the conventions (None: its own name)."""
    otel_operation: str = "chat"
    """Its `gen_ai.operation.name`."""


BUILTINS: tuple[Builtin, ...] = (
    Builtin(
        "anthropic",
        "anthropic",
        ("anthropic_messages",),
        lambda r: ("stop_reason",),
        lambda e: _field(e, "type") == "message_stop",
        transcript=transcripts.ANTHROPIC,
        # by id, and the Messages API wants one tool_result per tool_use id: one answer, the first
        duplicates=dup.shaped("anthropic", ("Paris",), (("dup", ""),)),
        otel_provider="anthropic",
    ),
    Builtin(
        "openai.chat",
        "openai_chat",
        ("openai_chat",),
        _chat_path,
        _chat_ends,
        more_stop_fields=(("choices", 0, "finish_details", "type"),),
        transcript=transcripts.CHAT,
        # by tool_call_id: both results go back, the second one the error
        duplicates=dup.shaped("openai.chat", ("Paris",), (("dup", ""), ("dup", "")),
                              dup.by_role_tool("tool_call_id")),
        otel_provider="openai",
    ),
    Builtin(
        "openai.responses",
        "openai_responses",
        ("openai_responses",),
        lambda r: ("status",),
        lambda e: _field(e, "type") in _RESPONSES_END,
        more_stop_fields=(("incomplete_details", "reason"), ("error", "code")),
        transcript=transcripts.RESPONSES,
        # by call_id: both function_call_output items go back
        duplicates=dup.shaped("openai.responses", ("Paris",), (("dup", ""), ("dup", ""))),
        otel_provider="openai",
    ),
    Builtin(
        "gemini", "gemini", ("gemini",), _gemini_path, _gemini_ends, names=_gemini_names,
        transcript=transcripts.GEMINI,
        # one functionResponse per functionCall, in order: both go back, the second the error
        duplicates=dup.shaped("gemini", ("Paris",), (("dup", ""), ("dup", ""))),
        otel_provider="gcp.gen_ai",  # a reply does not say which backend
        otel_operation="generate_content",
    ),
    Builtin(
        "bedrock",
        "bedrock",
        ("bedrock_converse",),
        lambda r: ("stopReason",),
        _bedrock_ends,
        sse=False,
        names=_model_and_id(None, None),  # service-2.json ConverseResponse: neither
        transcript=transcripts.BEDROCK,
        # by toolUseId: both toolResult blocks, the second with status error
        duplicates=Duplicates(dup.bedrock_reply, lambda: dup.payload("bedrock", "end_turn.json"),
                              dup.bedrock_answers, ("Paris",),
                              (("dup", "success"), ("dup", "error"))),
        otel_provider="aws.bedrock",
    ),
    Builtin(
        "bedrock.invoke",
        "bedrock_invoke",
        ("bedrock_titan", "bedrock_meta"),
        _bedrock_invoke_path,
        _bedrock_invoke_ends,
        sse=False,
        tools=False,  # prompt-in, text-out families: no tool calls on the wire
        names=_model_and_id(None, "id"),  # only Cohere Command's body has an id
        transcript=transcripts.PROMPT,
        otel_provider="aws.bedrock",
        otel_operation="text_completion",
    ),
    # xai_sdk's gRPC replies, as the proto's JSON (no shared corpus records gRPC).
    Builtin(
        "xai", "xai", (), _xai_path, _xai_ends, sse=False,
        transcript=transcripts.XAI,
        # by tool_call_id: both ROLE_TOOL messages, the second the error
        duplicates=Duplicates(dup.xai_reply, lambda: dup.payload("xai", "stop.json"),
                              dup.by_role_tool("tool_call_id", "ROLE_TOOL"), ("Paris",),
                              (("dup", ""), ("dup", ""))),
        otel_provider="x_ai",
    ),
    Builtin(
        "cohere",
        "cohere",
        ("cohere_v2",),
        lambda r: ("finish_reason",),
        lambda e: _field(e, "type") == "message-end",
        names=_model_and_id(None, "id"),  # cohere/v2/types/v2chat_response.py: no model
        transcript=transcripts.COHERE,
        # by tool_call_id: both tool messages
        duplicates=Duplicates(dup.cohere_reply, lambda: dup.payload("cohere", "complete.json"),
                              dup.by_role_tool("tool_call_id"), ("Paris",),
                              (("dup", ""), ("dup", ""))),
        otel_provider="cohere",
    ),
    Builtin(
        "ollama",
        "ollama",
        ("ollama_chat", "ollama_generate"),
        lambda r: ("done_reason",),
        lambda e: _field(e, "done") is True,
        sse=False,
        names=_model_and_id("model", None),  # ollama/_types.py: a reply has no id
        transcript=transcripts.OLLAMA,
        # Ollama sends no ids (stopkit makes distinct ones) and matches by name and order: both run
        duplicates=Duplicates(dup.ollama_reply, lambda: dup.payload("ollama", "stop.json"),
                              dup.by_role_tool("tool_name"), ("Paris", "Tokyo"),
                              (("get_weather", ""), ("get_weather", ""))),
    ),
    # Issue 18's wire formats: legacy Completions (Chat's choices with a `text` body), Cohere v1
    # Chat (JSON lines told apart by `event_type`).
    Builtin(
        "openai.completions",
        "openai_completions",
        ("openai_completions",),
        _chat_path,
        _chat_ends,
        tools=False,  # a prompt in, text out: the endpoint takes no tools
        transcript=transcripts.PROMPT,
        otel_provider="openai",
        otel_operation="text_completion",
    ),
    Builtin(
        "cohere.v1",
        "cohere_v1",
        ("cohere_v1",),
        lambda r: ("finish_reason",),
        lambda e: _field(e, "event_type") == "stream-end",
        sse=False,
        names=_model_and_id(None, "response_id"),  # non_streamed_chat_response.py: no model
        transcript=transcripts.COHERE_V1,
        # Cohere v1 sends no ids either (call_<n>) and matches a result by its call: both run
        duplicates=Duplicates(dup.cohere_v1_reply,
                              lambda: dup.payload("cohere_v1", "complete.json"),
                              dup.cohere_v1_answers, ("Paris", "Tokyo"),
                              (("get_weather", ""), ("get_weather", ""))),
        otel_provider="cohere",
    ),
)


@dataclass(frozen=True)
class Framework:
    """A built-in adapter of a framework's objects, which the payload-based suites cannot run.

    Payload files hold JSON bodies, and auto-detection never gives a JSON body to a framework
    adapter (its objects are recognized by their class): its cases live in its own test module,
    built with the framework's constructors.
    """

    name: str
    module: str
    """Its module under `stopkit.adapters` (its tests: `tests/adapters/test_<module>.py`)."""
    why: str
    """Why the payload-based suites skip it."""
    otel_provider: str | None = None
    """Its `gen_ai.provider.name` (None: its own name, as a framework of many providers)."""
    otel_operation: str = "chat"


FRAMEWORKS: tuple[Framework, ...] = (
    Framework(
        "langchain",
        "langchain",
        "LangChain messages are langchain-core objects, never a JSON body (their serialized "
        "form, `dumpd`, is not what a chat model returns); tests/adapters/test_langchain.py "
        "builds them",
    ),
    Framework(
        "litellm",
        "litellm",
        "a LiteLLM reply is a litellm object whose JSON is a plain Chat body (read by "
        "openai.chat): the provider it came from lives in `_hidden_params`, outside the JSON; "
        "tests/adapters/test_litellm.py builds them",
    ),
    Framework(
        "pydantic_ai",
        "pydantic_ai",
        "a pydantic-ai ModelResponse is a dataclass of part objects, detected by its class",
    ),
    Framework(
        "openai.agents",
        "openai_agents",
        "a RunResult holds the run's agent, context and SDK items, detected by its class",
        otel_provider="openai",  # a run speaks the Responses API
    ),
)
FRAMEWORK_NAMES: tuple[str, ...] = tuple(f.name for f in FRAMEWORKS)

BY_NAME: dict[str, Builtin] = {b.name: b for b in BUILTINS}
BY_FOLDER: dict[str, Builtin] = {b.folder: b for b in BUILTINS}
NAMES: tuple[str, ...] = tuple(b.name for b in BUILTINS)
TOOL_NAMES: tuple[str, ...] = tuple(b.name for b in BUILTINS if b.tools)
#: corpus wire format -> the adapter that reads it
ADAPTER_OF_WIRE: dict[str, str] = {wire: b.name for b in BUILTINS for wire in b.corpus}
