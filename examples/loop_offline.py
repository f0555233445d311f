"""Run the stopkit loop offline: a scripted model (Anthropic-shaped replies) and a real tool.

The script plays a conversation that hits three stop reasons: the model asks for two tools
at once, its next answer is cut by max_tokens (dropped and retried with the limit doubled),
and then it answers. Run it with `python examples/loop_offline.py`.
"""

from __future__ import annotations

import math
from typing import Any

import stopkit
from stopkit.testing import ScriptedModel


def reply(content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    """An Anthropic Messages reply, as the API sends it."""
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}  # fmt: skip


def circle_area(radius: float) -> float:
    """A real tool: the area of a circle."""
    if radius < 0:
        raise ValueError("a radius cannot be negative")
    return round(math.pi * radius**2, 2)


model = ScriptedModel(
    [
        reply(
            [
                {"type": "text", "text": "Computing both areas."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "circle_area",
                    "input": {"radius": 2},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "circle_area",
                    "input": {"radius": -1},
                },
            ],
            "tool_use",
        ),
        reply([{"type": "text", "text": "The first circle has an area of 12.5"}], "max_tokens"),
        reply(
            [{"type": "text", "text": "A radius of 2 gives 12.57; a radius of -1 is invalid."}],
            "end_turn",
        ),
    ]
)


def main() -> None:
    """Run the loop and print what happened."""
    events: list[str] = []
    outcome = stopkit.run_loop(
        model,
        [{"role": "user", "content": "What are the areas of circles of radius 2 and -1?"}],
        tools={"circle_area": circle_area},
        max_tokens=1024,
        on_event=lambda event: events.append(type(event).__name__),
    )
    print("termination:", outcome.termination.value)
    print("text:", outcome.text)
    print("turns:", outcome.turns)
    for run in outcome.tool_runs:
        status = "error" if run.result.is_error else "ok"
        print(f"tool {run.call.name}({run.call.arguments}) -> {status}: {run.result.content}")
    print("overrides per call:", [call.overrides for call in model.calls])
    print("transcript roles:", [m["role"] for m in outcome.messages])
    print("events:", " ".join(events))


if __name__ == "__main__":
    main()
