"""What the tests of the loop's controls share: a tool that counts, one scripted run per mode.

The controls (budget, compaction, hooks, permissions, approval) are tested over the real
adapters' reply shapes (`tests/loop/_shapes.py`), in `run_loop` and in `arun_loop`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import stopkit
from stopkit.loop.events import LoopEvent
from stopkit.testing import ScriptedModel
from tests.loop._fake import arun
from tests.loop._shapes import TOOLS, Shapes, get_weather

MODES = ["run_loop", "arun_loop"]
ROME = ("call_r", "get_weather", {"city": "Rome"})


class Counted:
    """`get_weather` (Rome included), keeping the cities it ran for: a side effect to count."""

    def __init__(self) -> None:
        self.cities: list[str] = []

    def __call__(self, city: str) -> Any:
        self.cities.append(city)
        if city == "Rome":
            return {"city": city, "forecast": "21 °C, sunny"}
        return get_weather(city)


def drive(
    mode: str, model: ScriptedModel, start: Sequence[Any], **settings: Any
) -> tuple[stopkit.Outcome, list[LoopEvent]]:
    """Run `model` from `start` in `mode` (`run_loop` or `arun_loop`); return the events too."""
    events: list[LoopEvent] = []
    settings.setdefault("on_event", events.append)
    if mode == "run_loop":
        return stopkit.run_loop(model, list(start), **settings), events
    return arun(stopkit.arun_loop(model.acall, list(start), **settings)), events


def scripted(
    mode: str, script: Sequence[Any], start: Sequence[Any], **settings: Any
) -> tuple[stopkit.Outcome, ScriptedModel, list[LoopEvent]]:
    """Run `script` from `start`; return the outcome, the model (its calls) and the events.

    The tools are the weather tools unless `tools=` says otherwise.
    """
    settings.setdefault("tools", TOOLS)
    model = ScriptedModel(script)
    outcome, events = drive(mode, model, start, **settings)
    return outcome, model, events


def loop(
    mode: str, p: Shapes, script: Sequence[Any], **settings: Any
) -> tuple[stopkit.Outcome, ScriptedModel, list[LoopEvent]]:
    """Run `script` from the provider's user message (with the weather tools by default)."""
    return scripted(mode, script, [p.user], **settings)
