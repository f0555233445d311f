"""pydantic-ai's `ModelResponse` (`pydantic_ai.messages`): the provider's own answer, where kept.

pydantic-ai has already read the provider's reply its own way: five `finish_reason` values,
the raw one kept in `provider_details["finish_reason"]`, the provider in `provider_name`. The
raw value wins and is read with the table of the provider's wire format (see
`_pydantic_ai_rules`); `Stop.provider` is `pydantic_ai`, and `details` says which provider
(`integration`), which table read the value (`read_as`) and pydantic-ai's own value
(`framework_finish_reason`). The parts decide the rest: a `ToolCallPart` is a pending client
call, native (built-in) tool calls and returns ran on the provider's side, `TextPart`s are the
text, thinking is left out.

Usage is pydantic-ai's own `RequestUsage`, in its convention: `input_tokens` includes cache
reads and writes (for every provider, Anthropic's too), `output_tokens` includes reasoning;
a response that omitted usage (`unmeasured_requests`) has none.

The object is detected by its class's module (`pydantic_ai.messages`): pydantic-ai is never
imported to read it.

Example:
    >>> from pydantic_ai.messages import ModelResponse, TextPart  # doctest: +SKIP
    >>> stopkit.normalize(ModelResponse(parts=[TextPart("Hi")], provider_name="anthropic",
    ...     provider_details={"finish_reason": "end_turn"})).reason  # doctest: +SKIP
    <StopReason.COMPLETED: 'completed'>
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._calls import tool_call
from stopkit.adapters._engine import decide
from stopkit.adapters._framework import class_of
from stopkit.adapters._pydantic_ai_rules import (
    BLOCK_FIELD,
    FINISH_REASON,
    REFUSAL_FIELD,
    RULES,
    STATE,
    TABLES,
    wire_of,
)
from stopkit.adapters._reading import Reading, Verdict, identify, tokens
from stopkit.adapters._strictness import harsher
from stopkit.adapters._wire import listed, wire

__all__ = ["PydanticAIAdapter"]

_TITLE = "finish_reason"


def _read(reply: Any) -> Reading:
    """Read one pydantic-ai `ModelResponse` into its facts.

    Example:
        >>> read(response).details["read_as"]  # doctest: +SKIP
        'anthropic'
    """
    fields = wire(reply)
    kept = fields.get("provider_details")
    kept = kept if isinstance(kept, dict) else {}
    own = fields.get("finish_reason")
    provider = fields.get("provider_name")
    raw = kept.get("finish_reason")
    reading = Reading(reply, raw)
    # pydantic_ai/messages.py `ModelResponse.model_name`, `.provider_response_id`.
    identify(reading, fields.get("model_name"), fields.get("provider_response_id"))
    details = reading.details
    details["integration"] = provider
    if own is not None:
        details["framework_finish_reason"] = own
    if kept:
        details["provider_details"] = kept
    refusal = kept.get("refusal")
    if type(refusal) is str:
        reading.refusal = refusal
    if raw is not None:
        _raw_value(reading, wire_of(provider, raw), raw, own)
    elif wire_of(provider, None) == "gemini" and kept.get("block_reason") is not None:
        # GoogleModel keeps a blocked prompt's `promptFeedback.blockReason` in its place.
        reading.raw_reason = kept["block_reason"]
        details["read_as"] = "gemini"
        reading.field = BLOCK_FIELD
    else:
        _framework_value(reading, provider, own)
    _read_state(reading, fields.get("state"))
    _read_parts(reading, fields.get("parts"))
    usage = fields.get("usage")
    if usage is not None:
        details["usage"] = usage
        reading.usage = _usage(usage)
    return reading


def _raw_value(reading: Reading, wire_name: str, raw: Any, own: Any) -> None:
    """The provider's own value, read with its wire format's table (pydantic-ai's when off it)."""
    reading.details["read_as"] = wire_name
    listed = type(raw) is str and raw in TABLES[wire_name]
    if not listed and type(own) is str and own in FINISH_REASON:
        reading.named = own  # pydantic-ai mapped a value stopkit has no row for: its own
        reading.notes.append(
            f"{_TITLE} {raw!r} is not in the {wire_name} table: read pydantic-ai's "
            f"finish_reason {own!r}"
        )
    else:
        reading.field = wire_name


def _framework_value(reading: Reading, provider: Any, own: Any) -> None:
    """No raw value kept: pydantic-ai's own value stands in for it, and a note says so."""
    who = f" ({provider})" if type(provider) is str else ""
    if reading.refusal is not None and own == "content_filter":
        # The OpenAI models drop the raw value of a refusal and say `content_filter`.
        reading.raw_reason = own
        reading.field = REFUSAL_FIELD
        reading.notes.append(
            f"pydantic-ai kept a refusal and no raw finish_reason{who}: filtered/refusal"
        )
        return
    reading.raw_reason = own
    if own is not None:
        reading.notes.append(
            f"pydantic-ai kept no raw finish_reason{who}: read its own finish_reason {own!r}"
        )


def _read_state(reading: Reading, state: Any) -> None:
    """Record `state`; a response still streaming, or cut with no stop value, has not ended."""
    if state is None or state == "complete":
        return
    reading.details["state"] = state
    if state == "incomplete" or (state == "interrupted" and reading.raw_reason is None):
        reading.ended = False
        reading.notes.append(
            f"pydantic-ai state {state!r}: the response stopped before it was complete"
        )
    elif state == "interrupted":
        reading.notes.append(
            "pydantic-ai state 'interrupted': the run stopped before acting on this response"
        )
    elif state not in STATE:
        reading.notes.append(f"pydantic-ai state {state!r} is not a documented value")


def _read_parts(reading: Reading, parts: Any) -> None:
    """Read the parts: text, and client tool calls (native tools ran on the provider's side)."""
    if not isinstance(parts, list | tuple):
        shown = "missing" if parts is None else f"a {type(parts).__name__}"
        reading.malformed = f"parts is {shown}, not a list"
    texts: list[str] = []
    calls: list[ToolCall] = []
    # `part_kind` is each part's discriminator (pydantic_ai/messages.py): `text`, `tool-call`
    # (ToolCallPart and its typed subclasses), `builtin-tool-call` / `builtin-tool-return`
    # (native tools, run by the provider), `thinking`, `file`, `compaction`, `speech`.
    for part in listed(parts):
        said = wire(part)
        kind = said.get("part_kind")
        if kind == "text":
            content = said.get("content")
            if type(content) is str:
                texts.append(content)
        elif kind == "tool-call":
            call_id, name = said.get("tool_call_id"), said.get("tool_name")
            calls.append(tool_call(call_id, name, said.get("args")))
    reading.text = "".join(texts)
    reading.calls = calls


def _usage(usage: Any) -> Any:
    """pydantic-ai's `RequestUsage` (pydantic_ai/usage.py) as a `Usage`; None when unmeasured."""
    counts = wire(usage)
    if counts.get("unmeasured_requests"):
        return None  # "the response omitted usage, so its token counts carry no information"
    reasoning = counts.get("output_reasoning_tokens")
    if not reasoning:
        # Before `output_reasoning_tokens`, the models kept it in `details` (OpenAI's name,
        # Google's `thoughts_tokens`).
        extra = counts.get("details")
        if isinstance(extra, dict):
            reasoning = extra.get("reasoning_tokens") or extra.get("thoughts_tokens") or reasoning
    return tokens(
        counts.get("input_tokens"),
        counts.get("output_tokens"),
        reasoning,
        counts.get("cache_read_tokens"),
        counts.get("cache_write_tokens"),
        counts.get("total_tokens"),
    )


_RESPONSE = frozenset({"ModelResponse"})


def _is_response(reply: Any) -> bool:
    """Whether `reply` is a pydantic-ai `ModelResponse` (or a subclass), by its class."""
    return class_of(reply, "pydantic_ai.", _RESPONSE) is not None


class _Snapshots(Accumulator[Reading]):
    """A pydantic-ai stream, as the `ModelResponse` snapshots it yields: the last one is the reply.

    pydantic-ai streams cumulative snapshots (`StreamedResponse.get()`,
    `StreamedRunResult.stream_responses()`), each a whole `ModelResponse` whose `state` is
    `incomplete` until the last; feeding keeps the latest, so the stream is linear. The
    `complete` snapshot ends the stream: a later one replaces it only when its reason is
    stricter (never a refusal undone, nor a tool request's calls lost), and a note counts it.
    """

    rules = RULES

    def __init__(self, _read: Callable[[Any], Reading]) -> None:
        super().__init__(_read)
        self._last: Any = None
        self._complete = False
        self._held: StopReason | None = None  # the reason the complete snapshot decided
        self._late = 0

    def feed(self, event: Any) -> None:
        """Take one snapshot (a `ModelResponse`)."""
        if self._complete:
            held = self._held
            if held is None:  # decided once per held snapshot: many late ones stay linear
                held = self._held = self.result().reason
            self._cached = None
            if not harsher(decide(self._read(event), RULES).reason, held):
                self._late += 1
                return
            self._held = None
        self._last = event
        self._cached = None
        self._complete = wire(event).get("state") == "complete"

    def _reading(self) -> Reading:
        if self._last is None:
            return self._settle(Reading(None), end="first snapshot", ended=False)
        reading = self._read(self._last)
        if self._late:
            return self._settle(reading, end="complete snapshot", ended=reading.ended,
                                late=self._late)  # fmt: skip
        return reading


class PydanticAIAdapter(BaseAdapter):
    """Reads pydantic-ai `ModelResponse` objects (and streams of their snapshots).

    Example:
        >>> PydanticAIAdapter().detects({"parts": [], "kind": "response"})
        False
    """

    name = RULES.provider
    rules = RULES
    read = staticmethod(_read)
    # Never a JSON body: auto-detection skips this adapter for every dict without asking it.
    detect_keys: ClassVar[tuple[str, ...]] = ()
    tables: ClassVar[dict[str, dict[str, Verdict]]] = {
        "finish_reason (pydantic-ai's own, read when no raw value was kept)": FINISH_REASON,
        "state": STATE,
    }
    stream_notes = (
        "A stream is the ModelResponse snapshots pydantic-ai yields: the last one decides; "
        "a snapshot whose state is 'incomplete' is unknown/stream_incomplete.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a pydantic-ai `ModelResponse` (by its class's module)."""
        return _is_response(reply)

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a `ModelResponse` snapshot of a pydantic-ai stream."""
        return _is_response(event)

    def stream(self) -> _Snapshots:
        """Return a fresh accumulator of `ModelResponse` snapshots."""
        return _Snapshots(_read)

    def assistant_message(self, stop: Stop) -> list[Any]:
        """Return the `ModelResponse` itself: what pydantic-ai appends to its message history."""
        return [stop.raw]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[Any]:
        """Return one `ModelRequest` carrying every result as a `ToolReturnPart`.

        A failed call's part says `outcome="failed"`, as pydantic-ai marks a tool that raised.

        Example:
            >>> result = ToolResult(call_id="c1", name="f", content="ok")
            >>> adapter.tool_results(stop, [result])  # doctest: +SKIP
            [ModelRequest(parts=[ToolReturnPart(tool_name='f', content='ok', ...)])]
        """
        from pydantic_ai.messages import ModelRequest, ToolReturnPart

        parts: list[Any] = [
            ToolReturnPart(
                tool_name=r.name,
                content=r.content,
                tool_call_id=r.call_id,
                outcome="failed" if r.is_error else "success",
            )
            for r in results
        ]
        return [ModelRequest(parts=parts)]

    def user_message(self, text: str) -> Any:
        """Return a user message saying `text`: a `ModelRequest` with one `UserPromptPart`.

        Example:
            >>> PydanticAIAdapter().user_message("Go on.").parts[0].content  # doctest: +SKIP
            'Go on.'
        """
        from pydantic_ai.messages import ModelRequest, UserPromptPart

        return ModelRequest(parts=[UserPromptPart(text)])

    def resume(self, stop: Stop) -> tuple[list[Any], dict[str, Any]]:
        """Return the suspended response to send back, and no overrides (pydantic-ai continues it).

        Raises:
            ValueError: the stop is not a PAUSED pydantic-ai stop.
        """
        if stop.reason is not StopReason.PAUSED:
            raise ValueError(f"only a paused reply can be resumed, not {stop.reason.value!r}")
        return [stop.raw], {}
