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
from stopkit.adapters._openai_chat_rules import FINISH_REASON, RULES, filter_hits, visible_text
from stopkit.adapters._reading import Reading, Verdict
from stopkit.adapters._rules import Rules
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import listed, raw_value, to_json, wire

__all__ = ["ChatStream", "Choice"]

# The finish value some servers send after each call of a turn (Together), the next call
# following: a new tool-call index after it belongs to the same turn (DESIGN section 3).
_EACH_CALL = "tool_calls"


class _Call:
    """One tool call being received: its id and name, and its argument pieces."""

    __slots__ = ("args", "id", "name", "whole")

    def __init__(self) -> None:
        self.id: Any = None  # a str; an id of another type is kept so the call is never run
        self.name: str | None = None
        self.args: list[str] = []
        self.whole: Any = None  # arguments sent as an object rather than string pieces

    def merge(self, fragment: Any, call_id: str | None) -> None:
        """Take a fragment's id (the first sent), name (the first sent) and argument piece."""
        if call_id is not None:
            if self.id is None:
                self.id = call_id
        else:
            sent = fragment.get("id")
            if self.id is None and sent is not None and not isinstance(sent, str):
                self.id = sent  # not a string: the reply reader makes the call incomplete
        function = wire(fragment.get("function"))
        name = function.get("name")
        if self.name is None and isinstance(name, str) and name:
            self.name = name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            if arguments:
                self.args.append(arguments)
        elif arguments is not None:
            self.whole = arguments

    def as_call(self) -> dict[str, Any]:
        arguments = "".join(self.args) if self.whole is None else self.whole
        function = {"name": self.name, "arguments": arguments}
        return {"id": self.id, "type": "function", "function": function}


