"""The OpenAI Responses API (`POST /v1/responses`): `status` x `incomplete_details.reason`.

A reply is a `Response` object (`object: "response"`), as a JSON dict or the openai SDK's
`openai.types.responses.Response`. Its stop signal is `status`, refined by
`incomplete_details.reason` (status `incomplete`) and `error.code` (status `failed`) (see
`_openai_responses_rules`); the output items then decide whether client tool calls are pending
(see `_openai_responses_calls`).

Example:
    >>> stop = OpenAIResponsesAdapter().normalize({"object": "response", "status": "completed",
    ...     "output": [{"type": "message", "content": [{"type": "output_text", "text": "Hi"}]}]})
    >>> (stop.reason.value, stop.text)
    ('completed', 'Hi')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult, Usage
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._openai_responses_calls import (
    CLIENT_CALL_TYPES,
    answered_id,
    answers,
    call_of,
    input_items,
)
from stopkit.adapters._openai_responses_rules import (
    ERROR_CODE,
    IMAGE_ERROR_CODE,
    INCOMPLETE_REASON,
    PROVIDER,
    RULES,
    STATUS,
    message_parts,
)
from stopkit.adapters._openai_responses_stream import ResponsesStream
from stopkit.adapters._reading import Reading, Verdict, identify, tokens
from stopkit.adapters._wire import listed, raw_value, to_json, wire

__all__ = ["OpenAIResponsesAdapter"]


def _read(reply: Any) -> Reading:
    """Read one Response (a JSON dict or an SDK `Response`) into its facts.

    Example:
        >>> _read({"object": "response", "status": "completed", "output": [],
        ...       "usage": {"input_tokens": 5, "output_tokens": 2}}).usage.output_tokens
        2
    """
    fields = wire(reply)
    status = fields.get("status")
    if type(status) is not str and status is not None:
        status = raw_value(status)  # an enum member: its wire value, which the steps compare
    reading = Reading(reply, status)
    identify(reading, fields.get("model"), fields.get("id"))  # openai/types/responses/response.py
    details = reading.details
    incomplete = fields.get("incomplete_details")
    if incomplete is not None:
        details["incomplete_details"] = to_json(incomplete)
    error = fields.get("error")
    if error is not None:
        # A `failed` response's cause (a policy code refines it: see the rules); beside any
        # other status, an in-band error.
        reading.error = details["error"] = to_json(error)
    output = fields.get("output")
    if type(output) is not list:
        if output is not None and not isinstance(output, tuple):
            reading.malformed = f"output is a {type(output).__name__}, not a list"
        output = listed(output)
    _read_items(reading, output)
    usage = fields.get("usage")
    if usage is not None:
        details["usage"] = usage
        reading.usage = _read_usage(usage)
    ceiling = fields.get("max_output_tokens")
    if type(ceiling) is int:
        reading.ceiling = ceiling
    return reading


def _read_usage(usage: Any) -> Usage | None:
    """Read a Responses usage object (`ResponseUsage`, or the OpenAI Agents SDK's `Usage`).

    openai/types/responses/response_usage.py (ResponseUsage): `output_tokens` includes the
    reasoning tokens; `input_tokens` includes the cached ones.

    Example:
        >>> _read_usage({"input_tokens": 5, "output_tokens": 2}).output_tokens
        2
    """
    counts = wire(usage)
    cache = wire(counts.get("input_tokens_details"))
    return tokens(
        counts.get("input_tokens"),
        counts.get("output_tokens"),
        wire(counts.get("output_tokens_details")).get("reasoning_tokens"),
        cache.get("cached_tokens"),
        cache.get("cache_write_tokens"),
        counts.get("total_tokens"),
    )


def _read_items(reading: Reading, items: list[Any]) -> None:
    """Read output items onto `reading`: visible text, refusal parts, client calls, answered ids.

    Example:
        >>> reading = Reading(raw=None)
        >>> _read_items(reading, [{"type": "function_call", "call_id": "c1", "name": "f"}])
        >>> reading.calls[0].name
        'f'
    """
    text: list[str] = []
    refusal: list[str] = []
    calls: list[ToolCall] = []
    answered: set[str] | None = None
    blocked: list[Any] = []  # the errors of image generations moderation blocked
    other = 0  # output items beside those (reasoning is not output)
    for item in items:
        fields = wire(item)
        kind = fields.get("type")
        if type(kind) is not str:
            continue  # an item of no known type is neither text nor a call
        error = _blocked_image(fields) if kind == "image_generation_call" else None
        if error is not None:
            blocked.append(error)
            continue
        if kind != "reasoning":
            other += 1
        if kind == "message":
            shown, refused = message_parts(fields)
            text += shown
            refusal += refused
        elif kind in CLIENT_CALL_TYPES:
            if kind != "tool_search_call" or raw_value(fields.get("execution")) == "client":
                calls.append(call_of(fields, kind))
        else:
            result_of = answered_id(fields, kind)
            if result_of is not None:
                if answered is None:
                    answered = set()
                answered.add(result_of)
    reading.text = "".join(text)
    if refusal:
        reading.refusal = "".join(refusal)
        if not reading.refusal:  # the part itself says the model refused, even empty
            reading.filter = ("refusal", "an empty refusal content part")
    reading.calls = calls
    reading.answered = answered
    if blocked:
        _image_blocked(reading, blocked, other)


def _blocked_image(fields: Any) -> Any:
    """The error of an image_generation_call that failed with a code of IMAGE_ERROR_CODE."""
    if raw_value(fields.get("status")) != "failed":
        return None
    error = fields.get("error")
    code = raw_value(wire(error).get("code"))
    return to_json(error) if type(code) is str and code in IMAGE_ERROR_CODE else None


def _image_blocked(reading: Reading, blocked: list[Any], other: int) -> None:
    """Record image generations moderation blocked: the reply's filter when nothing else came."""
    reading.details["moderation_blocked"] = blocked
    code = raw_value(wire(blocked[0]).get("code"))
    n = len(blocked)
    calls = f"{n} image_generation_call" + ("" if n == 1 else "s")
    if other:
        reading.notes.append(
            f"{calls} {'was' if n == 1 else 'were'} blocked by moderation ({code}) beside the "
            "rest of the output: the reply stands, the moderation details are in "
            "details['moderation_blocked']"
        )
    else:
        reading.filter = (
            IMAGE_ERROR_CODE[code],
            f"the reply's only output, {calls}, {'was' if n == 1 else 'were'} blocked by "
            f"moderation ({code})",
        )


class OpenAIResponsesAdapter(BaseAdapter):
    """Reads OpenAI Responses API replies (`object: "response"`) and their streams.

    Example:
        >>> stop = OpenAIResponsesAdapter().normalize({"object": "response",
        ...     "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
        ...     "output": []})
        >>> (stop.reason.value, stop.detail)
        ('output_limit', 'max_tokens')
    """

    name = PROVIDER
    rules = RULES
    otel_provider = "openai"  # gen-ai-spans.md's well-known value
    read = staticmethod(_read)
    # A Response says `object: "response"`: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("object",)
    tables: ClassVar[dict[str, dict[str, Verdict]]] = {
        "status": STATUS,
        "incomplete_details.reason": INCOMPLETE_REASON,
        "error.code": ERROR_CODE,
    }
    stream_notes = (
        "The terminal event (response.completed / response.incomplete / response.failed) "
        "decides; a stream without one is unknown/stream_incomplete.",
        "A second terminal event replaces the first only when it is at least as strict; "
        "nothing else sent after the terminal event changes the reply (a note counts it).",
        "An `error` event makes the stream unknown/error unless it was filtered, cut off or "
        "paused.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a Response (`object == "response"`, dict or SDK object)."""
        return bool(wire(reply).get("object") == "response")

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a Responses stream event (`type` starts with `response.`).

        An `error` event counts only with its `sequence_number`, which other APIs' errors lack.
        """
        fields = wire(event)
        kind = raw_value(fields.get("type"))  # LiteLLM's events name it with a str enum
        if kind == "error":
            return fields.get("sequence_number") is not None
        return type(kind) is str and kind.startswith("response.")

    def stream(self) -> ResponsesStream:
        """Return a fresh accumulator for one streamed Response (SDK events or JSON dicts)."""
        return ResponsesStream(_read)

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the output items as sent, as dicts (reasoning included; see `input_items`)."""
        return input_items(_output_items(stop))

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one answer item per result: `function_call_output` or its tool's own kind.

        A result whose call id names no call item of the reply is answered as a function's.
        """
        return answers(_output_items(stop), results)

    def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Return the messages and call overrides that continue a PAUSED reply.

        - `background` (status `queued` / `in_progress`): no messages, and the overrides
          `{"poll_response_id": <response id>}`. The caller's `call_model` must then retrieve
          that response (`client.responses.retrieve(poll_response_id)`, after a short wait)
          instead of creating a new one, and return it.
        - `steered` and `continuation` (`max_messages`): the output items are appended and the
          model is called again with the same overrides.

        Raises:
            ValueError: the stop is not a PAUSED Responses stop.
        """
        if stop.reason is not StopReason.PAUSED:
            raise ValueError(f"only a paused reply can be resumed, not {stop.reason.value!r}")
        if stop.detail == "background":
            return [], {"poll_response_id": wire(stop.raw).get("id")}
        return self.assistant_message(stop), {}


def _output_items(stop: Stop) -> list[Any]:
    return listed(wire(stop.raw).get("output"))
