"""Running one tool call (`stopkit/loop/_runner.py`): what the model is sent for what a tool does.

A tool is the caller's code: it may return anything, raise anything, hang, or change the
arguments it was given. Whatever it does, its call gets exactly one result and the run goes on.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import pathlib
from typing import Any

import pydantic
import pytest

import stopkit
import stopkit.loop.events
from stopkit.testing import ScriptedModel
from tests.loop._fake import FAKE, USER, call, reply, run_in


def run_one(tool: Any, *, arun: bool = False, **settings: Any) -> stopkit.Outcome:
    """Run a loop whose model asks once for `tool`, then answers."""
    model = ScriptedModel([reply("tool_request", calls=[call("c", "t")]), reply("completed", "ok")])
    if arun:
        import asyncio

        loop = stopkit.arun_loop(model, [USER], adapter=FAKE, tools={"t": tool}, **settings)
        return asyncio.run(loop)
    return stopkit.run_loop(model, [USER], adapter=FAKE, tools={"t": tool}, **settings)


class Colour(enum.Enum):
    RED = "red"


class Point(pydantic.BaseModel):
    x: int
    seen: datetime.date


@dataclasses.dataclass
class Box:
    label: str
    size: tuple[int, int]


WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)

# What a tool returns -> the JSON text the model is sent.
VALUES = [
    (Point(x=1, seen=datetime.date(2026, 1, 2)), '{"x": 1, "seen": "2026-01-02"}'),
    (Box("b", (2, 3)), '{"label": "b", "size": [2, 3]}'),
    ({3}, "[3]"),
    ((1, "a"), '[1, "a"]'),
    (WHEN, '"2026-01-02T03:04:05Z"'),
    (pathlib.Path("/tmp/x"), '"/tmp/x"'),
    (Colour.RED, '"red"'),
    (b"bytes", '"bytes"'),
    ({"nested": [Colour.RED, {WHEN.date()}]}, '{"nested": ["red", ["2026-01-02"]]}'),
    ({"k": "é"}, '{"k": "é"}'),
    (None, "null"),
]


@pytest.mark.parametrize(
    ("value", "sent"), VALUES, ids=[f"{type(v).__name__}-{i}" for i, (v, _) in enumerate(VALUES)]
)
def test_return_values_are_sent_as_json(value: Any, sent: str) -> None:
    """Models, dataclasses, sets, tuples, datetimes, paths, enums and bytes become JSON."""
    outcome = run_one(lambda: value)
    result = outcome.tool_runs[0].result
    assert (result.content, result.is_error) == (sent, False)
    assert result.value is value  # the value itself is kept


class Opaque:
    def __str__(self) -> str:
        return "an opaque thing"


def cyclic() -> Any:
    value: list[Any] = []
    value.append(value)
    return value


def too_deep() -> Any:
    value: Any = []
    for _ in range(100_000):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "named"),
    [(Opaque(), "Opaque"), (b"\xff\xfe", "bytes"), (cyclic(), "list"), (too_deep(), "list"),
     ({("a", 1): 2}, "dict")],
    ids=["opaque object", "undecodable bytes", "cycle", "too deep", "tuple key"],
)  # fmt: skip
def test_a_value_that_cannot_be_encoded_is_an_error_result_naming_its_type(
    value: Any, named: str
) -> None:
    """A return value JSON cannot hold is an error result saying which type it was."""
    outcome = run_one(lambda: value)
    result = outcome.tool_runs[0].result
    assert result.is_error
    assert result.content.startswith(f"the tool returned a {named} that cannot be sent as JSON")
    assert outcome.termination is stopkit.Termination.COMPLETED


# --- what a tool raises -------------------------------------------------------------------------


class Custom(BaseException):
    """A BaseException subclass a library might raise."""


def raising(exc: BaseException) -> Any:
    def tool() -> None:
        raise exc

    return tool


@pytest.mark.parametrize("mode", ["run_loop", "arun_loop", "arun_loop async tool"])
@pytest.mark.parametrize(
    ("exc", "shown"),
    [(StopIteration(), "StopIteration"), (GeneratorExit(), "GeneratorExit"),
     (Custom("odd"), "Custom: odd"), (ValueError("v"), "ValueError: v")],
    ids=["StopIteration", "GeneratorExit", "BaseException subclass", "Exception"],
)  # fmt: skip
def test_anything_a_tool_raises_is_its_error_result(
    mode: str, exc: BaseException, shown: str
) -> None:
    """StopIteration, GeneratorExit, any BaseException but an interrupt: an error result."""
    events: list[Any] = []
    tool = raising(exc)
    if mode == "arun_loop async tool":

        async def tool() -> None:  # type: ignore[misc]
            raise exc

    model = ScriptedModel([reply("tool_request", calls=[call("c", "t")]), reply("completed", "ok")])
    outcome = run_in(mode, model, adapter=FAKE, tools={"t": tool}, on_event=events.append)
    result = outcome.tool_runs[0].result
    # An async tool's StopIteration is turned into a RuntimeError by Python itself (PEP 479).
    if mode.endswith("async tool") and shown == "StopIteration":
        shown = "RuntimeError: coroutine raised StopIteration"
    assert (result.is_error, result.content) == (True, shown)
    assert outcome.termination is stopkit.Termination.COMPLETED
    assert isinstance(events[-1], stopkit.loop.events.LoopEnded)


async def test_a_tool_raising_cancelled_error_does_not_cancel_the_run() -> None:
    """A tool's own CancelledError is its error result; nobody cancelled the run."""
    import asyncio

    async def gives_up() -> None:
        raise asyncio.CancelledError("upstream gave up")

    def sync_gives_up() -> None:
        raise asyncio.CancelledError("in a thread")

    model = ScriptedModel(
        [reply("tool_request", calls=[call("a", "t"), call("b", "s")]), reply("completed", "ok")]
    )
    outcome = await stopkit.arun_loop(
        model, [USER], adapter=FAKE, tools={"t": gives_up, "s": sync_gives_up}
    )
    assert outcome.termination is stopkit.Termination.COMPLETED
    assert [r.result.content for r in outcome.tool_runs] == [
        "CancelledError: upstream gave up", "CancelledError: in a thread"
    ]  # fmt: skip
    assert outcome.text == "ok"


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt(), SystemExit(3)], ids=type)
@pytest.mark.parametrize("mode", ["run_loop", "arun_loop", "arun_loop two calls"])
def test_an_interrupt_propagates_after_loop_ended_carries_the_outcome(
    interrupt: BaseException, mode: str
) -> None:
    """KeyboardInterrupt and SystemExit still propagate, once `LoopEnded` holds the outcome."""
    events: list[Any] = []
    calls = [call("a", "add", a=1, b=2), call("x", "stop")]
    if mode.endswith("two calls"):
        calls = [call("x", "stop"), call("a", "add", a=1, b=2)]
    model = ScriptedModel([reply("tool_request", "working", calls=calls), reply("completed")])
    settings: dict[str, Any] = {
        "adapter": FAKE,
        "tools": {"stop": raising(interrupt), "add": lambda a, b: a + b},
        "on_event": events.append,
    }
    with pytest.raises(type(interrupt)):
        run_in(mode, model, **settings)
    end = events[-1]
    assert isinstance(end, stopkit.loop.events.LoopEnded)
    assert end.termination is stopkit.Termination.CANCELLED
    assert end.outcome is not None
    answered = {m["call_id"]: m["content"] for m in end.outcome.messages if m["role"] == "tool"}
    assert set(answered) == {"a", "x"}  # every call of the turn answered: the transcript holds
    assert answered["x"].startswith("cancelled")
    assert end.outcome.text == "working"


