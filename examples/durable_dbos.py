"""A durable agent run on DBOS: each model call and each tool call is a DBOS step.

Offline: the model is scripted (it answers by the turn it is at), DBOS checkpoints to a SQLite
file. Kill the process mid-run (`--crash-at 3` does it to itself, with SIGKILL) and run it
again: DBOS recovers the workflow, the finished steps are answered from their checkpoints,
and only the unfinished work runs.

    python examples/durable_dbos.py                    # a fresh run, start to end
    python examples/durable_dbos.py --db /tmp/agent.sqlite --crash-at 3
    python examples/durable_dbos.py --db /tmp/agent.sqlite  # resumes the same workflow
"""

from __future__ import annotations

import argparse
import os
import signal
import tempfile
from pathlib import Path
from typing import Any

from dbos import DBOS, SetWorkflowID
from dbos._error import DBOSNonExistentWorkflowError

from stopkit.loop.journal import dbos as durable

STEPS = ["check the order", "reserve stock", "charge the card", "book the courier"]
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--db", type=Path, help="DBOS's SQLite file (default: a fresh one)")
parser.add_argument("--crash-at", type=int, default=0, help="SIGKILL this process in tool N")
parser.add_argument("--log", type=Path, help="append each side effect to this file")
parser.add_argument("--workflow-id", default="order-1042")
args = parser.parse_args()


def reply(turn: int) -> dict[str, Any]:
    """The model's reply at `turn`: one tool call per step, then the answer (Anthropic JSON)."""
    if turn > len(STEPS):
        content = [{"type": "text", "text": "Order 1042 is on its way."}]
        return {"id": "msg_end", "type": "message", "role": "assistant", "model": "scripted",
                "content": content, "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}}  # fmt: skip
    use = {"type": "tool_use", "id": f"toolu_{turn}", "name": "do", "input": {"step": turn}}
    return {"id": f"msg_{turn}", "type": "message", "role": "assistant", "model": "scripted",
            "content": [use], "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1}}  # fmt: skip


def side_effect(line: str) -> None:
    print(line, flush=True)
    if args.log:
        with args.log.open("a") as log:
            log.write(line + "\n")


def call_model(messages: list[Any], **overrides: Any) -> dict[str, Any]:
    turn = 1 + sum(1 for message in messages if message["role"] == "assistant")
    side_effect(f"model call {turn}")
    return reply(turn)


def do(step: int, idempotency_key: str) -> str:
    side_effect(f"tool: {STEPS[step - 1]} (key {idempotency_key})")
    if step == args.crash_at:
        os.kill(os.getpid(), signal.SIGKILL)  # the machine dies mid-step
    return f"done: {STEPS[step - 1]}"


@DBOS.workflow()
def fulfil(order: str) -> str:
    outcome = durable.run_loop(call_model, f"Fulfil order {order}.", tools={"do": do})
    return f"{outcome.termination}: {outcome.text}"


if __name__ == "__main__":
    db = args.db or Path(tempfile.mkdtemp()) / "dbos.sqlite"
    DBOS(config={"name": "stopkit-durable-example", "system_database_url": f"sqlite:///{db}",
                 "run_admin_server": False, "log_level": "WARNING"})  # fmt: skip
    DBOS.launch()  # recovers a workflow a crashed process left pending
    try:  # the workflow a crashed process started: DBOS.launch() is recovering it
        handle = DBOS.retrieve_workflow(args.workflow_id)
    except DBOSNonExistentWorkflowError:
        with SetWorkflowID(args.workflow_id):
            handle = DBOS.start_workflow(fulfil, "1042")
    print("result:", handle.get_result())
    DBOS.destroy()
