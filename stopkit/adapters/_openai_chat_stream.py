"""The OpenAI Chat stream accumulator: chunks in, one `Stop` per choice out.

Per choice it keeps lists of text and refusal pieces and, per tool call (merged by `index`),
the id and name of the first fragment that has them and the list of argument pieces; in
`results()` they are joined once into the whole reply the stream amounts to, which the
adapter's own reader reads: a stream and its non-streaming twin give the same `Stop`s.

A choice has ended at the chunk carrying its `finish_reason` (or the legacy `finish_details`).
A later finish value replaces the one held only when it is at least as strict (Azure's
asynchronous filter sends `content_filter` after `stop`); text and tool calls sent after the
end are not taken (a note counts the chunks), but for a call of a new index after a
`tool_calls` finish: Together finishes each call of a turn that way, then sends the next.
Filter annotations, errors and usage are read whenever they come: the usage-only chunk
(`choices: []`) arrives after the end.

Legacy Completions streams are the same chunks with a `text` body in each choice:
`_openai_completions_stream` subclasses `Choice` and `ChatStream` for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._openai_chat_choice import EACH_CALL, Choice
from stopkit.adapters._openai_chat_rules import RULES
from stopkit.adapters._reading import Reading
from stopkit.adapters._rules import Rules
from stopkit.adapters._wire import listed, to_json, wire

__all__ = ["ChatStream"]


class ChatStream(Accumulator[list[Reading]]):
    """Collects one streamed chat completion into the `Stop`s its whole reply would give.

    Given the adapter's reader (`readings`: one `Reading` per choice of a whole reply) and the
    rules that decide them (Chat's own; LiteLLM's, which reads the same chunks). The
    Stops' `raw` is that whole reply, rebuilt as a `chat.completion` dict (text, refusal and
    tool calls joined, finish_reason and the dialect extras of each choice, usage).

    Example:
        >>> import stopkit
        >>> acc = stopkit.get_adapter("openai.chat").stream()
        >>> acc.feed({"object": "chat.completion.chunk", "choices": [{"index": 0,
        ...     "delta": {"content": "Hi"}, "finish_reason": "stop"}]})
        >>> acc.result().reason.value
        'completed'
    """

    rules = RULES
    choice: ClassVar[type[Choice]] = Choice
    """How one choice is received (legacy Completions: a `text` body)."""
    kind: ClassVar[str] = "chat.completion"
    """The `object` of the whole reply rebuilt."""

    def __init__(
        self, readings: Callable[[Any], list[Reading]], rules: Rules | None = None
    ) -> None:
        super().__init__(readings, rules)  # LiteLLM: its own rules
        self._choices: dict[int, Choice] = {}
        self._error: Any = None
        self._prompt_filters: list[Any] = []
        self._moderation: Any = None
        self._head: dict[str, Any] = {}
        self._usage: Any = None
        self._events = 0

    def feed(self, event: Any) -> None:
        """Take one chunk: an SDK `ChatCompletionChunk` or its parsed JSON `data:` object."""
        self._cached = None
        self._events += 1
        fields = wire(event)
        if not self._head.get("id"):
            # Azure's first chunk has an empty id and model: the next one names them.
            self._head = {
                key: fields.get(key) for key in ("id", "created", "model", "system_fingerprint")
            }
        self._around(fields)
        choices = fields.get("choices")
        if choices:
            for choice in listed(choices):
                said = wire(choice)
                index = said.get("index")
                key = index if type(index) is int else 0
                state = self._choices.get(key)
                if state is None:
                    state = self._choices[key] = self.choice()
                state.feed(said)

    def _around(self, fields: Any) -> None:
        """Take what a chunk says beside its choices: usage, an error, moderation, filters."""
        usage = fields.get("usage")
        x_groq = fields.get("x_groq")
        if x_groq is not None:
            groq = wire(x_groq)
            if usage is None:
                usage = groq.get("usage")  # Groq streams its usage in x_groq
            if self._error is None:
                self._error = groq.get("error") or None
        if usage is not None:
            self._usage = usage  # cumulative where a server sends it in every chunk
        error = fields.get("error")
        if error is not None and self._error is None:
            self._error = error
        moderation = fields.get("moderation")
        if moderation is not None:
            self._moderation = moderation
        filters = fields.get("prompt_filter_results")
        if filters:
            self._prompt_filters.extend(listed(filters))

    def _reply(self) -> dict[str, Any]:
        """The whole reply the stream amounts to (the `raw` of its Stops)."""
        choices = [self._choices[i].as_choice(i) for i in sorted(self._choices)]
        reply: dict[str, Any] = {**self._head, "object": self.kind, "choices": choices}
        for key, value in (
            ("usage", to_json(self._usage)),
            ("prompt_filter_results", self._prompt_filters),
            ("moderation", self._moderation),
            ("error", self._error),
        ):
            if value:
                reply[key] = value
        return reply

    def text_pieces(self) -> list[str] | None:
        """The first choice's visible text so far, as its pieces (see `StreamAccumulator`)."""
        if not self._choices:
            return None
        return self._choices[min(self._choices)].text

    def _readings(self) -> list[Reading]:
        """One reading per choice seen, in `index` order (`n > 1`), the stream's facts set."""
        readings = self._read(self._reply())
        if self._choices:
            states = [self._choices[i] for i in sorted(self._choices)]
            for reading, state in zip(readings, states, strict=True):
                self._facts(reading, state.ended, state.late, state.after)
        else:  # no choice arrived: only a blocked prompt ends such a stream
            (reading,) = readings
            self._facts(reading, reading.filter is not None, 0, 0)
        return readings

    def _facts(self, reading: Reading, ended: bool, late: int, after: int) -> None:
        """Set what only the stream knows on one choice's reading."""
        if after:
            calls = f"{after} tool call" + ("" if after == 1 else "s")
            reading.notes.append(
                f"{calls} of a new index after finish_reason {EACH_CALL!r}: taken into the "
                "same turn (a server that finishes each call, as Together does)"
            )
        self._settle(
            reading,
            end="finish_reason",
            ended=ended,
            late=late,
            cut_note=f"the stream ended after {_chunks(self._events)} without a finish_reason",
            late_note=f"{_chunks(late)} after finish_reason carried text or tool calls: ignored",
        )


def _chunks(n: int) -> str:
    return f"{n} chunk" + ("" if n == 1 else "s")
