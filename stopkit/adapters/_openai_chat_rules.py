"""The OpenAI Chat adapter's rules: its mapping tables and the reconciliation steps.

Shared by the whole-reply reader (`openai_chat.py`) and the stream accumulator
(`_openai_chat_stream.py`): both extract a choice's parts and hand them to `decide`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stopkit._stop import Stop, StopReason, ToolCall
from stopkit.adapters._common import as_list, as_raw, field, make_stop, tool_call

__all__ = [
    "CONTENT_FILTER",
    "DIALECT_NOTES",
    "FINISH_DETAILS_TYPE",
    "FINISH_REASON",
    "PROMPT_FILTER",
    "PROVIDER",
    "VLLM_STOP_REASON",
    "decide",
    "filter_detail",
    "prompt_filtered",
    "read_calls",
    "reader",
    "text_of",
]

PROVIDER = "openai.chat"
_R = StopReason

# `choices[i].finish_reason`.
# OpenAI: openai/types/chat/chat_completion.py (Choice.finish_reason, a Literal of five values;
# the same Literal in chat_completion_chunk.py). The rest are OpenAI-compatible dialects:
FINISH_REASON: dict[str, tuple[StopReason, str | None]] = {
    "stop": (_R.COMPLETED, None),
    "length": (_R.OUTPUT_LIMIT, "max_tokens"),
    "tool_calls": (_R.TOOL_REQUEST, None),
    "function_call": (_R.TOOL_REQUEST, None),  # deprecated: message.function_call
    "content_filter": (_R.FILTERED, "safety"),
    # DeepSeek (api-docs.deepseek.com, chat completion `finish_reason`): inference was
    # interrupted because the server ran out of resources; the reply is not an answer.
    "insufficient_system_resource": (_R.UNKNOWN, "error"),
    # vLLM (vllm/entrypoints/openai/protocol.py): `abort` when the engine aborted the request,
    # `error` when generation failed. OpenRouter and Mistral send `error` too.
    "abort": (_R.UNKNOWN, "cancelled"),
    "error": (_R.UNKNOWN, "error"),
    # vLLM repetition detection (RepetitionDetectionParams) ends a generation caught in a token
    # loop. Not `completed`: the text is a degenerate loop, not an answer, and returning it as the
    # final text would hide the failure; not `output_limit`: no ceiling was hit and a bigger
    # max_tokens would only loop longer. It is an error-like stop: unknown, escalated.
    "repetition": (_R.UNKNOWN, "error"),
    # Together (legacy models): the end-of-sequence token, a natural end.
    "eos": (_R.COMPLETED, None),
    # Mistral (docs.mistral.ai, ChatCompletionChoice.finish_reason): the model's context window
    # was filled, so a bigger max_tokens cannot help.
    "model_length": (_R.OUTPUT_LIMIT, "context_window"),
}

# The note each non-OpenAI finish_reason leaves, so a reader sees which dialect decided.
DIALECT_NOTES: dict[str, str] = {
    "insufficient_system_resource": (
        "finish_reason 'insufficient_system_resource' (DeepSeek): the server ran out of "
        "resources mid-reply; treated as unknown/error"
    ),
    "abort": "finish_reason 'abort' (vLLM): the request was aborted; treated as unknown/cancelled",
    "error": (
        "finish_reason 'error' (vLLM, OpenRouter, Mistral): generation failed; "
        "treated as unknown/error"
    ),
    "repetition": (
        "finish_reason 'repetition' (vLLM repetition detection): the model was stopped in a "
        "token loop; treated as unknown/error"
    ),
    "eos": "finish_reason 'eos' (Together): the end-of-sequence token; treated as completed",
    "model_length": (
        "finish_reason 'model_length' (Mistral): the context window is full; "
        "treated as output_limit/context_window"
    ),
}

# `choices[i].finish_details.type`: the legacy gpt-4-vision-preview shape (late 2023), read only
# when `finish_reason` is absent.
FINISH_DETAILS_TYPE: dict[str, tuple[StopReason, str | None]] = {
    "stop": (_R.COMPLETED, None),
    "max_tokens": (_R.OUTPUT_LIMIT, "max_tokens"),
}

# Azure OpenAI `content_filter_results` categories with `filtered: true` (choice level), from
# learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter. A category not listed
# here that says `filtered: true` is still filtered (detail `safety`).
CONTENT_FILTER: dict[str, tuple[StopReason, str | None]] = {
    "hate": (_R.FILTERED, "safety"),
    "sexual": (_R.FILTERED, "safety"),
    "violence": (_R.FILTERED, "safety"),
    "self_harm": (_R.FILTERED, "safety"),
    "profanity": (_R.FILTERED, "safety"),
    "jailbreak": (_R.FILTERED, "safety"),
    "indirect_attack": (_R.FILTERED, "safety"),
    "protected_material_text": (_R.FILTERED, "recitation"),
    "protected_material_code": (_R.FILTERED, "recitation"),
    "custom_blocklists": (_R.FILTERED, "guardrail"),
}

# Azure `prompt_filter_results[i].content_filter_results` with `filtered: true`: the prompt
# itself was blocked, whichever category said so.
PROMPT_FILTER: dict[str, tuple[StopReason, str | None]] = {
    "filtered: true": (_R.FILTERED, "prompt_blocked"),
}

# vLLM `choices[i].stop_reason` (vllm/entrypoints/openai/protocol.py): the stop string that
# matched, or the id of the stop token that ended the reply; read when finish_reason is `stop`.
# Keyed by the kind of value (the value itself is the caller's own stop string or token).
VLLM_STOP_REASON: dict[str, tuple[StopReason, str | None]] = {
    "<a string>": (_R.STOP_SEQUENCE, None),
    "<a token id>": (_R.COMPLETED, None),
}

_TOOL_VALUES = frozenset({"tool_calls", "function_call"})
_EMPTY: tuple[ToolCall, ...] = ()
_SCALARS = (str, bytes, int, float, list, tuple)
_SEQUENCES = (list, tuple)  # built once: a `list | tuple` union is built at every call


def _nothing(name: str, default: Any = None) -> Any:
    return default


_PLAIN_MODELS: dict[type, bool] = {}


def _plain_model(kind: type, declared: dict[str, Any]) -> bool:
    """Say whether reading `kind`'s instance __dict__ gives what `getattr` gives (per class).

    True for a pydantic model with pydantic's own attribute lookup, no class attribute named
    like a field, and no `cached_property` (whose values would sit in __dict__ too).
    """
    import functools

    from pydantic import BaseModel

    plain = (
        issubclass(kind, BaseModel)
        and getattr(kind, "__getattr__", None) is getattr(BaseModel, "__getattr__", None)
        and kind.__getattribute__ is object.__getattribute__
        and not any(hasattr(kind, name) for name in declared)
        and not any(
            isinstance(value, functools.cached_property)
            for klass in kind.__mro__
            for value in vars(klass).values()
        )
    )
    if len(_PLAIN_MODELS) < 1024:
        _PLAIN_MODELS[kind] = plain
    return plain


def reader(obj: Any) -> Callable[..., Any]:
    """Return a cheap `get(name, default=None)` for a JSON dict or an SDK object.

    Dialect fields (`x_groq`, `native_finish_reason`, Azure's filters, vLLM's `stop_reason`)
    are pydantic extras on the SDK objects: they are read from `__pydantic_extra__`, because a
    `getattr` that misses costs microseconds on a pydantic model.
    """
    if type(obj) is dict:
        return obj.get
    kind = type(obj)
    if _PLAIN_MODELS.get(kind):  # a plain pydantic model class seen before (see below)
        extra = getattr(obj, "__pydantic_extra__", None)
        values: dict[str, Any] = obj.__dict__
        return {**extra, **values}.get if extra else values.get
    if obj is None or isinstance(obj, _SCALARS):
        return _nothing
    if isinstance(obj, dict):
        return obj.get
    declared = getattr(kind, "__pydantic_fields__", None)
    if not isinstance(declared, dict):
        return lambda name, default=None: field(obj, name, default)
    extra = getattr(obj, "__pydantic_extra__", None) or {}
    plain = _PLAIN_MODELS.get(kind)
    if plain is None:
        plain = _plain_model(kind, declared)
    if plain:
        # The same answers as `get` below, from a dict's own (C) `get`: the instance __dict__
        # holds the declared fields that are set, __pydantic_extra__ the rest.
        values = obj.__dict__
        return {**extra, **values}.get if extra else values.get

    def get(name: str, default: Any = None) -> Any:
        if name in declared:
            return getattr(obj, name, default)
        return extra.get(name, default)

    return get


def _filtered(value: Any, depth: int = 0) -> bool:
    """Say whether one category's result (a dict, or a list of blocklist hits) says filtered.

    Azure nests hits one list deep; deeper lists are not looked into (a reply nested hundreds
    of lists deep must not exhaust the stack).
    """
    if type(value) is dict:
        return value.get("filtered") is True
    if isinstance(value, list | tuple):
        return depth < 2 and any(_filtered(item, depth + 1) for item in value)
    return field(value, "filtered") is True


def filter_detail(results: Any) -> tuple[str | None, list[str]]:
    """Return (detail, categories) for a `content_filter_results` object that filtered."""
    if not results:
        return None, []
    mapping = results if isinstance(results, dict) else getattr(results, "__dict__", {})
    items = mapping.items() if isinstance(mapping, dict) else ()
    hits = [str(name) for name, value in items if name != "error" and _filtered(value)]
    if not hits:
        return None, []
    detail = CONTENT_FILTER.get(hits[0], (_R.FILTERED, "safety"))[1]
    return detail, hits


def prompt_filtered(reply: Any) -> list[str]:
    """Return the categories that blocked the prompt in Azure's `prompt_filter_results`."""
    hits: list[str] = []
    for entry in as_list(field(reply, "prompt_filter_results")):
        hits.extend(filter_detail(field(entry, "content_filter_results"))[1])
    return hits


