"""The stream accumulator of the OpenAI Chat adapter: chunks in, the whole reply's `Stop` out.

Per choice it keeps lists of text and refusal pieces, and per tool call (merged by `index`) the
id and name of the first fragment that has them and the list of argument pieces; everything is
joined and parsed once, in `result()`. The chunk carrying `finish_reason` is the terminal one;
what follows (the usage-only chunk, Azure's late filter annotations) is still read.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from stopkit._stop import Stop, StopReason, ToolCall
from stopkit.adapters._common import as_list, as_raw, field, tool_call
from stopkit.adapters._openai_chat_rules import (
    FINISH_REASON,
    decide,
    filter_detail,
    prompt_filtered,
    reader,
    text_of,
)

__all__ = ["ChatStream"]

_R = StopReason
# When a choice gets a second finish_reason (Azure's asynchronous filter sends content_filter
# after stop), the later one wins unless it is milder than the one already held.
_STRICTNESS = {
    _R.COMPLETED: 1,
    _R.STOP_SEQUENCE: 1,
    _R.TOOL_REQUEST: 2,
    _R.OUTPUT_LIMIT: 3,
    _R.PAUSED: 3,
    _R.UNKNOWN: 4,
    _R.FILTERED: 5,
}


def _rank(raw: Any) -> int:
    mapped = FINISH_REASON.get(raw) if isinstance(raw, str) else None
    return _STRICTNESS[mapped[0]] if mapped is not None else _STRICTNESS[_R.UNKNOWN]


class _Call:
    __slots__ = ("args", "id", "name", "whole")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.args: list[str] = []
        self.whole: Any = None  # arguments sent as an object rather than string pieces


class _Parts(NamedTuple):
    """One choice's pieces, joined once."""

    text: str
    refusal: str | None
    calls: tuple[ToolCall, ...]
    legacy: bool
    raw_calls: list[dict[str, Any]]


class _Choice:
    __slots__ = (
        "by_id",
        "by_index",
        "calls",
        "error",
        "filter_results",
        "finish",
        "finish_details",
        "legacy_args",
        "legacy_name",
        "native",
        "refusal",
        "stop_reason",
        "text",
    )

    def __init__(self) -> None:
        self.text: list[str] = []
        self.refusal: list[str] = []
        self.calls: list[_Call] = []
        self.by_index: dict[int, int] = {}
        self.by_id: dict[str, int] = {}
        self.legacy_name: str | None = None
        self.legacy_args: list[str] = []
        self.finish: Any = None
        self.stop_reason: Any = None
        self.native: Any = None
        self.error: Any = None
        self.filter_results: Any = None
        self.finish_details: Any = None

    def parts(self) -> _Parts:
        """Join the pieces received so far and parse each call's arguments (once)."""
        raw_calls: list[dict[str, Any]] = []
        calls: list[ToolCall] = []
        for call in self.calls:
            arguments = "".join(call.args) if call.whole is None else call.whole
            calls.append(tool_call(call.id, call.name, arguments))
            function = {"name": call.name, "arguments": arguments}
            raw_calls.append({"id": call.id, "type": "function", "function": function})
        legacy = not calls and self.legacy_name is not None
        if legacy:
            arguments = "".join(self.legacy_args)
            calls.append(tool_call("", self.legacy_name, arguments))
            raw_calls.append({"name": self.legacy_name, "arguments": arguments})
        return _Parts(
            "".join(self.text), "".join(self.refusal) or None, tuple(calls), legacy, raw_calls
        )

    def as_choice(self, index: int, parts: _Parts) -> dict[str, Any]:
        """The choice of the whole reply these pieces amount to."""
        message: dict[str, Any] = {"role": "assistant", "content": parts.text or None}
        if parts.refusal is not None:
            message["refusal"] = parts.refusal
        if parts.legacy:
            message["function_call"] = parts.raw_calls[0]
        elif parts.raw_calls:
            message["tool_calls"] = parts.raw_calls
        choice: dict[str, Any] = {"index": index, "message": message}
        choice["finish_reason"] = self.finish
        for key, value in (
            ("stop_reason", self.stop_reason),
            ("native_finish_reason", self.native),
            ("error", self.error),
            ("finish_details", self.finish_details),
            ("content_filter_results", self.filter_results),
        ):
            if value is not None:
                choice[key] = value
        return choice

    def merge_call(self, fragment: Any) -> None:
        get = reader(fragment)
        index = get("index")
        call_id = get("id")
        call_id = call_id if isinstance(call_id, str) and call_id else None
        position: int | None
        if type(index) is int:
            position = self.by_index.get(index)
            # Some servers number every call 0 and send each whole: a new id is a new call.
            if position is not None and call_id and self.calls[position].id not in (None, call_id):
                position = None
        elif call_id is not None:
            position = self.by_id.get(call_id)
        else:
            position = len(self.calls) - 1 if self.calls else None
        if position is None:
            position = len(self.calls)
            self.calls.append(_Call())
        if type(index) is int:
            self.by_index[index] = position
        call = self.calls[position]
        if call_id is not None:
            self.by_id[call_id] = position
            if call.id is None:
                call.id = call_id
        function = reader(get("function"))
        name = function("name")
        if call.name is None and isinstance(name, str) and name:
            call.name = name
        arguments = function("arguments")
        if isinstance(arguments, str):
            if arguments:
                call.args.append(arguments)
        elif arguments is not None:
            call.whole = arguments

    def feed(self, choice: Any) -> None:
        get = reader(choice)
        delta = get("delta")
        if delta is not None:
            delta_get = reader(delta)
            content = delta_get("content")
            if content:
                text = content if type(content) is str else text_of(content)
                if text:
                    self.text.append(text)
            refusal = delta_get("refusal")
            if isinstance(refusal, str) and refusal:
                self.refusal.append(refusal)
            fragments = delta_get("tool_calls")
            if fragments:
                for fragment in as_list(fragments):
                    self.merge_call(fragment)
            legacy = delta_get("function_call")
            if legacy is not None:
                legacy_get = reader(legacy)
                name = legacy_get("name")
                if self.legacy_name is None and isinstance(name, str) and name:
                    self.legacy_name = name
                arguments = legacy_get("arguments")
                if isinstance(arguments, str) and arguments:
                    self.legacy_args.append(arguments)
        finish = as_raw(get("finish_reason"))
        if (
            finish is not None
            and finish != ""
            and (self.finish is None or _rank(finish) >= _rank(self.finish))
        ):
            self.finish = finish
        for attribute, key in (
            ("stop_reason", "stop_reason"),
            ("native", "native_finish_reason"),
            ("error", "error"),
            ("finish_details", "finish_details"),
        ):
            value = get(key)
            if value is not None:
                setattr(self, attribute, value)
        results = get("content_filter_results")
        # Keep the first results that filtered; a later annotation saying all is well (or
        # an empty one) never undoes them.
        if results and self.filter_results is None and filter_detail(results)[0] is not None:
            self.filter_results = results