class Choice:
    """One choice being received (a Chat choice: its pieces arrive in `delta`).

    A wire format whose choices carry another body (legacy Completions: `text`) subclasses it,
    overriding `table`, `_body` and `_whole`.
    """

    table: ClassVar[dict[str, Verdict]] = FINISH_REASON
    """The finish_reason table, for `stricter`."""

    __slots__ = (
        "after",
        "by_id",
        "by_index",
        "calls",
        "closed",
        "error",
        "filter_results",
        "finish",
        "finish_details",
        "late",
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
        self.closed = 0  # the calls a `tool_calls` finish closed (those before it)
        self.after = 0  # the calls of a new index taken after a `tool_calls` finish
        self.legacy_name: str | None = None
        self.legacy_args: list[str] = []
        self.finish: Any = None
        self.stop_reason: Any = None
        self.native: Any = None
        self.error: Any = None
        self.filter_results: Any = None
        self.finish_details: Any = None
        self.late = 0

    @property
    def ended(self) -> bool:
        return self.finish is not None or self.finish_details is not None

    def feed(self, said: Any) -> None:
        """Take one chunk's choice (its fields, as `wire` reads them)."""
        self._body(said)
        finish = said.get("finish_reason")
        if finish is not None and finish != "":
            finish = raw_value(finish)
            if stricter(self.table, self.finish, finish):
                self.finish = finish
                self.stop_reason = said.get("stop_reason")
                if finish == _EACH_CALL:
                    self.closed = len(self.calls)
        if self.finish_details is None:
            self.finish_details = said.get("finish_details")
        native = said.get("native_finish_reason")
        if native is not None:
            self.native = native
        error = said.get("error")
        if error is not None and self.error is None:
            self.error = error
        results = said.get("content_filter_results")
        # Keep the first results that filtered; a later annotation saying all is well (or an
        # empty one) never undoes them.
        if results and self.filter_results is None and filter_hits(results):
            self.filter_results = results

    def _body(self, said: Any) -> None:
        """Take the pieces of the choice's body this chunk carries (Chat: its `delta`)."""
        delta = said.get("delta")
        if delta is not None:
            self._delta(wire(delta))

    def _delta(self, delta: Any) -> None:
        if self.ended:  # nothing sent after the end is taken, but a call of a new index
            self._after_the_end(delta)
            return
        content = delta.get("content")
        refusal = delta.get("refusal")
        fragments = delta.get("tool_calls")
        legacy = delta.get("function_call")
        if content:
            text = content if type(content) is str else visible_text(content)
            if text:
                self.text.append(text)
        if isinstance(refusal, str) and refusal:
            self.refusal.append(refusal)
        if fragments:
            for fragment in listed(fragments):
                self._merge_call(wire(fragment))
        if legacy is not None:
            self._legacy_call(wire(legacy))

    def _after_the_end(self, delta: Any) -> None:
        """A delta after the choice's finish: only a call of a new index (the same turn) counts."""
        fragments = delta.get("tool_calls")
        late = bool(
            delta.get("content") or delta.get("refusal") or delta.get("function_call") is not None
        )
        before = len(self.calls)
        for fragment in listed(fragments) if fragments else ():
            said = wire(fragment)
            if self._same_turn(said):
                self._merge_call(said)
            else:
                late = True
        self.after += len(self.calls) - before
        if late:
            self.late += 1

    def _legacy_call(self, said: Any) -> None:
        """A piece of the legacy `function_call`: its name (the first sent), its arguments."""
        name = said.get("name")
        if self.legacy_name is None and isinstance(name, str) and name:
            self.legacy_name = name
        arguments = said.get("arguments")
        if isinstance(arguments, str) and arguments:
            self.legacy_args.append(arguments)

    def _same_turn(self, fragment: Any) -> bool:
        """Say whether a tool-call fragment sent after the end still belongs to this turn.

        After a `tool_calls` finish only: a fragment of an index no call before that finish
        had (Together finishes each call of a turn with `tool_calls`, then sends the next).
        """
        if self.finish != _EACH_CALL:
            return False
        index = _index(fragment)
        if type(index) is not int:
            return False
        position = self.by_index.get(index)
        return position is None or position >= self.closed

    def _merge_call(self, fragment: Any) -> None:
        """Merge one tool-call fragment into the call it continues (or a new one)."""
        index = _index(fragment)
        sent = fragment.get("id")
        call_id = sent if isinstance(sent, str) and sent else None
        position = self._continued(index, call_id)
        if position is None:
            position = len(self.calls)
            self.calls.append(_Call())
        if type(index) is int:
            self.by_index[index] = position
        if call_id is not None:
            self.by_id[call_id] = position
        self.calls[position].merge(fragment, call_id)

    def _continued(self, index: Any, call_id: str | None) -> int | None:
        """The position of the call a fragment continues (None: it starts a new one).

        By its index, else by its id, else the last call.
        """
        if type(index) is int:
            position = self.by_index.get(index)
            # Some servers number every call 0 and send each whole: a new id is a new call.
            if position is not None and call_id and self.calls[position].id not in (None, call_id):
                return None
            return position
        if call_id is not None:
            return self.by_id.get(call_id)
        return len(self.calls) - 1 if self.calls else None

    def as_choice(self, index: int) -> dict[str, Any]:
        """The choice of the whole reply these pieces amount to (everything joined once)."""
        choice: dict[str, Any] = {"index": index, **self._whole()}
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

    def _whole(self) -> dict[str, Any]:
        """The body of the whole choice: Chat's `message`."""
        text = "".join(self.text)
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if self.refusal:
            message["refusal"] = "".join(self.refusal)
        if self.calls:
            message["tool_calls"] = [call.as_call() for call in self.calls]
        elif self.legacy_name is not None:
            arguments = "".join(self.legacy_args)
            message["function_call"] = {"name": self.legacy_name, "arguments": arguments}
        return {"message": message}


class ChatStream(Accumulator[list[Reading]]):
    """Collects one streamed chat completion into the `Stop`s its whole reply would give.

    Given the adapter's reader (`readings`: one `Reading` per choice of a whole reply) and the
    rules that decide them (Chat's own; LiteLLM's, which reads the same chunks). The
    Stops' `raw` is that whole reply, rebuilt as a `chat.completion` dict (text, refusal and
    tool calls joined, finish_reason and the dialect extras of each choice, usage).

    Example:
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
                f"{calls} of a new index after finish_reason {_EACH_CALL!r}: taken into the "
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


def _index(fragment: Any) -> Any:
    """A tool-call fragment's `index`; an integral float as its int.

    Together's SDK types the index as a float (together/types/tool_choice.py, `ToolChoice.index`).
    """
    index = fragment.get("index")
    if type(index) is float and index.is_integer():
        return int(index)
    return index