# --- arguments ----------------------------------------------------------------------------------


def test_a_tool_gets_its_own_copy_of_the_arguments() -> None:
    """A tool that edits its arguments changes neither the call, the Stop nor what is sent back."""

    def messy(items: list[int], opts: dict[str, Any]) -> str:
        items.sort()
        opts.pop("keep")
        opts["added"] = True
        return "done"

    args = {"items": [3, 1, 2], "opts": {"keep": 1}}
    model = ScriptedModel(
        [reply("tool_request", calls=[{"id": "c", "name": "m", "args": args}]), reply("completed")]
    )
    outcome = stopkit.run_loop(model, [USER], adapter=FAKE, tools={"m": messy})
    expected = {"items": [3, 1, 2], "opts": {"keep": 1}}
    assert outcome.tool_runs[0].call.arguments == expected
    assert args == expected  # the reply itself, which the fake adapter sends back
    assert model.calls[1].messages[1]["reply"]["calls"][0]["args"] == expected


# --- threads and time ---------------------------------------------------------------------------


def test_hung_sync_tools_never_keep_the_process_alive() -> None:
    """After tools that never return time out in arun_loop, asyncio.run() and the process end."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import asyncio, threading, stopkit
        from stopkit.testing import ScriptedModel
        from tests.loop._fake import FAKE, USER, call, reply, run_in

        def hang(n):
            threading.Event().wait()  # forever

        calls = [call(f"c{i}", "hang", n=i) for i in range(3)]
        model = ScriptedModel([reply("tool_request", calls=calls), reply("completed", "ok")])
        outcome = asyncio.run(stopkit.arun_loop(
            model, [USER], adapter=FAKE, tools={"hang": hang}, tool_timeout=0.05))
        print(outcome.termination.value, [r.result.content for r in outcome.tool_runs])
        """
    )
    # The timeout only stops a hang from hanging the suite: a passing run ends at once.
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "completed " + str(["timed out after 0.05 s"] * 3)


