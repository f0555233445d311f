"""OpenAI's `choices`-shaped replies, read once for Chat Completions and legacy Completions.

Both wire formats wrap each generation in a choice (`index`, `finish_reason`, and the extras the
compatible servers add to it: Azure's `content_filter_results`, vLLM's `stop_reason`,
OpenRouter's `native_finish_reason` and `error`) inside a reply that holds `usage`
(openai/types/completion_usage.py for both), an in-band error (the reply's own, or Groq's
`x_groq.error`), OpenRouter's `moderation` and Azure's `prompt_filter_results`. This module reads
all of that; each adapter reads the body of its choices with the function it passes (`Body`):
Chat a `message`, legacy Completions a `text`.

Example:
    >>> def body(reading, choice):
    ...     reading.text = choice.get("text") or ""
    >>> [r.text for r in readings({"choices": [
    ...     {"index": 1, "text": "B", "finish_reason": "stop"},
    ...     {"index": 0, "text": "A", "finish_reason": "stop"}]}, body)]
    ['A', 'B']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from stopkit._stop import StopReason, Usage
from stopkit.adapters._openai_chat_rules import PROMPT_FILTER, category_detail, filter_hits
from stopkit.adapters._reading import Reading, identify, tokens
from stopkit.adapters._wire import listed, wire

__all__ = ["Body", "read", "readings"]

Body = Callable[[Reading, Mapping[str, Any]], None]
"""Reads one choice's body (its fields, as `wire` gives them) into the reading."""

_R = StopReason
_SEQUENCES = (list, tuple)  # built once: a `list | tuple` union is built at every call
# A choice of one of these is not an object (a bool is an int).
_NOT_AN_OBJECT = (str, bytes, int, float, list, tuple)

# What a reply says beside its choices, read once for all of them: details, the in-band
# error, a blocked prompt (detail, what said so), usage, the model and the reply's id.
_Around = tuple[dict[str, Any], Any, "tuple[str, str] | None", "Usage | None", Any, Any]


def readings(reply: Any, body: Body) -> list[Reading]:
    """Read a `choices`-shaped reply: one `Reading` per choice, in `index` order.

    A reply without choices gives one reading (a blocked prompt, an error, or nothing).
    """
    fields = wire(reply)
    choices = fields.get("choices")
    around = _around(fields)
    if not isinstance(choices, _SEQUENCES):
        reading = _base(reply, None, around)
        reading.malformed = "choices is not a list"
        return [reading]
    if not choices:
        return [_no_choice(reply, around)]
    if len(choices) > 1:
        choices = sorted(choices, key=_index)
    return [_choice(reply, choice, around, body) for choice in choices]


def read(reply: Any, body: Body) -> Reading:
    """Read the reply's first choice (the lowest `index`): what `normalize` reports.

    Example:
        >>> read({"choices": [{"text": "Hi", "finish_reason": "stop"}]},
        ...      lambda reading, choice: None).raw_reason
        'stop'
    """
    fields = wire(reply)
    choices = fields.get("choices")
    if not isinstance(choices, _SEQUENCES) or not choices:
        return readings(reply, body)[0]
    first = choices[0] if len(choices) == 1 else min(choices, key=_index)
    return _choice(reply, first, _around(fields), body)


def _index(choice: Any) -> int:
    index = wire(choice).get("index")
    return index if type(index) is int else 0


def _around(fields: Mapping[str, Any]) -> _Around:
    details: dict[str, Any] = {}
    usage: Usage | None = None
    counts = fields.get("usage")
    if counts is not None:
        details["usage"] = counts
        usage = _usage(counts)
    moderation = fields.get("moderation")
    if moderation is not None:
        details["moderation"] = moderation
    error = fields.get("error")
    if error is None:
        groq = fields.get("x_groq")
        if groq is not None:
            error = wire(groq).get("error") or None
    blocked: tuple[str, str] | None = None
    prompt = fields.get("prompt_filter_results")
    if prompt:
        hits: dict[str, None] = {}  # the categories, each named once, in order
        for entry in listed(prompt):
            hits.update(dict.fromkeys(filter_hits(wire(entry).get("content_filter_results"))))
        if hits:
            details["prompt_filter_results"] = prompt
            detail = PROMPT_FILTER["filtered: true"][1] or "prompt_blocked"
            blocked = detail, f"prompt_filter_results filtered {', '.join(hits)}"
    # `model` and `id`: openai/types/chat/chat_completion.py and completion.py (both).
    return details, error, blocked, usage, fields.get("model"), fields.get("id")


def _usage(usage: Any) -> Usage | None:
    """The token counts of a `usage` (openai/types/completion_usage.py: CompletionUsage)."""
    counts = wire(usage)
    prompt = wire(counts.get("prompt_tokens_details"))
    return tokens(
        counts.get("prompt_tokens"),
        counts.get("completion_tokens"),
        wire(counts.get("completion_tokens_details")).get("reasoning_tokens"),
        prompt.get("cached_tokens"),
        prompt.get("cache_write_tokens"),
        counts.get("total_tokens"),
    )


def _base(reply: Any, raw_reason: Any, around: _Around) -> Reading:
    """A reading holding what the reply says beside its choices."""
    details, error, _, reading_usage, model, response_id = around
    reading = Reading(reply, raw_reason)
    identify(reading, model, response_id)
    reading.details.update(details)
    reading.usage = reading_usage
    if error is not None:
        reading.error = reading.details["error"] = error
    return reading


def _no_choice(reply: Any, around: _Around) -> Reading:
    """A reply with `choices: []`: a blocked prompt, an error, or nothing to read."""
    reading = _base(reply, None, around)
    reading.filter = around[2]
    if reading.filter is None:
        reading.notes.append("the reply has no choices")
    return reading


def _choice(reply: Any, choice: Any, around: _Around, body: Body) -> Reading:
    """Read one choice: its body (by `body`), then the extras every dialect may add to it."""
    said = wire(choice)
    reading = _base(reply, said.get("finish_reason"), around)
    if choice is None or isinstance(choice, _NOT_AN_OBJECT):
        reading.malformed = f"a choice is a {type(choice).__name__}, not an object"
        return reading
    body(reading, said)
    details = reading.details
    native = said.get("native_finish_reason")  # OpenRouter's own value
    if native:
        details["native_finish_reason"] = native
    results = said.get("content_filter_results")  # Azure
    if results:
        details["content_filter_results"] = results
        hits = filter_hits(results)
        if hits:
            why = f"content_filter_results filtered {', '.join(hits)}"
            reading.filter = category_detail(hits) or "safety", why
    if reading.filter is None:
        reading.filter = around[2]
    error = said.get("error")  # the choice's own (OpenRouter) before the reply's
    if error is not None:
        reading.error = details["error"] = error
    stop_reason = said.get("stop_reason")  # vLLM: the stop string, or a stop token's id
    if stop_reason is not None:
        details["stop_reason"] = stop_reason
        if type(stop_reason) is str:
            reading.stop_sequence = stop_reason
    return reading
