"""The OpenAI Responses stream accumulator: events in, the whole Response's `Stop` out.

Events are typed by `type` (openai/types/responses/response_stream_event.py). The terminal
`response.completed` / `response.incomplete` / `response.failed` event carries the whole
Response, which the adapter's own reader reads: the stream and its non-streaming twin give the
same `Stop`, usage included. The deltas are kept per output item (by `output_index`), appended
to lists and joined once, in `result()`: a stream cut before its terminal event still gives
everything received, and a terminal Response sent without its `output` is filled from them.

A second terminal event decides the reply's reason only when its stop value is stricter than
what the reply held decided, refusal and calls included (an `incomplete`/`content_filter` or a
`failed` is never undone by a later `response.completed`, nor is a refusal or a tool request),
and even then the reply keeps the items it held; nothing else sent after the terminal event
changes the reply (a note counts it). Events are
numbered (`sequence_number`): a repeat is dropped, a reordering noted.

The visible text is told as pieces (`text_pieces`) while it grows at its end: a text delta of
a message item at or after the last one told. A delta to an earlier item, an item whose final
form (`output_item.done`) rewrites its text, or a terminal Response carrying its own items (its
text then decides) leave the pieces unable to say it.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

from stopkit._stop import StopReason
from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._openai_responses_calls import CLIENT_CALL_TYPES, id_of
from stopkit.adapters._openai_responses_rules import RULES, SIGNALS, message_parts, signal
from stopkit.adapters._reading import Reading
from stopkit.adapters._strictness import harsher, reason_of
from stopkit.adapters._wire import listed, raw_value, to_json, wire

__all__ = ["ResponsesStream"]

_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_SNAPSHOT = frozenset({"response.created", "response.in_progress", "response.queued"})
# Delta event type -> which buffer of its output item the fragment goes to.
_DELTA = {
    "response.output_text.delta": "text",
    "response.refusal.delta": "refusal",
    "response.function_call_arguments.delta": "args",
    "response.custom_tool_call_input.delta": "args",
}
# Done event type -> (the field holding the whole value, which buffer it replaces).
_DONE = {
    "response.function_call_arguments.done": ("arguments", "args"),
    "response.custom_tool_call_input.done": ("input", "args"),
    "response.refusal.done": ("refusal", "refusal"),
}
# The stop value of a terminal Response that states none: not in SIGNALS, so as strict as an
# unknown value (a later `response.completed` does not undo it).
_NO_SIGNAL = ""
_CUT = {"complete": False, "error": "the stream ended before this call was complete"}


class _Slot:
    """What arrived for one output item: its first form, its fragments, its final form."""

    __slots__ = ("added", "args", "args_done", "done", "position", "refusal", "text")

    def __init__(self, position: int) -> None:
        self.position = position  # its `output_index`; -1, before all, when not numbered
        self.added: Any = None
        self.done: Any = None
        self.text: list[str] = []
        self.refusal: list[str] = []
        self.args: list[str] = []
        self.args_done = False

    def kind(self) -> Any:
        """The item's type: as added, or a message when it was not said but text came."""
        kind = wire(self.added).get("type")
        if kind is None and (self.text or self.refusal):
            return "message"
        return kind

    def item(self) -> Any:
        """The output item received: its final form, else rebuilt from its first and fragments.

        None for an item of which nothing but stray fragments came.
        """
        if self.done is not None:
            return self.done
        kind = self.kind()
        if kind == "message":
            content = [{"type": "output_text", "text": "".join(self.text)}]
            if self.refusal:
                content.append({"type": "refusal", "refusal": "".join(self.refusal)})
            return {"type": "message", "role": "assistant", "content": content}
        if type(kind) is str and kind in CLIENT_CALL_TYPES:
            dumped = to_json(self.added)
            item = dumped if isinstance(dumped, dict) else {**wire(self.added)}
            if kind == "function_call":
                item["arguments"] = "".join(self.args)
            elif kind == "custom_tool_call":
                item["input"] = "".join(self.args)
            return item
        return self.added


