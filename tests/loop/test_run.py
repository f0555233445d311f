"""A run's state (`stopkit/loop/_run.py`): when `call_model` returns no reply stopkit can read."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import stopkit
import stopkit.loop.events
from stopkit import Termination
from stopkit.testing import ScriptedModel
from tests.loop._fake import FAKE, USER, call, reply, results_of
from tests.loop._shapes import Anthropic, OpenAIChat, paris


@pytest.mark.parametrize(
    "bad",
    ["It is 18 °C in Paris.", {"no": "shape"}, 42, OpenAIChat().text("a Chat reply")],
    ids=["text", "unknown dict", "int", "another provider's reply"],
)
@pytest.mark.parametrize("mode", ["run_loop", "arun_loop"])
def test_an_unreadable_reply_mid_run_ends_it_as_unknown_keeping_everything(
    bad: Any, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Tools ran, then no reply: the run ends as `unknown`, its transcript and tool runs kept."""
    events: list[Any] = []
    model = ScriptedModel([Anthropic().tools([paris()], "Checking."), bad, Anthropic().text("x")])
    settings: dict[str, Any] = {
        "tools": {"get_weather": lambda city: "18"},
        "on_event": events.append,
    }
    with caplog.at_level(logging.WARNING, logger="stopkit.loop"):
        if mode == "run_loop":
            outcome = stopkit.run_loop(model, [USER], **settings)
        else:
            import asyncio

            outcome = asyncio.run(stopkit.arun_loop(model.acall, [USER], **settings))
    assert outcome.termination is Termination.UNKNOWN
    assert outcome.turns == 2
    assert model.remaining == 1
    assert [r.result.content for r in outcome.tool_runs] == ["18"]
    assert list(outcome.messages) == list(model.calls[1].messages)  # the tool turn is kept
    assert outcome.stop is not None
    assert (outcome.stop.reason, outcome.stop.detail) == ("unknown", "unsupported_reply")
    assert outcome.stop.raw is bad
    assert outcome.stop.provider == "anthropic"
    assert outcome.escalation is not None
    assert outcome.escalation.reason == "unknown (unsupported_reply)"
    assert outcome.text == ""
    assert isinstance(events[-1], stopkit.loop.events.LoopEnded)
    assert "not a reply stopkit can read" in caplog.text


def test_an_unreadable_first_reply_ends_the_run_as_unknown() -> None:
    """With no adapter known yet, a first reply no adapter reads ends the run the same way."""
    model = ScriptedModel(["just text"])
    outcome = stopkit.run_loop(model, [USER], on_escalate=lambda e: None)
    assert outcome.termination is Termination.UNKNOWN
    assert outcome.stop is not None
    assert (outcome.stop.provider, outcome.stop.detail) == ("none", "unsupported_reply")
    assert outcome.stop.notes[0].startswith("not a reply stopkit can read")
    assert outcome.messages == [USER]


def test_a_reply_of_the_given_adapter_is_still_read_every_turn() -> None:
    """The check that a reply is the adapter's costs nothing to a run whose replies all are."""
    model = ScriptedModel(
        [reply("tool_request", calls=[call("a", a=1, b=2)]), reply("completed", "3")]
    )
    outcome = stopkit.run_loop(model, [USER], adapter=FAKE, tools={"add": lambda a, b: a + b})
    assert (outcome.termination, outcome.text) == (Termination.COMPLETED, "3")
    assert set(results_of(outcome.messages)) == {"a"}