def text_of(content: Any) -> str | None:
    """Return the visible text of `content` (a string or a list of parts); None if malformed."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list | tuple):
        return None
    # Some servers (Mistral's reasoning models) send a list of chunks; `thinking` ones are skipped.
    return "".join(
        text
        for part in content
        if field(part, "type") == "text" and isinstance(text := field(part, "text"), str)
    )


def _custom_call(item: Any) -> ToolCall:
    custom = field(item, "custom")
    name, text = field(custom, "name"), field(custom, "input")
    call = tool_call(field(item, "id"), name, None)
    if not isinstance(text, str):
        return call.model_copy(update={"complete": False, "error": "custom call has no input"})
    # A custom tool's input is free text, not JSON: it is kept whole under "input".
    return call.model_copy(update={"arguments": {"input": text}})


def read_calls(message: Any) -> tuple[tuple[ToolCall, ...], list[str], bool, str | None]:
    """Return (tool calls, custom-tool call ids, whether legacy, what was malformed)."""
    get = message.get if type(message) is dict else reader(message)  # reader(), inlined
    raw_calls = get("tool_calls")
    if raw_calls is not None and not isinstance(raw_calls, _SEQUENCES):
        return _EMPTY, [], False, "message.tool_calls is not a list"
    calls: list[ToolCall] = []
    custom: list[str] = []
    for item in raw_calls or ():
        if type(item) is dict:  # the JSON body's function call, read without the readers
            function = item.get("function")
            if type(function) is dict and item.get("custom") is None:
                calls.append(
                    tool_call(item.get("id"), function.get("name"), function.get("arguments"))
                )
                continue
        item_get = reader(item)
        function = item_get("function")
        if item_get("custom") is not None and (
            function is None or as_raw(item_get("type")) == "custom"
        ):
            call = _custom_call(item)
            custom.append(call.id)
        else:
            function_get = reader(function)
            call = tool_call(item_get("id"), function_get("name"), function_get("arguments"))
        calls.append(call)
    if not calls:
        legacy = get("function_call")
        name = field(legacy, "name")
        # Some servers send an empty `{"name": "", "arguments": ""}`: that is no call at all.
        if isinstance(name, str) and name:
            return (tool_call("", name, field(legacy, "arguments")),), custom, True, None
    return tuple(calls), custom, False, None


# The OpenAI values decide's fast path may answer alone: no dialect note, no step of their own.
_PLAIN = {k: FINISH_REASON[k] for k in ("stop", "length", "tool_calls", "function_call")}


def _cut(calls: tuple[ToolCall, ...], why: str) -> tuple[ToolCall, ...]:
    return tuple(
        c if not c.complete else c.model_copy(update={"complete": False, "error": why})
        for c in calls
    )


def _refusal_note(raw_reason: Any) -> str:
    return f"message.refusal present with finish_reason {raw_reason!r}: filtered/refusal"


def plain_stop(
    raw_reason: str,
    raw: Any,
    text: str,
    calls: tuple[ToolCall, ...],
    refusal: str | None,
    notes: list[str],
    details: dict[str, Any],
) -> Stop | None:
    """The `Stop` of a choice with little to reconcile, or None when a step has a say.

    For a choice with no filter, error, vLLM `stop_reason` or malformed part, whose
    finish_reason is a documented OpenAI value: a refusal (step 1), or calls that agree with
    the value. `decide`'s steps give this same answer, without building their closure (the
    hot path of every chat reply).
    """
    mapped = _PLAIN.get(raw_reason)
    if mapped is None:
        return None
    reason, detail = mapped
    if refusal:
        notes.append(_refusal_note(raw_reason))
        reason, detail = _R.FILTERED, "refusal"
    elif calls:
        if reason is not _R.TOOL_REQUEST:
            return None
        for call in calls:
            if not call.complete:
                return None
    elif reason is _R.TOOL_REQUEST:
        return None
    return make_stop(
        reason, provider=PROVIDER, raw=raw, raw_reason=raw_reason, detail=detail, text=text,
        tool_calls=calls, refusal=refusal, notes=notes, details=details,
    )  # fmt: skip


def decide(
    raw_reason: Any,
    *,
    raw: Any,
    text: str,
    refusal: str | None,
    calls: tuple[ToolCall, ...],
    details: dict[str, Any],
    notes: list[str],
    error: Any = None,
    stop_reason: Any = None,
    filtered: tuple[str | None, list[str]] | None = None,
    prompt_hits: list[str] | None = None,
    finish_details_type: Any = None,
    malformed: str | None = None,
    incomplete: bool = False,
) -> Stop:
    """Apply the table and the reconciliation steps to one choice's parts; return its `Stop`."""
    # The common cases first: a documented OpenAI value with little to reconcile.
    if (
        malformed is None
        and not incomplete
        and not prompt_hits
        and (filtered is None or filtered[0] is None)
        and error is None
        and stop_reason is None
        and type(raw_reason) is str
    ):
        plain = plain_stop(raw_reason, raw, text, calls, refusal, notes, details)
        if plain is not None:
            return plain

    def stop(
        reason: StopReason,
        detail: str | None,
        tool_calls: tuple[ToolCall, ...] = calls,
        stop_sequence: str | None = None,
    ) -> Stop:
        return make_stop(
            reason, provider=PROVIDER, raw=raw, raw_reason=raw_reason, detail=detail, text=text,
            tool_calls=tool_calls, refusal=refusal, stop_sequence=stop_sequence, notes=notes,
            details=details,
        )  # fmt: skip

    if error is not None:
        details["error"] = error
    if malformed is not None:
        notes.append(f"malformed reply: {malformed}")
        return stop(_R.UNKNOWN, "malformed")
    if incomplete:
        why = "the stream ended before finish_reason"
        if error is not None:
            notes.append(f"an error arrived in the stream and {why}: unknown/error")
            return stop(_R.UNKNOWN, "error", tool_calls=_cut(calls, why))
        notes.append(f"{why}: unknown/stream_incomplete")
        return stop(_R.UNKNOWN, "stream_incomplete", tool_calls=_cut(calls, why))

    # The table.
    if raw_reason is None or raw_reason == "":
        legacy = finish_details_type if type(finish_details_type) is str else None
        mapped = FINISH_DETAILS_TYPE.get(legacy) if legacy else None
        if mapped is not None:
            raw_reason = finish_details_type
            notes.append(f"no finish_reason: legacy finish_details.type {raw_reason!r} read")
    elif not isinstance(raw_reason, str):
        notes.append(f"malformed reply: finish_reason is a {type(raw_reason).__name__}")
        return stop(_R.UNKNOWN, "malformed")
    else:
        mapped = FINISH_REASON.get(raw_reason)
        if raw_reason in DIALECT_NOTES:
            notes.append(DIALECT_NOTES[raw_reason])
    reason, detail = mapped if mapped is not None else (None, None)

    # 1. filtered: a refusal, an Azure filter (the reply's or the prompt's), content_filter.
    if refusal:
        notes.append(_refusal_note(raw_reason))
        return stop(_R.FILTERED, "refusal")
    if filtered is not None and filtered[0] is not None:
        notes.append(f"content_filter_results filtered {', '.join(filtered[1])}: filtered")
        return stop(_R.FILTERED, filtered[0])
    if prompt_hits:
        notes.append(f"prompt_filter_results filtered {', '.join(prompt_hits)}: filtered")
        return stop(_R.FILTERED, "prompt_blocked")
    if reason is _R.FILTERED:
        return stop(_R.FILTERED, detail)
    # 2. output_limit: a truncated reply's calls are never complete.
    if reason is _R.OUTPUT_LIMIT:
        if calls:
            why = f"the reply was cut off (finish_reason {raw_reason!r})"
            notes.append(f"{why} with {len(calls)} tool call(s): marked complete=False")
            return stop(_R.OUTPUT_LIMIT, detail, tool_calls=_cut(calls, why))
        return stop(_R.OUTPUT_LIMIT, detail)
    # 7 before 4: what we do not understand wins over present tool calls.
    if mapped is None:
        if raw_reason is None or raw_reason == "":
            notes.append("no finish_reason in the choice: unknown/missing")
            return stop(_R.UNKNOWN, "missing")
        notes.append(f"unrecognized finish_reason {raw_reason!r}: unknown")
        return stop(_R.UNKNOWN, "unrecognized")
    if reason is _R.UNKNOWN:
        return stop(_R.UNKNOWN, detail)
    if error is not None:
        notes.append(f"in-band error beside finish_reason {raw_reason!r}: unknown/error")
        return stop(_R.UNKNOWN, "error")
    # 4. tool_request: client calls are pending, whatever the field says.
    if calls:
        if raw_reason not in _TOOL_VALUES:
            notes.append(
                f"finish_reason {raw_reason!r} with {len(calls)} tool call(s): "
                "treated as tool_request"
            )
        bad = [c.name or c.id for c in calls if not c.complete]
        if bad:
            notes.append(f"tool call(s) {', '.join(bad)} incomplete (bad arguments): not runnable")
        return stop(_R.TOOL_REQUEST, None)
    if reason is _R.TOOL_REQUEST:
        notes.append(f"finish_reason {raw_reason!r} but no tool call in the message: unknown")
        return stop(_R.UNKNOWN, "no_pending_call")
    # 5. stop_sequence: vLLM names the matched stop string in `stop_reason`.
    if stop_reason is not None:
        details["stop_reason"] = stop_reason
        if isinstance(stop_reason, str):
            notes.append(f"vLLM stop_reason {stop_reason!r}: a stop string matched")
            reason, detail = VLLM_STOP_REASON["<a string>"]
            return stop(reason, detail, stop_sequence=stop_reason)
        if type(stop_reason) is int:
            notes.append(f"vLLM stop_reason {stop_reason!r} is a stop token id: completed")
            reason, detail = VLLM_STOP_REASON["<a token id>"]
            return stop(reason, detail)
    # 6. completed.
    return stop(_R.COMPLETED, None)
