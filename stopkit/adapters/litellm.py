"""The LiteLLM adapter: `litellm.ModelResponse` and its stream chunks (`ModelResponseStream`).

A LiteLLM reply is an OpenAI Chat completion whatever the provider, so it is read by the OpenAI
Chat reader (text, refusal, tool calls, usage as Chat counts it: `prompt_tokens` includes cached
tokens, `completion_tokens` includes reasoning); then what LiteLLM says beside it is weighed
(`_litellm_rules`): the provider's own stop value, where LiteLLM kept it in
`provider_specific_fields["native_finish_reason"]`, wins over LiteLLM's mapped `finish_reason`,
read with the table of the provider named by `_hidden_params["custom_llm_provider"]` (or the
model). Where LiteLLM kept none — its stream chunks never do — LiteLLM's own value is read, and
a note says so; where that value stands for several of the provider's (`COLLAPSED`), the note
names them, and a `length` is `output_limit` with no detail (never a guessed `max_tokens`). The
Stop's `details["litellm_finish_reason"]` keeps LiteLLM's value where the native one was read.

Objects are recognized by their class (`litellm.*`): `import stopkit` never imports LiteLLM.

Example:
    >>> from litellm import ModelResponse  # doctest: +SKIP
    >>> stopkit.normalize(ModelResponse(model="claude-sonnet-4-5", choices=[{"index": 0,
    ...     "finish_reason": "pause_turn", "message": {"content": ""}}])).reason  # doctest: +SKIP
    <StopReason.PAUSED: 'paused'>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolResult
from stopkit.adapters import _openai_chat_turns
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._framework import class_of
from stopkit.adapters._litellm_rules import (
    COLLAPSED,
    COLLAPSED_FIELD,
    COLLAPSED_VERDICTS,
    KEPT_STOP_REASON,
    LITELLM_FINISH_REASON,
    NAME,
    NATIVE,
    RULES,
    native_field,
    wire_of,
)
from stopkit.adapters._openai_chat_stream import ChatStream
from stopkit.adapters._reading import Reading
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import listed, raw_value, wire
from stopkit.adapters.openai_chat import _readings as chat_readings

__all__ = ["LiteLLMAdapter"]

_CLASSES = frozenset({"ModelResponse", "ModelResponseStream"})

_Native = tuple[Any, "str | None"]
"""A value LiteLLM kept from the provider, and the field it was kept as (None: the provider's
own, `native_finish_reason`)."""


def _kind(obj: Any) -> str | None:
    return class_of(obj, "litellm.", _CLASSES)


def _position(choice: Any) -> int:
    index = wire(choice).get("index")
    return index if type(index) is int else 0


def _kept(fields: Any, key: str) -> Any:
    """`provider_specific_fields[key]` of a LiteLLM object (None where it has none)."""
    kept = wire(fields).get("provider_specific_fields")
    return raw_value(kept.get(key)) if isinstance(kept, dict) else None


def _native(choice: Any) -> _Native:
    """The provider's own value LiteLLM kept beside a choice, and the rules that read it.

    The choice's `native_finish_reason` (the provider's wire format: None rules), else the
    Anthropic `stop_reason` kept in its message's (a chunk's delta's) provider fields.
    """
    value = _kept(choice, "native_finish_reason")
    if value is not None:
        return value, None
    said = wire(choice)
    for part in ("message", "delta"):
        value = _kept(said.get(part), "stop_reason")
        if value is not None:
            return value, KEPT_STOP_REASON.title
    return None, None


def _readings(reply: Any) -> list[Reading]:
    """Read a `ModelResponse`: one `Reading` per choice, in `index` order.

    Example:
        >>> [r.raw_reason for r in readings(model_response)]  # doctest: +SKIP
        ['pause_turn']
    """
    found = chat_readings(reply)
    choices = listed(wire(reply).get("choices"))
    hidden = getattr(reply, "_hidden_params", None)
    if len(choices) == len(found):
        natives = [_native(c) for c in sorted(choices, key=_position)]
    else:  # no choices: the one reading already says why
        natives = [(None, None)] * len(found)
    if len(natives) == 1 and natives[0][0] is None:  # the reply's copy of its message's fields
        value = _kept(hidden, "stop_reason") if isinstance(hidden, dict) else None
        natives = [(value, KEPT_STOP_REASON.title if value is not None else None)]
    _place(found, natives, hidden, wire(reply).get("model"))
    return found


def _place(found: list[Reading], natives: Sequence[_Native], hidden: Any, model: Any) -> None:
    """Weigh what LiteLLM says beside its Chat-shaped choices: the provider's own values.

    `natives` holds each choice's kept value and the field it was kept as (None: the
    provider's own `native_finish_reason`), `(None, None)` where LiteLLM kept none; `hidden`
    is the reply's `_hidden_params`.
    """
    name, provider = wire_of(hidden, model)
    for reading, (native, kept_field) in zip(found, natives, strict=True):
        reading.details["integration"] = provider or name
        own = reading.raw_reason
        if reading.field is not None or (native is None and own is None):
            continue  # a legacy field read, or nothing to weigh (no choices, no value)
        if native is None:
            reading.notes.append(
                f"LiteLLM kept no native_finish_reason: its own finish_reason {own!r} is read "
                "(LiteLLM keeps the provider's value only where it maps it to another, and "
                "turns a missing value into 'stop')"
            )
            _collapsed(reading, name, own)
            continue
        field = kept_field or native_field(name)
        rules = RULES.fields[field]
        reading.raw_reason = native
        reading.details["litellm_finish_reason"] = own
        # A native value off the provider's table that LiteLLM knew: its mapped value says more
        # than unknown ('stop' is also what it makes of a value it does not know: not that).
        if (
            type(native) is str
            and native not in rules.table
            and own in LITELLM_FINISH_REASON
            and own != "stop"
        ):
            reading.notes.append(
                f"{rules.title} {native!r} is not a documented value: LiteLLM's own "
                f"{own!r} is read through its documented map"
            )
            reading.named = own
            continue
        if own != native:
            reading.notes.append(
                f"{rules.title} {native!r} read (LiteLLM's finish_reason: {own!r})"
            )
        reading.field = field  # the provider's table, its notes and its steps decide it


def _collapsed(reading: Reading, name: str, own: Any) -> None:
    """LiteLLM's own value, no provider value kept: say which of the provider's it stands for.

    Where LiteLLM's map sends several of the wire format's values to `own` (`COLLAPSED`), the
    note names them; a value that then says less (`COLLAPSED_VERDICTS`: `length`) is read so.
    """
    values = COLLAPSED.get(name, {}).get(own) if type(own) is str else None
    if values is None:
        return
    said = f"its {own!r} stands for any of {name}'s " + ", ".join(repr(v) for v in values)
    if own not in COLLAPSED_VERDICTS:
        reading.notes.append(f"LiteLLM's map: {said}")
        return
    reading.notes.append(
        f"LiteLLM did not keep the provider's value: {said}, so which is not known: read with "
        "no detail"
    )
    reading.field = COLLAPSED_FIELD


class _LiteLLMStream(ChatStream):
    """Collects one streamed LiteLLM reply (`ModelResponseStream` chunks) into its `Stop`s.

    The chunks are Chat chunks: OpenAI Chat's accumulator rebuilds the reply, and the LiteLLM
    facts (the provider, any native value a chunk kept) are weighed on it.

    Example:
        >>> acc = stopkit.get_adapter("litellm").stream()  # doctest: +SKIP
        >>> for chunk in litellm.completion(model=..., messages=..., stream=True):  # doctest: +SKIP
        ...     acc.feed(chunk)
    """

    def __init__(self) -> None:
        super().__init__(self._litellm_readings, RULES)
        self._natives: dict[int, _Native] = {}
        self._hidden: Any = None

    def feed(self, event: Any) -> None:
        """Take one chunk: a `ModelResponseStream` (or its JSON, a Chat chunk)."""
        super().feed(event)
        if self._hidden is None:
            self._hidden = getattr(event, "_hidden_params", None) or None
        for choice in listed(wire(event).get("choices")):
            native = _native(choice)
            if native[0] is not None:
                self._hold(_position(choice), native, wire(event).get("model"))

    def _hold(self, position: int, native: _Native, model: Any) -> None:
        """Keep a choice's native value unless one at least as strict is held already."""
        held = self._natives.get(position)
        if held is not None:
            rules = RULES.field_rules(native[1] or native_field(wire_of(self._hidden, model)[0]))
            if not stricter(rules.table, held[0], native[0]):
                return  # a refusal or a cut is never undone by a later, milder value
        self._natives[position] = native

    def _litellm_readings(self, reply: dict[str, Any]) -> list[Reading]:
        """The Chat readings of the rebuilt reply, with what LiteLLM says beside them weighed."""
        found = chat_readings(reply)
        choices = listed(reply.get("choices"))  # rebuilt in index order
        if len(choices) == len(found):
            natives = [self._natives.get(_position(c), (None, None)) for c in choices]
        else:
            natives = [(None, None)] * len(found)
        _place(found, natives, self._hidden, reply.get("model"))
        return found