async def test_hung_sync_tools_never_starve_a_later_run() -> None:
    """More hung tools than any thread pool holds: an instant tool in a later run still runs."""
    import os
    import threading

    release = threading.Event()
    hung = (os.cpu_count() or 1) + 5  # asyncio's default executor: min(32, cpus + 4) threads
    calls = [call(f"h{i}", "hang", n=i) for i in range(hung)]
    first = ScriptedModel([reply("tool_request", calls=calls), reply("completed", "ok")])
    try:
        outcome = await stopkit.arun_loop(
            first, [USER], adapter=FAKE, tools={"hang": lambda n: release.wait()},
            tool_timeout=0.05,
        )  # fmt: skip
        assert all(r.result.content.startswith("timed out") for r in outcome.tool_runs)
        later = ScriptedModel(
            [reply("tool_request", calls=[call("q", "quick")]), reply("completed")]
        )
        outcome = await stopkit.arun_loop(
            later, [USER], adapter=FAKE, tools={"quick": lambda: "ran"}, tool_timeout=10
        )
        assert outcome.tool_runs[0].result.content == "ran"
    finally:
        release.set()


async def test_the_timeout_counts_from_the_tools_start_and_no_result_is_dropped() -> None:
    """40 concurrent 0.2 s tools with a 1 s timeout: none waits for a thread, none times out."""
    import threading
    import time

    finished: list[str] = []
    lock = threading.Lock()

    def slow(tag: str) -> str:
        time.sleep(0.2)
        with lock:
            finished.append(tag)
        return tag

    calls = [call(f"c{i}", "slow", tag=f"c{i}") for i in range(40)]
    model = ScriptedModel([reply("tool_request", calls=calls), reply("completed", "ok")])
    outcome = await stopkit.arun_loop(
        model, [USER], adapter=FAKE, tools={"slow": slow}, tool_timeout=1
    )
    contents = [r.result.content for r in outcome.tool_runs]
    assert [c for c in contents if c.startswith("timed out")] == []
    assert sorted(contents) == sorted(finished) == sorted(f"c{i}" for i in range(40))


async def test_a_tool_ignoring_its_cancellation_cannot_hold_the_run_past_its_deadline() -> None:
    """At the deadline a stubborn async tool is cancelled and left: the run ends without it."""
    import asyncio

    release = asyncio.Event()
    finished: list[str] = []

    async def stubborn() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:  # swallowed: the tool goes on
            await asyncio.wait_for(release.wait(), 5)
            finished.append("after its cancellation")
        return "late"

    model = ScriptedModel([reply("tool_request", "working", calls=[call("s", "stubborn")]),
                           reply("completed", "never")])  # fmt: skip
    outcome = await stopkit.arun_loop(
        model, [USER], adapter=FAKE, tools={"stubborn": stubborn}, deadline=0.2
    )
    assert finished == []  # the run did not wait for it
    assert outcome.termination is stopkit.Termination.DEADLINE
    assert outcome.tool_runs[0].result.content.startswith("timed out after")
    release.set()
    while not finished:  # let it end before the event loop closes
        await asyncio.sleep(0.01)


def test_arguments_too_deep_to_copy_are_an_error_result() -> None:
    """With the nesting bound raised past Python's recursion limit, the copy cannot be made."""
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    model = ScriptedModel(
        [reply("tool_request", calls=[{"id": "c", "name": "t", "args": {"a": deep}}]),
         reply("completed")]
    )  # fmt: skip
    outcome = stopkit.run_loop(
        model, [USER], adapter=FAKE, tools={"t": lambda a: "ran"}, max_argument_depth=10**6
    )
    assert outcome.tool_runs[0].result.content == (
        "not run: the arguments are nested too deep to copy"
    )