class ResponsesStream(Accumulator[Reading]):
    """Collects one streamed Response into the `Stop` its non-streaming twin gives.

    Example:
        >>> import stopkit
        >>> acc = stopkit.get_adapter("openai.responses").stream()
        >>> for event in events:  # doctest: +SKIP
        ...     acc.feed(event)
        >>> acc.result().reason  # doctest: +SKIP
        <StopReason.COMPLETED: 'completed'>
    """

    rules = RULES

    def __init__(self, read: Callable[[Any], Reading]) -> None:
        super().__init__(read)
        self._slots: dict[int | None, _Slot] = {}
        self._terminal: Any = None
        self._held: StopReason | None = None  # the reason the held terminal Response decided
        self._end: str | None = None
        """The first terminal event's type: the stream has ended."""
        self._snapshot: Any = None
        self._errors: list[Any] = []
        # Events are numbered (`sequence_number`): an event equal to the one already seen under
        # its number was sent again (dropped); a number below the highest seen arrived out of
        # order, and a number reused by a different event is a server's bug (both noted).
        self._seen: dict[int, Any] = {}
        self._order: list[str] = []
        self._top = -1
        self._late = 0
        self._events = 0

    def _slot(self, fields: Any) -> _Slot:
        index = fields.get("output_index")
        if type(index) is not int:
            index = None  # a server that does not number its items: one slot for all
        slot = self._slots.get(index)
        if slot is None:
            slot = self._slots[index] = _Slot(-1 if index is None else index)
        return slot

    def _shown(self, slot: _Slot) -> str:
        """The visible text `result()` takes from one output item (as the reader reads it)."""
        fields = wire(slot.item())
        return "".join(message_parts(fields)[0]) if fields.get("type") == "message" else ""

    def _retold(self, slot: _Slot, before: str) -> None:
        """Tell the text an item shows now that it showed `before`, if it only grew."""
        after = self._shown(slot)
        if after != before:
            if after.startswith(before):
                self._told.add(slot.position, after[len(before) :])
            else:
                self._told.lost()

    def feed(self, event: Any) -> None:
        """Take one event (an SDK event object or the parsed JSON `data:` object)."""
        self._cached = None
        self._events += 1
        fields = wire(event)
        kind = raw_value(fields.get("type"))  # LiteLLM's events name it with a str enum
        if type(kind) is not str:
            return
        number = fields.get("sequence_number")
        if type(number) is int and self._repeated(number, event):
            return
        if kind in _TERMINAL:
            self._take_terminal(kind, fields.get("response"))
        elif self._end is not None:
            self._late += 1  # the reply has ended: nothing else changes it
        elif kind in _DELTA or kind in _DONE:
            self._piece(kind, fields)
        elif kind == "response.output_item.added" or kind == "response.output_item.done":
            self._item(kind, fields)
        elif kind in _SNAPSHOT:
            self._snapshot = fields.get("response")
        elif kind == "error":
            error = fields.get("error")
            self._errors.append(to_json(error if error is not None else event))

    def _piece(self, kind: str, fields: Any) -> None:
        """A piece of an item's text, refusal or arguments (a delta), or the whole of one."""
        buffer = _DELTA.get(kind)
        if buffer is not None:
            delta = fields.get("delta")
            if type(delta) is str:
                slot = self._slot(fields)
                getattr(slot, buffer).append(delta)
                if buffer == "text" and slot.done is None and slot.kind() == "message":
                    self._told.add(slot.position, delta)
            return
        name, buffer = _DONE[kind]
        value = fields.get(name)
        slot = self._slot(fields)
        if type(value) is str and slot.done is None:
            setattr(slot, buffer, [value])
            if buffer == "args":
                slot.args_done = True

    def _item(self, kind: str, fields: Any) -> None:
        """An output item's first form (`added`) or final form (`done`, which holds it all)."""
        slot = self._slot(fields)
        before = self._shown(slot)
        if kind == "response.output_item.added":
            slot.added = fields.get("item")
        else:
            slot.done = fields.get("item")
            slot.text, slot.refusal, slot.args = [], [], []  # the item holds them now
        self._retold(slot, before)

    def _repeated(self, number: int, event: Any) -> bool:
        """Say whether `event` repeats the one already seen under `number` (noting oddities)."""
        earlier = self._seen.get(number)
        if earlier is not None:
            if earlier == event:
                self._order.append(f"sequence_number {number} came twice: repeat dropped")
                return True
            self._order.append(f"sequence_number {number} was used by two different events")
        elif number < self._top:
            self._order.append(f"sequence_number {number} arrived out of order")
        if number > self._top:
            self._top = number
        self._seen[number] = event
        return False

    def _take_terminal(self, kind: str, response: Any) -> None:
        """Hold the terminal Response, unless one at least as strict is already held."""
        value = signal(response)
        if value is None:
            value = _NO_SIGNAL
        if self._end is None:
            self._end = kind
        else:
            # Compared with what the held reply decided, not its status: a later Response no
            # stricter would replace its text and calls, a refusal's or a tool request's too.
            held = self._held
            if held is None:  # decided once per held reply: a flood of repeats stays linear
                held = self._held = self.result().reason
            self._cached = None
            if not harsher(reason_of(SIGNALS, value), held):
                self._late += 1
                return
            self._held = None
            self._order.append(f"{kind} after {self._end} says {value!r}, stricter: it decides")
            # Its reason only: the reply's items stay those held at the end (none streamed
            # after it is taken), the held Response's own or, without them, the streamed ones.
            held_items = wire(self._terminal).get("output") if _has_items(self._terminal) else []
            response = _with_output(response, listed(held_items))
        self._terminal = response
        if _has_items(response):
            self._told.lost()  # the Response's own items decide the text, not the deltas

    def _reading(self) -> Reading:
        if self._end is not None:
            response = self._terminal
            if _has_items(response) or not self._slots:
                reading = self._read(response)
            else:  # a terminal Response sent without its items: the streamed ones
                reading = self._read(_with_output(response, self._assembled()[0]))
        else:
            items, unfinished = self._assembled()
            reading = self._read(_with_output(self._snapshot, items))
            # A snapshot's status (`in_progress`) is no stop value: the stream was cut.
            reading.raw_reason = None
            if unfinished:
                # The cut is why such a call's arguments do not parse: it says so, first.
                reading.calls = [
                    c.model_copy(update=_CUT) if c.id in unfinished else c for c in reading.calls
                ]
        said = wire(self._errors[0]) if self._errors else {}
        self._settle(
            reading,
            end="response.completed/incomplete/failed",
            ended=self._end is not None,
            late=self._late,
            error=self._errors or None,
            error_key="stream_errors",
            error_note=f"the stream carried {len(self._errors)} error event(s) "
            f"({said.get('code')}: {said.get('message')})",
            cut_note=f"the stream ended after {self._events} events without "
            "response.completed/incomplete/failed",
            late_note=f"{self._late} events arrived after {self._end}: ignored",
        )
        reading.notes.extend(self._order)
        return reading

    def _assembled(self) -> tuple[list[Any], frozenset[str]]:
        """The output items received, in order, and the ids of calls left unfinished."""
        items: list[Any] = []
        unfinished: set[str] = set()
        for slot in sorted(self._slots.values(), key=attrgetter("position")):
            item = slot.item()
            if item is None:
                continue
            items.append(item)
            kind = slot.kind()
            if slot.done is None and type(kind) is str and kind in CLIENT_CALL_TYPES:
                call_id = id_of(item, kind)
                if not slot.args_done and type(call_id) is str:
                    unfinished.add(call_id)
        return items, frozenset(unfinished)


def _has_items(response: Any) -> bool:
    """Say whether a terminal Response carries its own output items (they decide the reply)."""
    return bool(listed(wire(response).get("output")))


def _with_output(response: Any, items: list[Any]) -> dict[str, Any]:
    """The Response with the streamed items as its output (what `assistant_message` reads)."""
    if response is None:
        return {"object": "response", "output": items}
    return {**wire(response), "output": items}
