"""One choice of an OpenAI Chat stream being received: its pieces, its finish, its calls.

Per choice: lists of text and refusal pieces and, per tool call (merged by `index`), the id and
name of the first fragment that has them and the list of argument pieces, joined once into the
choice of the whole reply (`as_choice`). A choice has ended at the chunk carrying its
`finish_reason` (or the legacy `finish_details`): a later finish value replaces the one held
only when it is at least as strict, and text and calls sent after the end are not taken, but a
call of a new index after a `tool_calls` finish (Together finishes each call of a turn that way,
then sends the next). Legacy Completions subclasses `Choice` for its `text` body.
"""

from __future__ import annotations

from typing import Any, ClassVar

from stopkit.adapters._openai_chat_rules import FINISH_REASON, filter_hits, visible_text
from stopkit.adapters._reading import Verdict
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import listed, raw_value, wire

__all__ = ["EACH_CALL", "Choice"]

# The finish value some servers send after each call of a turn (Together), the next call
# following: a new tool-call index after it belongs to the same turn (DESIGN section 3).
EACH_CALL = "tool_calls"


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
                if finish == EACH_CALL:
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
        if self.finish != EACH_CALL:
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


def _index(fragment: Any) -> Any:
    """A tool-call fragment's `index`; an integral float as its int.

    Together's SDK types the index as a float (together/types/tool_choice.py, `ToolChoice.index`).
    """
    index = fragment.get("index")
    if type(index) is float and index.is_integer():
        return int(index)
    return index