class ChatStream:
    """Collects one streamed chat completion into the `Stop` its whole reply would give.

    The Stop's `raw` is that whole reply, rebuilt as a `chat.completion` dict (text, refusal and
    tool calls joined, finish_reason and the dialect extras of each choice, usage).

    Example:
        >>> acc = ChatStream()
        >>> acc.feed({"object": "chat.completion.chunk", "choices": [{"index": 0,
        ...     "delta": {"content": "Hi"}, "finish_reason": "stop"}]})
        >>> acc.result().reason.value
        'completed'
    """

    def __init__(self) -> None:
        self._choices: dict[int, _Choice] = {}
        self._error: Any = None
        self._prompt_filters: list[Any] = []
        self._moderation: Any = None
        self._head: dict[str, Any] = {}
        self._usage: Any = None
        self._cache: tuple[Stop, ...] | None = None

    def feed(self, event: Any) -> None:
        """Take one chunk: an SDK `ChatCompletionChunk` or its parsed JSON `data:` object."""
        self._cache = None
        get = reader(event)
        if not self._head.get("id"):
            # Azure's first chunk has an empty id and model: the next one names them.
            self._head = {key: get(key) for key in ("id", "created", "model", "system_fingerprint")}
        usage = get("usage")
        if usage is not None:
            self._usage = usage
        error = get("error")
        if error is None:
            x_groq = get("x_groq")
            error = reader(x_groq)("error") or None if x_groq is not None else None
        if error is not None and self._error is None:
            self._error = error
        moderation = get("moderation")
        if moderation is not None:
            self._moderation = moderation
        filters = get("prompt_filter_results")
        if filters:
            self._prompt_filters.extend(as_list(filters))
        for choice in as_list(get("choices")):
            index = reader(choice)("index")
            key = index if type(index) is int else 0
            state = self._choices.get(key)
            if state is None:
                state = self._choices[key] = _Choice()
            state.feed(choice)

    def _reply(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        """The whole reply the stream amounts to (the `raw` of its Stops)."""
        reply: dict[str, Any] = {**self._head, "object": "chat.completion", "choices": choices}
        for key, value in (
            ("usage", self._usage),
            ("prompt_filter_results", self._prompt_filters),
            ("moderation", self._moderation),
            ("error", self._error),
        ):
            if value:
                reply[key] = value
        return reply

    def _stop(self, state: _Choice | None, parts: _Parts | None, reply: dict[str, Any]) -> Stop:
        details: dict[str, Any] = {}
        notes: list[str] = []
        hits = prompt_filtered(reply)
        if hits:
            details["prompt_filter_results"] = self._prompt_filters
        if self._moderation is not None:
            details["moderation"] = self._moderation
        if state is None or parts is None:
            return decide(
                None,
                raw=reply,
                text="",
                refusal=None,
                calls=(),
                details=details,
                notes=notes,
                error=None if hits else self._error,
                prompt_hits=hits,
                incomplete=not hits,
            )
        if parts.legacy:
            details["legacy_function_call"] = True
        for key, value in (
            ("native_finish_reason", state.native),
            ("finish_details", state.finish_details),
            ("content_filter_results", state.filter_results),
        ):
            if value:
                details[key] = value
        return decide(
            state.finish,
            raw=reply,
            text=parts.text,
            refusal=parts.refusal,
            calls=parts.calls,
            details=details,
            notes=notes,
            error=state.error if state.error is not None else self._error,
            stop_reason=state.stop_reason,
            filtered=filter_detail(state.filter_results),
            prompt_hits=hits,
            finish_details_type=field(state.finish_details, "type"),
            incomplete=state.finish is None and state.finish_details is None,
        )

    def results(self) -> tuple[Stop, ...]:
        """Return one `Stop` per choice seen, in `index` order (`n > 1`)."""
        if self._cache is None:
            states = [(i, self._choices[i]) for i in sorted(self._choices)]
            parts = [state.parts() for _, state in states]
            reply = self._reply(
                [state.as_choice(i, p) for (i, state), p in zip(states, parts, strict=True)]
            )
            if not states:
                self._cache = (self._stop(None, None, reply),)
            else:
                self._cache = tuple(
                    self._stop(state, p, reply) for (_, state), p in zip(states, parts, strict=True)
                )
        return self._cache

    def result(self) -> Stop:
        """Return the `Stop` of the first choice (`stream_incomplete` before finish_reason)."""
        return self.results()[0]
