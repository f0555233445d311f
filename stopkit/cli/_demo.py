"""`stopkit demo`: the loop handling every stop reason, offline, step by step."""

from __future__ import annotations

import argparse
import logging
from typing import TYPE_CHECKING, Any, TextIO

from stopkit.cli._demo_replies import SCENARIOS
from stopkit.cli._output import use_colour

if TYPE_CHECKING:
    from stopkit.loop.events import LoopEvent

__all__ = ["register", "run_demo"]

ORDERS = {"A-1042": {"status": "shipped", "eta": "Thursday"}}


def get_order(order_id: str) -> dict[str, Any]:
    """Look an order up (the demo's one tool)."""
    return ORDERS.get(order_id, {"status": "not found"})


def run_demo(out: TextIO, *, colour: bool = False) -> int:
    """Play every scenario through `run_loop` with a scripted model; print each step."""
    # The loop through its public names, imported here: `stopkit --help` need not load it.
    from stopkit import run_loop
    from stopkit.loop.events import (
        Escalated,
        LoopEnded,
        ModelReplied,
        ToolCalled,
        ToolReturned,
        TurnStarted,
    )
    from stopkit.testing import ScriptedModel

    def say(text: str, code: str = "0") -> None:
        out.write((f"\x1b[{code}m{text}\x1b[0m" if colour else text) + "\n")

    def on_event(event: LoopEvent) -> None:
        if isinstance(event, TurnStarted):
            extra = f" with {dict(event.overrides)}" if event.overrides else ""
            say(f"  turn {event.turn}: call the model{extra}", "2")
        elif isinstance(event, ModelReplied):
            stop = event.stop
            detail = f" ({stop.detail})" if stop.detail else ""
            say(f"    -> {stop.reason.value}{detail}, raw {stop.raw_reason!r}", "1")
            for note in stop.notes:
                say(f"       note: {note}", "2")
        elif isinstance(event, ToolCalled):
            say(f"    run {event.call.name}({event.call.arguments})", "36")
        elif isinstance(event, ToolReturned):
            say(f"      = {event.result.content}", "36")
        elif isinstance(event, Escalated):
            say(f"    escalated: {event.escalation.reason}", "35")
        elif isinstance(event, LoopEnded):
            say(f"  ended: {event.termination.value} after {event.turn} model call(s)", "1")

    # The loop's own WARNING logs would repeat what the steps show.
    logging.getLogger("stopkit").setLevel(logging.ERROR)
    for title, shows, messages, replies in SCENARIOS:
        say(f"\n{title} — {shows}", "1;4")
        model = ScriptedModel(replies)
        outcome = run_loop(
            model, messages, tools={"get_order": get_order}, max_tokens=1024,
            on_event=on_event, on_escalate=lambda escalation: None,
        )  # fmt: skip
        answer = outcome.text or "(none)"
        say(f"  answer: {answer!r}; transcript: {len(outcome.messages)} message(s)")
        if model.remaining:
            say(f"  ({model.remaining} scripted repl(ies) never requested)")
    say("\nEvery reply above was normalized by stopkit and handled by the loop's default "
        "handlers; see README.md to override one.")  # fmt: skip
    return 0


def _demo_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return run_demo(out, colour=use_colour(out))


def register(commands: Any) -> None:
    """Add the `demo` sub-command to the parser's sub-commands."""
    demo = commands.add_parser("demo", help="run the agent loop offline on recorded replies")
    demo.set_defaults(run=_demo_command)
