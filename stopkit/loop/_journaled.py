"""The journal as a control of a run (`Journaled`), and what it keeps of a model call's reply.

A durable run (`journal=`) has this control, holding the run's `Recorder` (its view of the
journal, `journal/_recorder.py`): the run's lease is taken when it opens and given up when it
closes; a model step (`before_call`) or a tool step (`before_tool`) found recorded is replayed
(its request checked), one not found is made live and recorded before its result is used
(`replied`, `after_tool`); a non-idempotent call is recorded as started before it runs
(`starting`), and a resumed run stops at a turn where such a call has no result
(`before_handler`: `needs_attention`); the run's ending is kept (`ended`).

Before a model step is recorded, what it would keep is read back as a rerun reads it, with
the adapter the run knew before the call: its JSON (`{"reply": ...}`, a stream's `{"events":
[...]}`), else its JSON with its class (`journal/_replies.py`). A reply read back to another
`Stop` either way (its JSON or its class loses what its adapter reads, LiteLLM's
`_hidden_params`) is refused with a `JournalError` naming its form, and nothing is recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import Any

from stopkit._adapter import Adapter
from stopkit._errors import UnsupportedReply
from stopkit._stop import Stop, StopReason, ToolResult
from stopkit.loop._controls import Context, Control, Halt, ModelCall, ToolStep
from stopkit.loop._streams import Streamed, read_reply, read_stream
from stopkit.loop.events import Outcome, Termination
from stopkit.loop.journal._codec import canonical, events_json, reply_json
from stopkit.loop.journal._errors import JournalError
from stopkit.loop.journal._protocol import Journal
from stopkit.loop.journal._recorder import Recorder
from stopkit.loop.journal._replies import (
    Unreplayable,
    events_with_classes,
    form_of,
    replayable,
    with_class,
)

__all__ = ["Journaled", "kept_json", "recordable"]

# The endings that leave recorded steps unreplayed on purpose (any other ending with a recorded
# step left over means the code took another path: a JournalMismatch).
_PARTIAL = frozenset({Termination.CANCELLED, Termination.NEEDS_ATTENTION})


class Journaled(Control):
    """A durable run's journal as a control: its steps replayed where recorded, else recorded."""

    keeps_events = True  # a stream is recorded as its events

    def __init__(self, journal: Journal, run_id: str, idempotent: Callable[[str], bool]) -> None:
        self.recorder = Recorder(journal, run_id)
        self.idempotent = idempotent  # whether running the tool of that name twice is harmless

    def open(self) -> None:
        """Take the run's lease (`RunLocked` when a live worker holds it); read its steps."""
        self.recorder.open()

    def before_call(self, call: ModelCall) -> Any:
        """Return the model step's recorded reply, if any (`{"reply": ...}`, `{"events": ...}`)."""
        return self.recorder.model(call.turn, call.messages, call.overrides)

    def replied(self, call: ModelCall, stop: Stop) -> None:
        """Record a live reply, in the form that reads back to `stop` (`recordable`)."""
        if call.replayed:
            return
        if not call.unreadable:  # kept so that a rerun reads it to this `stop`, or refused
            self.recorder.record_model(call.turn, recordable(call.reply, stop, call.adapter))
            return
        # No JSON form either: the run ends as unknown now, and a rerun makes this call again.
        with suppress(JournalError):
            self.recorder.record_model(call.turn, kept_json(call.reply))

    def before_handler(self, ctx: Context) -> Halt | None:
        """Stop a resumed run at a tool request whose risky call may have happened already."""
        if ctx.stop.reason is not StopReason.TOOL_REQUEST:
            return None
        attention = self.recorder.attention(ctx.turn)
        if attention is None:
            return None
        return Halt(Termination.NEEDS_ATTENTION, attention, escalate=True)

    def before_tool(self, tool: ToolStep) -> ToolResult | None:
        """Return the tool step's recorded result, if any (its request checked)."""
        return self.recorder.tool(tool.turn, tool.slot, tool.call)

    def starting(self, tool: ToolStep) -> None:
        """Record that a non-idempotent call is starting (a rerun will not run it again)."""
        if not self.idempotent(tool.call.name):
            self.recorder.start_tool(tool.turn, tool.slot, tool.call)

    def after_tool(self, tool: ToolStep, result: ToolResult, seconds: float) -> None:
        """Record a call's result (not a placeholder, nor a halted or cut call's answer)."""
        if tool.kept:
            self.recorder.record_tool(tool.turn, tool.slot, tool.call, result, seconds)

    def ended(self, outcome: Outcome, why: str) -> None:
        """Keep how the run ended; a run that ended without replaying every step is refused."""
        termination = outcome.termination
        self.recorder.finish(termination.value, why, replayed_all=termination not in _PARTIAL)

    def close(self) -> None:
        """Give the lease up if the run did not (it raised): it stays resumable."""
        self.recorder.close()


def kept_json(reply: Any) -> dict[str, Any]:
    """Return the JSON a model step keeps of what `call_model` returned (a stream: its events)."""
    if type(reply) is Streamed:
        return events_json(reply.events or ())
    return reply_json(reply)


def recordable(reply: Any, stop: Stop, adapter: Adapter | None) -> dict[str, Any]:
    """Return what the model step keeps of `reply`, which the run read live as `stop`.

    Its JSON when that reads back to `stop`, else its JSON with its class; `adapter` is the one
    the run knew before the call (a rerun knows the same). Raises `JournalError` naming the
    reply's form when neither reads back to `stop`: the step is not recorded.

    Example:
        >>> recordable(reply, stop, None)  # doctest: +SKIP
        {'reply': {'type': 'message', ...}}
    """
    kept = kept_json(reply)
    if _reads_back(kept, stop, adapter):
        return kept
    streamed = type(reply) is Streamed
    tagged = events_with_classes(reply.events or []) if streamed else with_class(reply)
    if tagged is not None and _reads_back(tagged, stop, adapter):
        return tagged
    raise JournalError(
        f"{_described(reply)} reply cannot be journaled: read back from what the journal can "
        f"keep of it (its JSON{', its class' if tagged else ''}), it gives another Stop than "
        "the live one, so a rerun would not see what this run saw; return the provider's reply "
        "(its JSON body or the SDK object) from call_model"
    )


def _described(reply: Any) -> str:
    """Name a reply's form for an error: its class, or a stream of its events' classes."""
    if type(reply) is Streamed:
        kinds = dict.fromkeys(form_of(event) for event in reply.events or ())
        return f"a stream of {', '.join(kinds) or 'no event'}"
    return f"a {form_of(reply)}"


def _reads_back(kept: dict[str, Any], stop: Stop, adapter: Adapter | None) -> bool:
    """Say whether a rerun reading `kept` with `adapter` gets `stop` (every field, as JSON)."""
    try:
        replay = replayable(kept)
    except Unreplayable:
        return False
    events = replay.get("events")
    if events is not None:
        again = read_stream(events, adapter, None).stop
    else:
        try:
            again = read_reply(replay["reply"], adapter)[1]
        except UnsupportedReply:
            return False
    return again is not None and _same(again, stop)


def _same(a: Stop, b: Stop) -> bool:
    try:
        return bool(canonical(a.model_dump(mode="json")) == canonical(b.model_dump(mode="json")))
    except (JournalError, ValueError):  # a field with no JSON form: nothing to compare it by
        return False
