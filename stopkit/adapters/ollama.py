"""The Ollama native chat adapter (`POST /api/chat`): replies and their NDJSON streams.

A reply is `{"model", "created_at", "message": {"role", "content", "thinking", "tool_calls"},
"done", "done_reason", ...timings}`. Tool calls carry their arguments as a JSON *object*, and
older servers send no call id: such a call gets the id `call_<i>`, `i` being its position among
the reply's calls (stable between a reply and its stream, and between runs). `thinking` is
reasoning, not text: it is kept in `details["thinking"]`.

Ollama's OpenAI-compatible `/v1/chat/completions` replies are read by `openai.chat`, not here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters._common import (
    as_list,
    as_raw,
    field,
    look_up,
    make_stop,
    malformed_message,
    tool_call,
)

__all__ = ["DONE_REASON", "OllamaAdapter", "OllamaStream"]

NAME = "ollama"

# Source: the Ollama server (`llm/server.go` `DoneReason.String()`: "stop", "length", and ""
# for a connection closed mid-generation; `server/routes.go` sets "load" and "unload" on the
# model-management replies) and docs/api.md ("Load a model", "Unload a model"). ollama-python
# 0.6.3 types `done_reason` as a plain `Optional[str]` (`ollama/_types.py`), so these values are
# pinned in tests/test_ollama.py with this source.
#
# "load" and "unload" answer a request with an empty `messages` list (to load the model, or to
# unload it with keep_alive 0): nothing was generated, so they are not generation stops. A loop
# that meets one has sent the wrong request: unknown (escalated), detail "missing" (the reply
# has no generation stop at all) — never completed, which would end a run with an empty answer.
DONE_REASON: dict[str, tuple[StopReason, str | None]] = {
    "stop": (StopReason.COMPLETED, None),
    "length": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "load": (StopReason.UNKNOWN, "missing"),
    "unload": (StopReason.UNKNOWN, "missing"),
    "": (StopReason.UNKNOWN, "missing"),
}

_ABSENT: Any = object()


def build_call(position: int, item: Any) -> ToolCall:
    """Build the `ToolCall` of one `message.tool_calls` entry; `call_<position>` when no id."""
    function = field(item, "function")
    call_id = field(item, "id")
    if not isinstance(call_id, str) or not call_id:
        call_id = f"call_{position}"
    return tool_call(call_id, field(function, "name"), field(function, "arguments"))


def decide(
    done: Any,
    raw_reason: Any,
    *,
    text: str,
    calls: list[ToolCall],
    details: dict[str, Any],
    raw: Any,
    notes: list[str],
) -> Stop:
    """Map `done`/`done_reason` and the reply's contents onto a `Stop` (replies and streams)."""
    raw_reason = as_raw(raw_reason)
    reason: StopReason
    detail: str | None
    if done is False:
        reason, detail = StopReason.UNKNOWN, "stream_incomplete"
        notes.append("done is false: this is one chunk of a stream, not a finished reply")
    elif done is not True:
        reason, detail = StopReason.UNKNOWN, "malformed"
        notes.append(f"done is {done!r}, not a boolean")
    else:
        # The table inline first (the hot path makes no call), then the general rule.
        entry = DONE_REASON.get(raw_reason) if type(raw_reason) is str else None
        reason, detail = entry or look_up(DONE_REASON, "done_reason", raw_reason, notes)
        if raw_reason in ("load", "unload"):
            notes.append(
                f"done_reason {raw_reason!r}: the model was {raw_reason}ed; nothing was generated"
            )
        elif raw_reason == "":
            notes.append("done_reason is empty: the generation ended without a stop")

    # Reconciliation, in the order of DESIGN section 3.
    n = len(calls)
    if reason is StopReason.OUTPUT_LIMIT and calls:
        cut = f"the reply was cut off by the token limit ({raw_reason})"
        calls = [c.model_copy(update={"complete": False, "error": c.error or cut}) for c in calls]
        notes.append(f"done_reason {raw_reason!r} with {n} tool call(s): marked incomplete")
    elif calls and reason is StopReason.COMPLETED:
        notes.append(f"done_reason {raw_reason!r} with {n} tool call(s): treated as tool_request")
        reason, detail = StopReason.TOOL_REQUEST, None
    elif reason is StopReason.UNKNOWN and calls:
        notes.append(f"{n} tool call(s) under an unknown stop are listed but must not be run")

    return make_stop(
        reason,
        provider=NAME,
        raw=raw,
        raw_reason=raw_reason,
        detail=detail,
        text=text,
        tool_calls=tuple(calls),
        notes=notes,
        details=details,
    )