class LiteLLMAdapter(BaseAdapter):
    """Reads LiteLLM's `ModelResponse` and stream chunks; continues them as OpenAI Chat does.

    Example:
        >>> stopkit.get_adapter("litellm").normalize(model_response).reason  # doctest: +SKIP
        <StopReason.TOOL_REQUEST: 'tool_request'>
    """

    name = NAME
    rules = RULES
    read = staticmethod(lambda reply: _readings(reply)[0])
    readings = staticmethod(_readings)
    # LiteLLM objects are never JSON bodies: auto-detection never asks this adapter about one.
    detect_keys: ClassVar[tuple[str, ...]] = ()
    tables: ClassVar[dict[str, dict[str, tuple[StopReason, str | None]]]] = {
        "finish_reason": LITELLM_FINISH_REASON,
        **{rules.title: dict(rules.table) for rules in NATIVE.values()},
    }
    stream_notes = (
        "Stream chunks are read as OpenAI Chat chunks are (the same accumulator).",
        "LiteLLM keeps no native_finish_reason in stream chunks: a stream is read by LiteLLM's "
        "own finish_reason, with a note.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a LiteLLM `ModelResponse` (by its class)."""
        return type(reply) is not dict and _kind(reply) == "ModelResponse"

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a LiteLLM stream chunk (`ModelResponseStream`, by its class)."""
        return type(event) is not dict and _kind(event) == "ModelResponseStream"

    def stream(self) -> _LiteLLMStream:
        """Return a fresh accumulator for one streamed reply."""
        return _LiteLLMStream()

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the assistant message in OpenAI Chat's form (what LiteLLM takes back).

        Example:
            >>> LiteLLMAdapter().assistant_message(stop)  # doctest: +SKIP
            [{'role': 'assistant', 'content': 'Hi'}]
        """
        return _openai_chat_turns.assistant_message(stop)

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one OpenAI Chat `tool` message per result, in order.

        Example:
            >>> LiteLLMAdapter().tool_results(stop, [ToolResult(call_id="call_1", name="f",
            ...     content="42")])  # doctest: +SKIP
            [{'role': 'tool', 'tool_call_id': 'call_1', 'content': '42'}]
        """
        return _openai_chat_turns.tool_results(stop, results)

    def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Return the messages that resume a paused Anthropic turn: the reply, sent back.

        LiteLLM passes Anthropic's `pause_turn` on (as its native value); the turn continues
        from the assistant message sent back. No other provider pauses that way.

        Raises:
            ValueError: for a Stop that is not a paused Anthropic reply.
        """
        if stop.reason is not StopReason.PAUSED or stop.raw_reason not in NATIVE["anthropic"].table:
            raise ValueError(
                f"only a paused Anthropic reply can be resumed; this one is "
                f"{stop.reason.value} (raw {stop.raw_reason!r})"
            )
        return self.assistant_message(stop), {}
