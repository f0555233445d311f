"""The Ollama stream accumulator: NDJSON chunks into the `Stop` of the whole reply.

An `/api/chat` chunk carries a fragment of `message.content` / `message.thinking` and whole
tool calls; an `/api/generate` chunk a fragment of `response` / `thinking`. The last has
`done: true`, `done_reason` and the token counts. A chunk `{"error": ...}` ends the stream.
Fragments are appended to lists and joined once, into the reply the chunks amount to (shaped as
the endpoint's reply), which the adapter's own reader (given to the accumulator) reads.

After the `done: true` chunk no text or call changes the reply (a note counts the chunks); a
later chunk is read for its token counts, and for its done_reason only when that is stricter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._ollama_rules import DONE_REASON, RULES
from stopkit.adapters._reading import Reading
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import listed, to_json, wire

__all__ = ["OllamaStream"]

#: The chunk fields that count tokens (the final chunk's), carried onto the rebuilt reply.
_COUNTS = ("prompt_eval_count", "eval_count")


class OllamaStream(Accumulator[Reading]):
    """Collects one `/api/chat` or `/api/generate` NDJSON stream; `result()` gives its `Stop`.

    The Stop's `raw` is the reply rebuilt from the chunks: an `/api/chat`-shaped dict, or an
    `/api/generate`-shaped one when the chunks carried `response` rather than `message`.

    Example:
        >>> from stopkit.adapters.ollama import _read as read
        >>> acc = OllamaStream(read)
        >>> acc.feed({"model": "m", "message": {"role": "assistant", "content": "Hi"},
        ...     "done": True, "done_reason": "stop"})
        >>> acc.result().text
        'Hi'
    """

    rules = RULES

    def __init__(self, read: Callable[[Any], Reading]) -> None:
        super().__init__(read)
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._calls: list[Any] = []
        self._ended = False
        self._done_reason: Any = None
        self._error: Any = None
        self._last: Any = None  # the last chunk carrying a body: model, created_at, timings
        self._generate = False  # the chunks are /api/generate's (`response`, no `message`)
        self._counts: dict[str, Any] = {}
        self._late = 0

    def text_pieces(self) -> list[str] | None:
        """The visible text so far, as its pieces (see `stopkit._adapter.StreamAccumulator`)."""
        return self._text

    def feed(self, event: Any) -> None:
        """Take one chunk (an SDK `ChatResponse` or the parsed JSON line)."""
        self._cached = None
        fields = wire(event)
        if self._ended:
            self._late += 1  # the reply has ended: only a stricter stop and counts are read
            if fields.get("done") is True:
                value = fields.get("done_reason")
                if stricter(DONE_REASON, self._done_reason, value):
                    self._done_reason = value
            self._count(fields)
            return
        message = fields.get("message")
        if message is not None:
            said = wire(message)
            content = said.get("content")
            self._calls.extend(listed(said.get("tool_calls")))
        else:
            content = fields.get("response")
            if content is None:
                error = fields.get("error")
                if error is not None:
                    self._error = error
                return
            said, self._generate = fields, True
        self._last = event
        if type(content) is str and content:
            self._text.append(content)
        thinking = said.get("thinking")
        if type(thinking) is str and thinking:
            self._thinking.append(thinking)
        self._count(fields)
        if fields.get("done") is True:
            self._ended = True
            self._done_reason = fields.get("done_reason")

    def _count(self, fields: Any) -> None:
        """Token counts are the reply's totals: a later count replaces an earlier one."""
        for name in _COUNTS:
            value = fields.get(name)
            if value is not None:
                self._counts[name] = value

    def _reply(self) -> dict[str, Any]:
        """The reply rebuilt from the chunks: what `stream: false` would have sent."""
        body: dict[str, Any] = {"role": "assistant", "content": "".join(self._text)}
        thinking = "".join(self._thinking)
        if thinking:
            body["thinking"] = thinking
        if self._calls:
            body["tool_calls"] = [to_json(item) for item in self._calls]
        last = self._last
        reply = to_json(last) if last is not None else {}
        if type(reply) is not dict:  # a chunk object with no JSON form: its identity fields
            said = wire(last)
            reply = {
                "model": said.get("model"),
                "created_at": said.get("created_at"),
                "done": said.get("done"),
            }
        if self._generate:  # /api/generate: the text and the thinking at the top level
            del body["role"]
            body["response"] = body.pop("content")
            reply.update(body)
        else:
            reply["message"] = body
        if self._ended:
            reply["done"] = True
            reply["done_reason"] = self._done_reason
        elif last is None:
            reply["done"] = False
        reply.update(self._counts)
        if self._error is not None:
            reply["error"] = self._error
        return reply

    def _reading(self) -> Reading:
        return self._settle(
            self._read(self._reply()),
            end="done: true chunk",
            ended=self._ended,
            late=self._late,
            error=self._error,
            error_note=f"the stream ended with an error: {self._error}",
        )
