"""The OpenAI Responses stream accumulator: events in, the whole Response's `Stop` out.

Events are typed by `type` (openai/types/responses/response_stream_event.py). The terminal
`response.completed` / `response.incomplete` / `response.failed` event carries the whole
Response, which the adapter's own reader reads: the stream and its non-streaming twin give the
same `Stop`, usage included. The deltas are kept per output item (by `output_index`), appended
to lists and joined once, in `result()`: a stream cut before its terminal event still gives
everything received, and a terminal Response sent without its `output` is filled from them.

A second terminal event replaces the first only when its stop value is at least as strict (an
`incomplete`/`content_filter` or a `failed` is never undone by a later `response.completed`);
nothing else sent after the terminal event changes the reply (a note counts it). Events are
numbered (`sequence_number`): a repeat is dropped, a reordering noted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stopkit._stop import Stop, StopReason
from stopkit.adapters._engine import decide, stricter
from stopkit.adapters._openai_responses_calls import CLIENT_CALL_TYPES, id_of
from stopkit.adapters._openai_responses_rules import RULES, SIGNALS, signal
from stopkit.adapters._reading import Reading
from stopkit.adapters._wire import listed, to_json, wire

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

    __slots__ = ("added", "args", "args_done", "done", "refusal", "text")

    def __init__(self) -> None:
        self.added: Any = None
        self.done: Any = None
        self.text: list[str] = []
        self.refusal: list[str] = []
        self.args: list[str] = []
        self.args_done = False


class ResponsesStream:
    """Collects one streamed Response into the `Stop` its non-streaming twin gives.

    Example:
        >>> acc = stopkit.get_adapter("openai.responses").stream()
        >>> for event in events:  # doctest: +SKIP
        ...     acc.feed(event)
        >>> acc.result().reason  # doctest: +SKIP
        <StopReason.COMPLETED: 'completed'>
    """

    __slots__ = (
        "_cached",
        "_end",
        "_errors",
        "_events",
        "_late",
        "_order",
        "_read",
        "_seen",
        "_signal",
        "_slots",
        "_snapshot",
        "_terminal",
        "_top",
    )

    def __init__(self, read: Callable[[Any], Reading]) -> None:
        self._read = read
        self._slots: dict[int | None, _Slot] = {}
        self._terminal: Any = None
        self._signal: Any = None
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
        self._cached: Stop | None = None

    def _slot(self, fields: Any) -> _Slot:
        index = fields.get("output_index")
        if type(index) is not int:
            index = None  # a server that does not number its items: one slot for all
        slot = self._slots.get(index)
        if slot is None:
            slot = self._slots[index] = _Slot()
        return slot

    def feed(self, event: Any) -> None:
        """Take one event (an SDK event object or the parsed JSON `data:` object)."""
        self._cached = None
        self._events += 1
        fields = wire(event)
        kind = fields.get("type")
        if type(kind) is not str:
            return
        number = fields.get("sequence_number")
        if type(number) is int and self._repeated(number, event):
            return
        buffer = _DELTA.get(kind)
        if kind in _TERMINAL:
            self._take_terminal(kind, fields.get("response"))
        elif self._end is not None:
            self._late += 1  # the reply has ended: nothing else changes it
        elif buffer is not None:
            delta = fields.get("delta")
            if type(delta) is str:
                getattr(self._slot(fields), buffer).append(delta)
        elif kind == "response.output_item.added":
            self._slot(fields).added = fields.get("item")
        elif kind == "response.output_item.done":
            slot = self._slot(fields)
            slot.done = fields.get("item")
            slot.text, slot.refusal, slot.args = [], [], []  # the item holds them now
        elif kind in _DONE:
            name, buffer = _DONE[kind]
            value = fields.get(name)
            slot = self._slot(fields)
            if type(value) is str and slot.done is None:
                setattr(slot, buffer, [value])
                if buffer == "args":
                    slot.args_done = True
        elif kind in _SNAPSHOT:
            self._snapshot = fields.get("response")
        elif kind == "error":
            error = fields.get("error")
            self._errors.append(to_json(error if error is not None else event))

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
        elif stricter(SIGNALS, self._signal, value):
            self._order.append(
                f"{kind} after {self._end} says {value!r}, at least as strict: it decides"
            )
        else:
            self._late += 1
            return
        self._terminal = response
        self._signal = value

    def result(self) -> Stop:
        """Return the `Stop` of what was fed so far (`stream_incomplete` before the end)."""
        if self._cached is None:
            self._cached = decide(self._reading(), RULES)
        return self._cached

    def _reading(self) -> Reading:
        if self._end is not None:
            response = self._terminal
            if listed(wire(response).get("output")) or not self._slots:
                reading = self._read(response)
            else:  # a terminal Response sent without its items: the streamed ones
                reading = self._read(_with_output(response, self._assembled()[0]))
        else:
            items, unfinished = self._assembled()
            reading = self._read(_with_output(self._snapshot, items))
            # A snapshot's status (`in_progress`) is no stop value: the stream was cut.
            reading.raw_reason = None
            reading.verdict = (StopReason.UNKNOWN, "stream_incomplete")
            reading.ended = False
            if unfinished:
                # The cut is why such a call's arguments do not parse: it says so, first.
                reading.calls = [
                    c.model_copy(update=_CUT) if c.id in unfinished else c for c in reading.calls
                ]
            reading.notes.append(
                f"the stream ended after {self._events} events without "
                "response.completed/incomplete/failed"
            )
        notes = reading.notes
        if self._errors:
            reading.error = reading.details["stream_errors"] = self._errors
            said = wire(self._errors[0])
            notes.append(
                f"the stream carried {len(self._errors)} error event(s) "
                f"({said.get('code')}: {said.get('message')})"
            )
        if self._late:
            notes.append(f"{self._late} events arrived after {self._end}: ignored")
        notes.extend(self._order)
        return reading

    def _assembled(self) -> tuple[list[Any], frozenset[str]]:
        """The output items received, in order, and the ids of calls left unfinished."""
        items: list[Any] = []
        unfinished: set[str] = set()
        for index in sorted(self._slots, key=lambda i: -1 if i is None else i):
            slot = self._slots[index]
            if slot.done is not None:
                items.append(slot.done)
                continue
            added = wire(slot.added)
            kind = added.get("type")
            if kind is None and (slot.text or slot.refusal):
                kind = "message"
            if kind == "message":
                content = [{"type": "output_text", "text": "".join(slot.text)}]
                if slot.refusal:
                    content.append({"type": "refusal", "refusal": "".join(slot.refusal)})
                items.append({"type": "message", "role": "assistant", "content": content})
            elif type(kind) is str and kind in CLIENT_CALL_TYPES:
                dumped = to_json(slot.added)
                item = dumped if isinstance(dumped, dict) else {**added}
                if kind == "function_call":
                    item["arguments"] = "".join(slot.args)
                elif kind == "custom_tool_call":
                    item["input"] = "".join(slot.args)
                call_id = id_of(item, kind)
                if not slot.args_done and type(call_id) is str:
                    unfinished.add(call_id)
                items.append(item)
            elif slot.added is not None:
                items.append(slot.added)
        return items, frozenset(unfinished)


def _with_output(response: Any, items: list[Any]) -> dict[str, Any]:
    """The Response with the streamed items as its output (what `assistant_message` reads)."""
    if response is None:
        return {"object": "response", "output": items}
    return {**wire(response), "output": items}
