"""The conversation the journal tests run: a model and tools whose every call leaves a trace.

`TurnModel` answers by the turn (the number of assistant messages so far + 1), so a process
that resumes a run gets the right reply without knowing what an earlier process was sent;
`turns` tool requests (each with `calls` calls of `record`), then a final answer. Every model
call and every tool call appends a line to a side-effect log, and may kill its own process
with SIGKILL at a chosen point: inside a call (`model:3`, `tool:3.0`), between turns
(`between:3`), or right after a step's commit (`after:tool_call_3_0`, and `started:<step>`
for the start of a non-idempotent call). `python -m tests.loop.journal._scenario` runs it as a
worker; `--chain` runs one worker per kill point in turn, then one that finishes.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import stopkit
import stopkit.loop.journal
from stopkit.loop.events import LoopEvent, TurnStarted

FINAL = "All steps are recorded."


def tool_reply(turn: int, calls: int = 1) -> dict[str, Any]:
    """An Anthropic tool request of `calls` calls of `record`."""
    uses = [
        {"type": "tool_use", "id": f"toolu_{turn}_{i}", "name": "record",
         "input": {"turn": turn, "i": i}}
        for i in range(calls)
    ]  # fmt: skip
    return {
        "id": f"msg_{turn}", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": f"Recording step {turn}."}, *uses],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }  # fmt: skip


def final_reply() -> dict[str, Any]:
    """The Anthropic reply ending the conversation."""
    return {
        "id": "msg_end", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": FINAL}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5},
    }  # fmt: skip


def _kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class Trace:
    """The side-effect log (a file when given, else in memory) and the point to die at."""

    def __init__(self, log: Path | None = None, kill: str | None = None) -> None:
        self.log = log
        self.lines: list[str] = []
        self.kill = kill  # "model:3", "tool:3.0", "between:3", "after:model_call_3"

    def add(self, line: str) -> None:
        self.lines.append(line)
        if self.log is not None:
            with self.log.open("a") as out:
                out.write(line + "\n")

    def maybe_die(self, point: str) -> None:
        if self.kill == point:
            _kill()


class TurnModel:
    """`call_model`: the reply of the turn the transcript is at; every call traced."""

    def __init__(self, trace: Trace, turns: int = 5, calls: int = 1) -> None:
        self.trace = trace
        self.turns = turns
        self.calls = calls

    def turn_of(self, messages: Any) -> int:
        return 1 + sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")

    def __call__(self, messages: Any, **overrides: Any) -> dict[str, Any]:
        turn = self.turn_of(messages)
        self.trace.add(f"model {turn}")
        self.trace.maybe_die(f"model:{turn}")
        return tool_reply(turn, self.calls) if turn <= self.turns else final_reply()

    async def acall(self, messages: Any, **overrides: Any) -> dict[str, Any]:
        return self(messages, **overrides)


def record_tool(trace: Trace, slow: float = 0.0, idempotent: bool = True) -> Any:
    """The `record` tool: traces `tool <turn>.<i>`, dies there when told to."""

    def record(turn: int, i: int) -> str:
        trace.add(f"tool {turn}.{i}")
        if slow:
            time.sleep(slow)
        trace.maybe_die(f"tool:{turn}.{i}")
        return f"recorded {turn}.{i}"

    return record if idempotent else stopkit.tool(record, idempotent=False)


def dying_on_event(trace: Trace) -> Any:
    """An `on_event` that dies as turn N starts (`between:N`): turn N-1 is wholly recorded."""

    def on_event(event: LoopEvent) -> None:
        if isinstance(event, TurnStarted):
            trace.maybe_die(f"between:{event.turn}")

    return on_event


class DyingJournal:
    """A journal that kills its process right after a chosen step's commit."""

    def __init__(self, journal: Any, trace: Trace) -> None:
        self.journal = journal
        self.trace = trace
        self.lease_seconds = journal.lease_seconds

    def record(self, run_id: str, owner: str, step: Any) -> None:
        self.journal.record(run_id, owner, step)
        self.trace.maybe_die(f"{'started' if step.result is None else 'after'}:{step.name}")

    def __getattr__(self, name: str) -> Any:  # everything else is the journal's own
        return getattr(self.journal, name)


def summary(outcome: stopkit.Outcome) -> dict[str, Any]:
    """What two runs that reached the same `Outcome` agree on, as JSON."""
    return {
        "termination": outcome.termination.value,
        "text": outcome.text,
        "turns": outcome.turns,
        "messages": json.loads(json.dumps(outcome.messages, default=str)),
        "tool_runs": [
            [run.turn, run.call.id, run.result.content, run.result.is_error]
            for run in outcome.tool_runs
        ],
        "escalation": outcome.escalation.reason if outcome.escalation else None,
    }


def open_journal(spec: str, lease: float) -> Any:
    """Open `sqlite:<path>` or `postgres:<dsn>`."""
    kind, _, where = spec.partition(":")
    if kind == "sqlite":
        return stopkit.loop.journal.SqliteJournal(where, lease_seconds=lease)
    return stopkit.loop.journal.PostgresJournal(where, lease_seconds=lease)


def _work(args: argparse.Namespace, kill: str | None) -> tuple[int, dict[str, Any]]:
    """Run the conversation once as a worker dying at `kill`; return its status and summary."""
    trace = Trace(args.log, kill)
    model = TurnModel(trace, args.turns, args.calls)
    journal = DyingJournal(open_journal(args.journal, args.lease), trace)
    settings: dict[str, Any] = {
        "tools": {"record": record_tool(trace, args.slow, not args.non_idempotent)},
        "journal": journal,
        "run_id": args.run_id,
        "on_event": dying_on_event(trace),
    }
    if args.start_at:
        time.sleep(max(0.0, args.start_at - time.time()))
    try:
        if args.use_async:
            import asyncio

            outcome = asyncio.run(stopkit.arun_loop(model.acall, "Record the steps.", **settings))
        else:
            outcome = stopkit.run_loop(model, "Record the steps.", **settings)
    except stopkit.loop.journal.RunLocked as exc:
        return 3, {"locked": str(exc)}
    return 0, summary(outcome)


def _chain(args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    """Run a forked worker per kill point, each once the last one's lease ran out; then one more.

    The last one's summary says how each worker ended (`ends`: their exit statuses).
    """
    ends = []
    for point in args.chain.split(","):
        pid = os.fork()
        if pid == 0:  # the worker: it opens the journal itself, and dies at `point`
            os._exit(_work(args, point)[0])
        ends.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        time.sleep(args.lease + 0.2)  # the dead worker's lease runs out
    status, result = _work(args, None)
    return status, {**result, "ends": ends}


def main(argv: list[str]) -> int:
    """Run the conversation as a worker; print its summary as JSON (exit 3: `RunLocked`)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--journal", required=True)
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--kill")
    parser.add_argument("--chain", help="kill points, one worker each, comma-separated")
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--calls", type=int, default=1)
    parser.add_argument("--lease", type=float, default=30.0)
    parser.add_argument("--slow", type=float, default=0.0)
    parser.add_argument("--start-at", type=float, default=0.0)
    parser.add_argument("--non-idempotent", action="store_true")
    parser.add_argument("--async", dest="use_async", action="store_true")
    args = parser.parse_args(argv)
    status, result = _chain(args) if args.chain else _work(args, args.kill)
    print(json.dumps(result))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
