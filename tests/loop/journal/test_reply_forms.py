"""Every reply form the loop reads journals and replays to the same `Stop`, or is refused.

A durable run keeps each reply so that a rerun reads it as the live run did: a wire reply as its
JSON body, an object whose JSON no adapter reads the same way (a framework's messages, a
google-genai reply) with its class, rebuilt on replay. A reply kept neither way is refused
when it is recorded, naming its form, before the step commits. Each form runs a tool turn and a
final answer: replayed whole with no call, and resumed after a crash inside the tool.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import stopkit
import stopkit.loop.journal
from stopkit import Stop
from stopkit.loop.journal._codec import canonical
from tests.loop.journal._forms import (
    FORMS,
    REFUSED,
    Model,
    Replies,
    Tool,
)
from tests.loop.journal._scenario import summary


def run(journal: Any, replies: Replies, tool: Tool | None = None) -> tuple[stopkit.Outcome, Model]:
    model = Model(replies)
    tool = tool or Tool()
    outcome = stopkit.run_loop(model, "Record.", tools={"record": tool, "get_weather": tool},
                               journal=journal, run_id="forms")  # fmt: skip
    return outcome, model


def same_stop(a: Stop | None, b: Stop | None) -> None:
    """Assert two `Stop`s are the same, every field as JSON (the raw reply is never compared)."""
    assert a is not None
    assert b is not None
    assert canonical(a.model_dump(mode="json")) == canonical(b.model_dump(mode="json"))


@pytest.fixture(autouse=True)
def _frameworks_warn_on_their_own() -> Iterator[None]:
    """LiteLLM's and pydantic-ai's own warnings (deprecated attributes) are none of stopkit's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("form", FORMS)
def test_a_finished_run_replays_to_the_same_stops(journal: Any, form: str) -> None:
    """Rerun with nothing to call: the same outcome, the same last `Stop`, no call made."""
    replies = FORMS[form]()
    live, model = run(journal, replies)
    assert (live.termination, model.calls) == (stopkit.Termination.COMPLETED, 2)
    tool = Tool()
    replayed, again = run(journal, replies, tool)
    assert (again.calls, tool.runs) == (0, 0)
    same_stop(replayed.stop, live.stop)
    # The same transcript, as a digest compares it (the objects made again by the rerun, the
    # tool results, carry the time they were made where the framework stamps one).
    assert canonical(replayed.messages) == canonical(live.messages)
    replayed_summary, live_summary = summary(replayed), summary(live)
    del replayed_summary["messages"], live_summary["messages"]
    assert replayed_summary == live_summary


@pytest.mark.parametrize("form", FORMS)
def test_a_run_cut_inside_a_tool_resumes_and_finishes(journal: Any, form: str) -> None:
    """A crash inside the tool: the rerun replays the tool request and finishes as live."""
    replies = FORMS[form]()
    with pytest.raises(KeyboardInterrupt):
        run(journal, replies, Tool(crash=True))
    resumed, model = run(journal, replies)
    assert resumed.termination is stopkit.Termination.COMPLETED
    assert model.calls == 1  # the tool request replayed, the final answer asked for
    assert resumed.text == _fresh(replies).text


def _fresh(replies: Replies) -> stopkit.Outcome:
    tool = Tool()
    return stopkit.run_loop(Model(replies), "Record.", tools={"record": tool, "get_weather": tool})


@pytest.mark.parametrize(("make", "adapter", "form"), REFUSED.values(), ids=REFUSED)
def test_a_reply_that_cannot_replay_the_same_is_refused_before_it_is_recorded(
    journal: Any, make: Callable[[], Any], adapter: Any, form: str
) -> None:
    """A JournalError names the reply's form; the journal holds no step of it."""
    reply = make()
    with pytest.raises(stopkit.loop.journal.JournalError, match=form) as refused:
        stopkit.run_loop(lambda messages, **o: reply, "Hi", journal=journal, run_id="refused",
                         adapter=adapter)  # fmt: skip
    assert journal.steps("refused") == []
    # It carries no serializer's error along: DBOS stores a step's error pickled, and with
    # tblib's pickling (which dask's distributed installs for every exception) the chain is
    # pickled too; pydantic's PydanticSerializationError does not unpickle.
    assert (refused.value.__cause__, refused.value.__context__) == (None, None)
