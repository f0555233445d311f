"""The stream accumulator of the OpenAI Responses adapter.

Events are typed by `type` (openai/types/responses/response_stream_event.py). The terminal
`response.completed` / `response.incomplete` / `response.failed` event carries the whole
Response, which decides; the deltas are kept per output item (by `output_index`) so that a
stream cut before its terminal event still gives everything received, and so that a terminal
Response sent without its `output` is filled from them.
"""

from __future__ import annotations

from typing import Any

from stopkit._stop import Stop, StopReason
from stopkit.adapters._common import as_list, field, make_stop
from stopkit.adapters.openai_responses import (
    CLIENT_CALL_TYPES,
    PROVIDER,
    as_dict,
    read_items,
    read_response,
)

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
#: stop reasons an in-band `error` event does not override (rules 1-3 of DESIGN section 3)
_KEPT_OVER_ERRORS = frozenset({StopReason.FILTERED, StopReason.OUTPUT_LIMIT, StopReason.PAUSED})


class _Slot:
    """What arrived for one output item: its first form, its fragments, its final form."""

    __slots__ = ("added", "args", "args_done", "done", "refusal", "text")

    def __init__(self, added: Any = None) -> None:
        self.added = added
        self.done: Any = None
        self.text: list[str] = []
        self.refusal: list[str] = []
        self.args: list[str] = []
        self.args_done = False


class ResponsesStream:
    """Accumulates one streamed Response; `result()` gives the `Stop` of its whole twin."""

    __slots__ = ("_errors", "_order", "_seen", "_slots", "_snapshot", "_terminal", "_top")

    def __init__(self) -> None:
        self._slots: dict[Any, _Slot] = {}
        self._terminal: Any = None
        self._snapshot: Any = None
        self._errors: list[Any] = []
        # Events are numbered (`sequence_number`): an event equal to the one already seen under
        # its number was sent again (dropped); a number below the highest seen arrived out of
        # order, and a number reused by a different event is a server's bug (both noted).
        self._seen: dict[int, Any] = {}
        self._order: list[str] = []
        self._top = -1

    def _slot(self, event: Any) -> _Slot:
        index = field(event, "output_index")
        if type(index) is not int:
            index = None  # a server that does not number its items: one slot for all
        slot = self._slots.get(index)
        if slot is None:
            slot = self._slots[index] = _Slot()
        return slot

    def feed(self, event: Any) -> None:
        """Take one event (an SDK event object or the parsed JSON `data:` object)."""
        kind = field(event, "type")
        if type(kind) is not str:
            return
        number = field(event, "sequence_number")
        if type(number) is int:
            earlier = self._seen.get(number)
            if earlier is not None:
                if earlier == event:
                    self._order.append(f"sequence_number {number} came twice: repeat dropped")
                    return
                self._order.append(f"sequence_number {number} was used by two different events")
            elif number < self._top:
                self._order.append(f"sequence_number {number} arrived out of order")
            self._top = max(self._top, number)
            self._seen[number] = event
        buffer = _DELTA.get(kind)
        if buffer is not None:
            delta = field(event, "delta")
            if isinstance(delta, str):
                getattr(self._slot(event), buffer).append(delta)
        elif kind == "response.output_item.added":
            slot = self._slot(event)
            slot.added = field(event, "item")
        elif kind == "response.output_item.done":
            slot = self._slot(event)
            slot.done = field(event, "item")
            slot.text, slot.refusal, slot.args = [], [], []  # the item holds them now
        elif kind in _DONE:
            name, buffer = _DONE[kind]
            value = field(event, name)
            slot = self._slot(event)
            if isinstance(value, str) and slot.done is None:
                setattr(slot, buffer, [value])
                if buffer == "args":
                    slot.args_done = True
        elif kind in _TERMINAL:
            self._terminal = event
        elif kind in _SNAPSHOT:
            self._snapshot = field(event, "response")
        elif kind == "error":
            error = field(event, "error")
            self._errors.append(as_dict(error if error is not None else event))

    def _assembled(self) -> tuple[list[Any], frozenset[str]]:
        """The output items received, in order, and the ids of calls left unfinished."""
        items: list[Any] = []
        unfinished: set[str] = set()
        for index in sorted(self._slots, key=lambda i: -1 if i is None else i):
            slot = self._slots[index]
            if slot.done is not None:
                items.append(slot.done)
                continue
            kind = field(slot.added, "type")
            if kind is None and (slot.text or slot.refusal):
                kind = "message"
            if kind == "message":
                content = [{"type": "output_text", "text": "".join(slot.text)}]
                if slot.refusal:
                    content.append({"type": "refusal", "refusal": "".join(slot.refusal)})
                items.append({"type": "message", "role": "assistant", "content": content})
            elif type(kind) is str and kind in CLIENT_CALL_TYPES:
                item = dict(as_dict(slot.added))
                if kind == "function_call":
                    item["arguments"] = "".join(slot.args)
                elif kind == "custom_tool_call":
                    item["input"] = "".join(slot.args)
                if not slot.args_done:
                    key = "id" if kind == "mcp_approval_request" else "call_id"
                    unfinished.add(str(item.get(key) or ""))
                items.append(item)
            elif slot.added is not None:
                items.append(slot.added)
        return items, frozenset(unfinished)

    def result(self) -> Stop:
        """Return the `Stop` for what was fed so far (`stream_incomplete` before the end)."""
        stop = self._result()
        if self._order:
            return stop.model_copy(update={"notes": (*stop.notes, *self._order)})
        return stop

    def _result(self) -> Stop:
        if self._terminal is not None:
            response = field(self._terminal, "response")
            if as_list(field(response, "output")) or not self._slots:
                stop = read_response(response)
            else:
                items, _ = self._assembled()
                stop = read_response(response, items, raw=_with_output(response, items))
            if not self._errors:
                return stop
            extras = {**stop.details, "stream_errors": self._errors}
            if stop.reason in _KEPT_OVER_ERRORS or stop.reason is StopReason.UNKNOWN:
                return stop.model_copy(update={"details": extras})
            return stop.model_copy(
                update={
                    "reason": StopReason.UNKNOWN,
                    "detail": "error",
                    "details": extras,
                    "notes": (*stop.notes, "the stream carried an error event: treated as unknown"),
                }
            )
        items, unfinished = self._assembled()
        text, refusals, calls, _ = read_items(items)
        calls = [
            c.model_copy(
                update={
                    "complete": False,
                    "error": "the stream ended before this call was complete",
                }
            )
            if c.id in unfinished
            else c
            for c in calls
        ]
        details: dict[str, Any] = {}
        if self._errors:
            detail = "error"
            details["stream_errors"] = self._errors
            notes = ["the stream carried an error event and no terminal event"]
        else:
            detail = "stream_incomplete"
            notes = ["the stream ended before its terminal event (response.completed/...)"]
        return make_stop(
            StopReason.UNKNOWN,
            provider=PROVIDER,
            raw=_with_output(self._snapshot, items),
            detail=detail,
            text="".join(text),
            tool_calls=tuple(calls),
            refusal="".join(refusals) if refusals else None,
            notes=notes,
            details=details,
        )


def _with_output(response: Any, items: list[Any]) -> Any:
    """The response with the streamed items as its output (what `assistant_message` reads)."""
    if response is None:
        return {"object": "response", "output": items}
    if type(response) is dict:
        return {**response, "output": items}
    if hasattr(response, "model_copy"):
        return response.model_copy(update={"output": items})
    return response
