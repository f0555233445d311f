"""The OpenAI Chat adapter's rules: its tables, and the provider steps that read beside them.

The engine (`_engine.decide`) applies DESIGN section 3; what is Chat's own is here. The
`finish_reason` table covers OpenAI's five values and the compatible servers' (DeepSeek, vLLM,
OpenRouter, Together, Mistral), each dialect value with its note. Two steps reinterpret a value
with one provider's knowledge: Azure's `content_filter` names the category that filtered
(`recitation`, `guardrail`), and vLLM's `stop_reason` says which stop ended a `stop`. Everything
else the reply says (a refusal, a filter result, an in-band error, calls, usage) is a fact the
reader records on the `Reading`, and the engine weighs it. `filter_hits` and `visible_text` are
how both the reader and the stream accumulator read Azure's filters and a message's content.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stopkit._stop import StopReason
from stopkit.adapters._reading import Reading, Verdict
from stopkit.adapters._rules import Rules
from stopkit.adapters._wire import wire

__all__ = [
    "CONTENT_FILTER",
    "DIALECT_NOTES",
    "FINISH_DETAILS_TYPE",
    "FINISH_REASON",
    "LEGACY_FIELD",
    "PROMPT_FILTER",
    "PROVIDER",
    "RULES",
    "VLLM_STOP_REASON",
    "category_detail",
    "filter_hits",
    "visible_text",
]

PROVIDER = "openai.chat"
_R = StopReason

# `choices[i].finish_reason`.
# OpenAI: openai/types/chat/chat_completion.py (Choice.finish_reason, a Literal of five values;
# the same Literal in chat_completion_chunk.py). The rest are OpenAI-compatible dialects:
FINISH_REASON: dict[str, Verdict] = {
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
"""`finish_reason` -> (reason, detail), OpenAI's values and the compatible servers' own."""

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
FINISH_DETAILS_TYPE: dict[str, Verdict] = {
    "stop": (_R.COMPLETED, None),
    "max_tokens": (_R.OUTPUT_LIMIT, "max_tokens"),
}
"""Legacy `finish_details.type` -> (reason, detail), read only when `finish_reason` is absent."""

# Azure OpenAI `content_filter_results` categories with `filtered: true` (choice level), from
# learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter. A category not listed
# here that says `filtered: true` is still filtered (detail `safety`).
CONTENT_FILTER: dict[str, Verdict] = {
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
"""Azure `content_filter_results` category with `filtered: true` -> (reason, detail)."""

# Azure `prompt_filter_results[i].content_filter_results` with `filtered: true`: the prompt
# itself was blocked, whichever category said so.
PROMPT_FILTER: dict[str, Verdict] = {
    "filtered: true": (_R.FILTERED, "prompt_blocked"),
}

# vLLM `choices[i].stop_reason` (vllm/entrypoints/openai/protocol.py): the stop string that
# matched, or the id of the stop token that ended the reply; read when finish_reason is `stop`.
# Keyed by the kind of value (the value itself is the caller's own stop string or token).
VLLM_STOP_REASON: dict[str, Verdict] = {
    "<a string>": (_R.STOP_SEQUENCE, None),
    "<a token id>": (_R.COMPLETED, None),
}


def _filtered(value: Any, depth: int = 0) -> bool:
    """Say whether one category's result (an object, or a list of blocklist hits) filtered.

    Azure nests hits one list deep; deeper lists are not looked into (a reply nested hundreds
    of lists deep must not exhaust the stack).
    """
    if isinstance(value, list | tuple):
        return depth < 2 and any(_filtered(item, depth + 1) for item in value)
    return wire(value).get("filtered") is True


def filter_hits(results: Any) -> list[str]:
    """Name the categories of an Azure `content_filter_results` object that say `filtered: true`.

    Example:
        >>> filter_hits({"hate": {"filtered": False}, "violence": {"filtered": True}})
        ['violence']
    """
    if not results:
        return []
    fields: Mapping[str, Any] = wire(results)
    return [
        str(name)
        for name, value in fields.items()
        if name != "error" and value is not None and _filtered(value)
    ]


def category_detail(hits: list[str]) -> str | None:
    """Return the detail the first category that filtered names (`safety` when unlisted).

    Example:
        >>> category_detail(["protected_material_code", "hate"])
        'recitation'
    """
    return CONTENT_FILTER.get(hits[0], (StopReason.FILTERED, "safety"))[1]


def visible_text(content: Any) -> str | None:
    """Return the visible text of a message's `content`: a string, or a list of parts.

    Some servers (Mistral's reasoning models) send a list of chunks; only `text` parts are
    visible (`thinking` ones are not). None when `content` is neither.

    Example:
        >>> visible_text([{"type": "thinking", "thinking": []}, {"type": "text", "text": "4"}])
        '4'
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list | tuple):
        return None
    texts = []
    for part in content:
        fields = wire(part)
        text = fields.get("text")
        if fields.get("type") == "text" and isinstance(text, str):
            texts.append(text)
    return "".join(texts)


# --- the provider steps ----------------------------------------------------------------------


def azure_filter_category(reading: Reading, reason: StopReason, detail: str | None) -> Verdict:
    """Azure's `content_filter` finish: the category that filtered names the kind.

    The filter results beside the value say which category said `filtered: true`: protected
    material is `recitation`, a custom blocklist a `guardrail`, the rest `safety`.
    """
    found = reading.filter
    if reason is not StopReason.FILTERED or found is None:
        return reason, detail
    kind, why = found
    reading.notes.append(f"{why}: filtered/{kind}")
    return reason, kind


def vllm_stop_reason(reading: Reading, reason: StopReason, detail: str | None) -> Verdict:
    """Read vLLM's `stop_reason` beside `stop`: the stop string that matched, or a stop token."""
    if reason is not StopReason.COMPLETED:
        return reason, detail
    value = reading.details.get("stop_reason")
    if type(value) is str:
        reading.notes.append(f"vLLM stop_reason {value!r}: a stop string matched")
        return VLLM_STOP_REASON["<a string>"]
    if type(value) is int:
        reading.notes.append(f"vLLM stop_reason {value!r} is a stop token id: completed")
        return VLLM_STOP_REASON["<a token id>"]
    return reason, detail


_STEPS = (azure_filter_category, vllm_stop_reason)
LEGACY_FIELD = "finish_details.type"
"""The legacy stop field a reader names when `finish_reason` is absent (`Reading.field`)."""

RULES = Rules(
    PROVIDER,
    "finish_reason",
    FINISH_REASON,
    DIALECT_NOTES,
    steps=_STEPS,
    fields={LEGACY_FIELD: Rules(PROVIDER, LEGACY_FIELD, FINISH_DETAILS_TYPE, steps=_STEPS)},
)
