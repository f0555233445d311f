"""The two shells (`stopkit/loop/_driver.py`): how `run_loop` and `arun_loop` make model calls."""

from __future__ import annotations

import asyncio
import gc
import threading
from typing import Any

import pytest

import stopkit
import stopkit.loop.events
from tests.loop._fake import FAKE, USER, call, reply, run_in


async def test_a_sync_call_model_in_arun_loop_runs_in_a_worker_thread() -> None:
    """`arun_loop` with a sync `call_model` calls it in a thread: the event loop goes on."""
    loop_thread = threading.current_thread()
    ticked = threading.Event()
    threads: list[threading.Thread] = []

    def call_model(messages: Any, **overrides: Any) -> Any:
        threads.append(threading.current_thread())
        if not ticked.wait(10):  # set by a task on the event loop: it must be running
            raise AssertionError("the event loop was blocked by call_model")
        return reply("completed", "ok")

    async def tick() -> None:
        await asyncio.sleep(0.01)
        ticked.set()

    ticker = asyncio.create_task(tick())
    outcome = await stopkit.arun_loop(call_model, [USER], adapter=FAKE)
    await ticker
    assert outcome.text == "ok"
    assert threads
    assert loop_thread not in threads


async def test_a_sync_call_model_raising_in_its_thread_is_a_model_call_error() -> None:
    """What a sync `call_model` raises in its thread reaches the run: here a ModelCallError."""

    def call_model(messages: Any, **overrides: Any) -> Any:
        raise StopIteration  # delivered as a value: a thread's future could not carry it

    with pytest.raises(stopkit.ModelCallError) as caught:
        await asyncio.wait_for(stopkit.arun_loop(call_model, [USER], adapter=FAKE), 30)
    assert isinstance(caught.value.__cause__, StopIteration)


@pytest.mark.parametrize("mode", ["run_loop", "arun_loop"])
def test_an_interrupt_in_call_model_propagates_after_loop_ended(mode: str) -> None:
    """A KeyboardInterrupt in `call_model` ends the run (`cancelled`, reported), then propagates."""
    events: list[Any] = []
    calls: list[int] = []

    def call_model(messages: Any, **overrides: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return reply("tool_request", "working", calls=[call("c", a=1, b=2)])

    settings: dict[str, Any] = {
        "adapter": FAKE,
        "tools": {"add": lambda a, b: a + b},
        "on_event": events.append,
    }
    with pytest.raises(KeyboardInterrupt):
        run_in(mode, call_model, **settings)
    # asyncio keeps a KeyboardInterrupt raised inside a task on the task, unretrieved; freed
    # later (inside another test's ast.parse, say) it logs a traceback, and on 3.11 that
    # re-entrant formatting breaks the parser. Free it here, where nothing else runs.
    gc.collect()
    end = events[-1]
    assert isinstance(end, stopkit.loop.events.LoopEnded)
    assert end.termination is stopkit.Termination.CANCELLED
    assert end.outcome is not None
    assert end.outcome.text == "working"
    assert [m.get("role") for m in end.outcome.messages] == ["user", "assistant", "tool"]
