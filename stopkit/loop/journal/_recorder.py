"""`Recorder`: one run's view of its journal — what to replay, what to record, its lease.

The loop's journal control (`stopkit/loop/_journaled.py`) asks it for a model step before
the call is made and records the reply after, and does the same for each tool call. This
module, like the whole journal, knows nothing of the loop. A step found in the journal is
replayed once its request is checked against the recorded one (`JournalMismatch` naming the
step when they differ); a step not found is made live and recorded before its result is used.
The process's heartbeat renews the run's lease while the run is open (`_heartbeat.py`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from stopkit._stop import ToolCall, ToolResult
from stopkit.loop.journal._codec import (
    TranscriptDigest,
    dumps,
    loads,
    model_request,
    tool_request,
    tool_result,
    tool_result_json,
)
from stopkit.loop.journal._errors import JournalMismatch
from stopkit.loop.journal._heartbeat import HEARTBEAT
from stopkit.loop.journal._names import model_step, tool_step
from stopkit.loop.journal._owner import new_owner
from stopkit.loop.journal._protocol import Journal, RunInfo, RunStatus, StepRecord
from stopkit.loop.journal._replies import Unreplayable, replayable
from stopkit.loop.journal._rows import Recorded, damaged, read_steps

__all__ = ["Recorder", "status_for"]

logger = logging.getLogger("stopkit.loop")

#: Longest final text or reason kept on a run's row.
MAX_DETAIL = 2000

# How a run's ending (a `Termination` value) is kept; anything else is `finished`.
_STATUS = {
    "model_error": RunStatus.FAILED,
    "cancelled": RunStatus.INTERRUPTED,
    "needs_attention": RunStatus.NEEDS_ATTENTION,
    "awaiting_approval": RunStatus.AWAITING_APPROVAL,
}


def status_for(termination: str) -> RunStatus:
    """Return the status a run ending with `termination` is kept with."""
    return _STATUS.get(termination, RunStatus.FINISHED)


class Recorder:
    """One run's steps in a journal; open it (taking the lease) before the first step."""

    def __init__(self, journal: Journal, run_id: str) -> None:
        self.journal = journal
        self.run_id = run_id
        self.owner = new_owner()
        self.recorded: dict[str, Recorded] = {}
        self.unused: set[str] = set()
        self.unsettled: dict[int, str] = {}
        self.pending: str | None = None  # the request of the model call being made
        self.transcript = TranscriptDigest()
        self.every = journal.lease_seconds / 3
        self.renewed = 0.0
        self.released = False
        # How the run stood when this attempt took it (None: unread), and whether the attempt
        # has written a step since: one that raises before it does leaves the row as it stood.
        self.standing: RunInfo | None = None
        self.wrote = False

    # --- the run's lease --------------------------------------------------------------------

    def open(self) -> None:
        """Take the run's lease (`RunLocked` when a live worker holds it); read its steps."""
        self.journal.acquire(self.run_id, self.owner)
        try:
            self.standing = self.journal.run(self.run_id)
            self.recorded = read_steps(self.journal, self.run_id, self.journal.steps(self.run_id))
        except BaseException:  # a damaged row: the lease is given up, the row left as it was
            self.leave(None)
            raise
        HEARTBEAT.add(self)
        self.unused = set(self.recorded)
        # The calls that started and have no result (only non-idempotent calls record a
        # start), by turn: what a resumed run must not run again by itself.
        self.unsettled = {}
        for name, found in reversed(self.recorded.items()):
            if found.result is None and found.kind == "tool":
                self.unsettled[found.turn] = name

    def renew(self) -> bool:
        """Renew the lease (the heartbeat calls this); False when it was lost."""
        self.renewed = time.monotonic()
        if self.journal.renew(self.run_id, self.owner):
            return True
        logger.warning(
            "stopkit: run %r lost its lease; its next step raises RunLocked", self.run_id
        )
        return False

    def _record(self, step: StepRecord) -> None:
        """Write a step (which renews the lease too)."""
        self.wrote = True
        self.journal.record(self.run_id, self.owner, step)
        self.renewed = time.monotonic()

    def finish(self, termination: str, detail: str, *, replayed_all: bool) -> None:
        """Keep how the run ended and give the lease up.

        `replayed_all`: the run ended on a path where every recorded step must have been
        replayed; one left over means the code took another path (`JournalMismatch`).
        """
        if replayed_all and self.unused:
            first = next(name for name in self.recorded if name in self.unused)
            raise JournalMismatch(
                first,
                f"the run ended ({termination}) without reaching this recorded step: the "
                "code, the handlers or the tools take another path than when it was recorded",
                self.recorded[first].step.request,
                None,
            )
        self.release(status_for(termination), termination, detail)

    def release(self, status: RunStatus, termination: str | None, detail: str) -> None:
        """Stop the heartbeat and give the lease up, keeping `status` (once)."""
        HEARTBEAT.remove(self)
        if self.released:
            return
        self.released = True
        self.journal.release(self.run_id, self.owner, status, termination, detail[:MAX_DETAIL])

    def close(self) -> None:
        """Give the lease up if the run did not (it raised): it stays resumable.

        A run this attempt changed (or began) is kept `interrupted`; one it left as it was (a
        rerun refused with `JournalMismatch`, a damaged row) keeps its row as it stood.
        """
        if self.released:
            return
        standing = self.standing
        try:
            if self.wrote or (standing is not None and standing.status is RunStatus.RUNNING):
                self.release(RunStatus.INTERRUPTED, None, "the run raised; rerun to resume it")
            else:
                self.leave(standing)
        except Exception:  # the error that ended the run matters more
            logger.exception("stopkit: releasing run %r failed", self.run_id)

    def leave(self, standing: RunInfo | None) -> None:
        """Give the lease up, the run's row left as it stood (`standing`, when it was read)."""
        HEARTBEAT.remove(self)
        self.released = True
        unlock = getattr(self.journal, "unlock", None)
        if callable(unlock):
            unlock(self.run_id, self.owner)
        elif standing is not None:  # a journal of another kind: its row as it stood
            self.journal.release(self.run_id, self.owner, standing.status,
                                 standing.termination, standing.detail)  # fmt: skip

    # --- steps ------------------------------------------------------------------------------

    def _replay(
        self, name: str, request: str, why: Callable[[dict[str, Any], dict[str, Any]], str]
    ) -> dict[str, Any] | None:
        """Return the recorded result of the step `name` (None: not recorded, or no result)."""
        found = self.recorded.get(name)
        if found is None:
            return None
        if found.step.request != request:
            now = loads(request)
            raise JournalMismatch(name, why(found.request, now), found.request, now)
        self.unused.discard(name)
        return found.result

    def model(self, turn: int, messages: Any, overrides: Any) -> Any:
        """Return the recorded result of the model call of `turn` (None: make it live).

        The result is `{"reply": ...}` or `{"events": [...]}`: the JSON kept, or the objects
        rebuilt from it (`_replies.py`). `JournalUnreadable` names a damaged step.
        """
        request = model_request(self.transcript.of(messages), overrides)
        name = model_step(turn)
        result = self._replay(name, request, _model_difference)
        if result is None:
            self.pending = request
            return None
        try:
            return replayable(result)
        except Unreplayable as exc:
            raise damaged(self.journal, self.run_id, name, str(exc)) from None

    def record_model(self, turn: int, result: Any) -> None:
        """Record the result of the live model call of `turn` (JSON data)."""
        assert self.pending is not None, "record_model without model()"
        # Kept as it came (keys in their order): the reply the adapter reads on replay.
        text = dumps(result, sort_keys=False)
        step = StepRecord(model_step(turn), self.pending, text, 0.0)
        self.pending = None
        self._record(step)

    def tool(self, turn: int, slot: int, call: ToolCall) -> ToolResult | None:
        """Return the recorded result of a tool call (None: run it)."""
        result = self._replay(tool_step(turn, slot), tool_request(call), _tool_difference)
        return None if result is None else tool_result(call, result)

    def start_tool(self, turn: int, slot: int, call: ToolCall) -> None:
        """Record that a non-idempotent call is about to run (its result is not known yet)."""
        self._record(StepRecord(tool_step(turn, slot), tool_request(call), None, 0.0))

    def record_tool(
        self, turn: int, slot: int, call: ToolCall, result: ToolResult, seconds: float
    ) -> None:
        """Record a tool call's result (nothing for a call replayed from the journal)."""
        name = tool_step(turn, slot)
        known = self.recorded.get(name)
        if known is not None and known.result is not None:
            return
        self._record(StepRecord(name, tool_request(call), tool_result_json(result, seconds), 0.0))

    def attention(self, turn: int) -> str | None:
        """Say which call of `turn` started in an earlier attempt and has no result, if any."""
        name = self.unsettled.get(turn)
        if name is None:
            return None
        call = self.recorded[name].request
        return (
            f"{name}: {call.get('name')} (call id {call.get('id')}) is not idempotent; "
            "it started before the process stopped and has no recorded result, so it "
            "may or may not have happened: check, then settle it (stopkit runs settle "
            f"{self.run_id} {name} --result TEXT, --failed TEXT or --run-again) and rerun"
        )


def _model_difference(recorded: dict[str, Any], now: dict[str, Any]) -> str:
    """Say what differs between a recorded model request and this one."""
    if recorded.get("overrides") != now.get("overrides"):
        return (
            f"the overrides differ (recorded {recorded.get('overrides')!r}, "
            f"now {now.get('overrides')!r})"
        )
    return "the messages differ: the prompt, the transcript or the code that builds it changed"


def _tool_difference(recorded: dict[str, Any], now: dict[str, Any]) -> str:
    """Say what differs between a recorded tool call and this one."""
    changed = [key for key in ("id", "name", "arguments") if recorded.get(key) != now.get(key)]
    return f"the tool call's {' and '.join(changed) or 'request'} differ from the recorded call"