def _is_chunk(obj: Any) -> bool:
    """A reply or stream chunk: `message` and `done`, with `model` or `created_at`."""
    if type(obj) is dict:
        return (
            "message" in obj
            and "done" in obj
            and ("model" in obj or "created_at" in obj)
            and "choices" not in obj
        )
    if obj is None or isinstance(obj, str | bytes | int | float | list | tuple | dict):
        return False
    return (
        field(obj, "message", _ABSENT) is not _ABSENT
        and field(obj, "done", _ABSENT) is not _ABSENT
        and (
            field(obj, "model", _ABSENT) is not _ABSENT
            or field(obj, "created_at", _ABSENT) is not _ABSENT
        )
        and field(obj, "choices", _ABSENT) is _ABSENT
    )


class OllamaAdapter:
    """Reads Ollama `/api/chat` replies (JSON dicts or `ollama` SDK objects) and NDJSON streams.

    Example:
        >>> stop = OllamaAdapter().normalize({"model": "llama3.2", "created_at": "...",
        ...     "message": {"role": "assistant", "content": "Hi"}, "done": True,
        ...     "done_reason": "length"})
        >>> (stop.reason.value, stop.detail, stop.text)
        ('output_limit', 'max_tokens', 'Hi')
    """

    name = NAME
    # An `/api/chat` reply has `done`: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("done",)
    tables: ClassVar[dict[str, dict[str, tuple[StopReason, str | None]]]] = {
        "done_reason": DONE_REASON
    }
    stream_notes: ClassVar[tuple[str, ...]] = (
        "Streams are newline-delimited JSON chunks, not SSE; the chunk with `done: true` ends it.",
        "A chunk holding only an `error` object ends the stream as unknown/error.",
        "A streamed Stop's `raw` is the reply rebuilt from the chunks (an /api/chat-shaped dict).",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is an `/api/chat` reply: `message`, `done`, `model`/`created_at`."""
        return _is_chunk(reply)

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is an `/api/chat` stream chunk (the same shape as a reply)."""
        return _is_chunk(event)

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` of an `/api/chat` reply."""
        message = field(reply, "message")
        malformed = malformed_message(reply, message, provider=NAME, stop_field="done_reason")
        if malformed is not None:
            return malformed
        notes: list[str] = []
        details: dict[str, Any] = {}
        thinking = field(message, "thinking")
        if isinstance(thinking, str) and thinking:
            details["thinking"] = thinking
        content = field(message, "content")
        calls = [
            build_call(i, item) for i, item in enumerate(as_list(field(message, "tool_calls")))
        ]
        return decide(
            field(reply, "done"),
            field(reply, "done_reason"),
            text=content if isinstance(content, str) else "",
            calls=calls,
            details=details,
            raw=reply,
            notes=notes,
        )

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        """Return the reply's one `Stop` (`/api/chat` has a single message per reply)."""
        return (self.normalize(reply),)

    def stream(self) -> OllamaStream:
        """Return a fresh accumulator for one `/api/chat` NDJSON stream."""
        return OllamaStream()

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the assistant message that appends this reply to an `/api/chat` `messages` list.

        Tool calls go back with their arguments as objects, as Ollama sent them; `thinking` is
        sent back too (Ollama's reasoning models read it on the next turn).

        Example:
            >>> OllamaAdapter().assistant_message(stop)  # doctest: +SKIP
            [{'role': 'assistant', 'content': '', 'tool_calls': [{'function': {...}}]}]
        """
        message: dict[str, Any] = {"role": "assistant", "content": stop.text}
        thinking = stop.details.get("thinking")
        if isinstance(thinking, str) and thinking:
            message["thinking"] = thinking
        if stop.tool_calls:
            message["tool_calls"] = [
                {"function": {"name": call.name, "arguments": dict(call.arguments)}}
                for call in stop.tool_calls
            ]
        return [message]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one `{"role": "tool", "content", "tool_name"}` message per result, in order.

        Ollama matches a result to its call by `tool_name` and order (ollama-python's
        `Message.tool_name`, "Name of the executed tool"); it has no error flag, so an error
        result's content says what went wrong.

        Example:
            >>> OllamaAdapter().tool_results(stop, [ToolResult(call_id="call_0",
            ...     name="get_weather", content="21C")])  # doctest: +SKIP
            [{'role': 'tool', 'content': '21C', 'tool_name': 'get_weather'}]
        """
        return [
            {"role": "tool", "content": result.content, "tool_name": result.name}
            for result in results
        ]

    def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Refuse: Ollama has no paused stop, so there is nothing to resume.

        Raises:
            ValueError: always.
        """
        raise ValueError(
            f"ollama replies are never paused; cannot resume a {stop.reason.value!r} stop"
        )

    def user_message(self, text: str) -> dict[str, Any]:
        """Return a user message saying `text`: a `/api/chat` message.

        Example:
            >>> OllamaAdapter().user_message("Go on.")
            {'role': 'user', 'content': 'Go on.'}
        """
        return {"role": "user", "content": text}


class OllamaStream:
    """Collects one `/api/chat` NDJSON stream, chunk by chunk; `result()` gives its `Stop`.

    Each chunk carries a fragment of `message.content` / `message.thinking` and whole tool
    calls; the last has `done: true` and `done_reason`. A chunk `{"error": ...}` ends it. The
    Stop's `raw` is the reply rebuilt from the chunks (an `/api/chat`-shaped dict).

    Example:
        >>> acc = OllamaStream()
        >>> acc.feed({"model": "m", "message": {"role": "assistant", "content": "Hi"},
        ...     "done": True, "done_reason": "stop"})
        >>> acc.result().text
        'Hi'
    """

    def __init__(self) -> None:
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._calls: list[ToolCall] = []
        self._done = False
        self._done_reason: Any = None
        self._error: Any = None
        self._last: Any = None  # the last chunk carrying a message: model, created_at, timings

    def feed(self, event: Any) -> None:
        """Take one chunk (an SDK `ChatResponse` or the parsed JSON line)."""
        message = field(event, "message")
        if message is None:
            error = field(event, "error")
            if error is not None:
                self._error = error
            return
        self._last = event
        content = field(message, "content")
        if isinstance(content, str) and content:
            self._text.append(content)
        thinking = field(message, "thinking")
        if isinstance(thinking, str) and thinking:
            self._thinking.append(thinking)
        for item in as_list(field(message, "tool_calls")):
            self._calls.append(build_call(len(self._calls), item))
        if field(event, "done") is True:
            self._done = True
            self._done_reason = field(event, "done_reason")

    def _reply(self, text: str, thinking: str) -> dict[str, Any]:
        """The reply rebuilt from the chunks: what `stream: false` would have sent."""
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if thinking:
            message["thinking"] = thinking
        if self._calls:
            message["tool_calls"] = [
                {"id": c.id, "function": {"name": c.name, "arguments": c.arguments}}
                for c in self._calls
            ]
        last = self._last
        if type(last) is dict:
            reply = {**last, "message": message}
        else:
            reply = {
                "model": field(last, "model"),
                "created_at": field(last, "created_at"),
                "message": message,
                "done": field(last, "done"),
            }
            if self._done:
                reply["done_reason"] = self._done_reason
        if self._error is not None:
            reply["error"] = self._error
        return reply

    def result(self) -> Stop:
        """Return the `Stop` for what was fed so far (`stream_incomplete` before `done: true`)."""
        details: dict[str, Any] = {}
        thinking = "".join(self._thinking)
        if thinking:
            details["thinking"] = thinking
        text = "".join(self._text)
        raw = self._reply(text, thinking)
        if self._error is not None:
            details["error"] = self._error
            return make_stop(
                StopReason.UNKNOWN,
                provider=NAME,
                raw=raw,
                raw_reason=self._done_reason,
                detail="error",
                text=text,
                tool_calls=tuple(self._calls),
                notes=[f"the stream ended with an error: {self._error}"],
                details=details,
            )
        if not self._done:
            return make_stop(
                StopReason.UNKNOWN,
                provider=NAME,
                raw=raw,
                detail="stream_incomplete",
                text=text,
                tool_calls=tuple(self._calls),
                notes=["the stream ended without its done: true chunk"],
                details=details,
            )
        return decide(
            True,
            self._done_reason,
            text=text,
            calls=list(self._calls),
            details=details,
            raw=raw,
            notes=[],
        )
