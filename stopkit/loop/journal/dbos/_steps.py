"""DBOS steps: a model call (`model_steps`) and a tool call (`tool_steps`) each as a DBOS step.

A model step returns what a journal would record of the reply (`stopkit/loop/_journaled.py`:
its JSON, else its JSON with its class; a stream as its events, each so) beside its request's
digest, and the loop is handed that record, rebuilt (`journal/_replies.py`), live and on
recovery alike: so every reply form reads to the same `Stop` both times, or is refused
(`JournalError` naming its form) inside the step, before DBOS keeps a reply for it. The
request is checked on recovery (`JournalMismatch` naming the step when the prompt or the code
changed). A tool step returns what the tool returned (DBOS pickles it) or raises what it
raised, its timeout (the loop's) inside the step. DBOS is imported only when a call is made.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from stopkit._adapter import Adapter
from stopkit._errors import UnsupportedReply
from stopkit.loop._journaled import kept_json, recordable
from stopkit.loop._runner import await_tool, is_async_callable
from stopkit.loop._streams import (
    Streamed,
    aread_stream,
    is_async_stream,
    is_sync_stream,
    read_reply,
    read_stream,
    reader,
)
from stopkit.loop._threads import call_in_thread
from stopkit.loop._tool import keep_time
from stopkit.loop.journal._codec import digest, model_request
from stopkit.loop.journal._errors import JournalError, JournalMismatch
from stopkit.loop.journal._names import current_step
from stopkit.loop.journal._replies import Unreplayable, replayable

__all__ = ["model_steps", "tool_steps", "workflow_dbos", "workflow_steps"]


def workflow_dbos() -> Any:
    """Return DBOS, refusing a call outside a DBOS workflow (or without DBOS installed)."""
    try:
        from dbos import DBOS
    except ImportError:
        raise ImportError("stopkit's DBOS steps need DBOS: pip install 'stopkit[dbos]'") from None
    if DBOS.workflow_id is None:
        raise JournalError("stopkit's DBOS steps run inside a DBOS workflow (@DBOS.workflow())")
    return DBOS


def _checked(recorded: dict[str, Any], name: str, request: str) -> Any:
    """Return the reply a model step recorded, as the loop reads it: rebuilt, where kept so.

    The reply (a JSON body, or the object of the class it was kept with), or a stream's list of
    events. Raises `JournalMismatch` when the request differs from the recorded one.
    """
    if recorded["request"] != request:
        raise JournalMismatch(
            name,
            "the request differs from the one DBOS recorded: the prompt, the transcript, the "
            "overrides or the code that builds them changed",
            recorded["request"],
            request,
        )
    try:
        replay = replayable(recorded)
    except Unreplayable as exc:  # a class this process has not imported, or that changed
        raise JournalError(f"DBOS's checkpoint of step {name} does not replay: {exc}") from None
    events = replay.get("events")
    return events if events is not None else replay["reply"]


def _kept(reply: Any, adapter: Adapter | None) -> dict[str, Any]:
    """What a model step returns to DBOS of a reply: what a journal would record of it.

    The reply is read as the run will read it, with `adapter` (a stream to its end here, its
    events kept), and kept in the form that reads back to that `Stop` (`recordable`), else
    refused with `JournalError`. A reply stopkit cannot read is kept as its JSON: the run
    ends `unknown` on it, live and on recovery alike.
    """
    if type(reply) is not Streamed and is_sync_stream(reply):
        reply = read_stream(reply, adapter, None, keep=True)
    if type(reply) is Streamed:
        stop = reply.stop
    else:
        try:
            stop = read_reply(reply, adapter)[1]
        except UnsupportedReply:
            stop = None
    return kept_json(reply) if stop is None else recordable(reply, stop, adapter)


def model_steps(call_model: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap `call_model` so that each call is the DBOS step `model_call_<turn>`.

    In a workflow, with `tool_steps`; give the loop a `run_id=` that every recovery repeats
    (its tools' idempotency keys start with it: a tool step taking one is refused without).
    `stopkit.loop.journal.dbos.run_loop` does all of it.

    Example:
        >>> stopkit.run_loop(model_steps(call_model), prompt, tools=tool_steps(TOOLS),
        ...                  run_id=DBOS.workflow_id)  # doctest: +SKIP
    """
    return workflow_steps(call_model, alone=False)


def _second_loop(steps: list[Any], mine: int, workflow_id: str) -> JournalError | None:
    """Say why this loop, whose first model step is `mine`, may not take the workflow's id."""
    if any(s["function_id"] < mine and s["function_name"].startswith("model_call") for s in steps):
        return JournalError(
            f"workflow {workflow_id!r} runs a second stopkit loop: the workflow id is the run "
            "id of its first, and its tools' idempotency keys; give each further loop a "
            "run_id= of its own, the same at every recovery (f'{DBOS.workflow_id}/refund')"
        )
    return None


def workflow_steps(call_model: Callable[..., Any], *, alone: bool) -> Callable[..., Any]:
    """`model_steps`; `alone`: the loop takes the workflow's id, which no other loop may have.

    Whether another loop ran before is asked in the loop's first model step, where DBOS tells
    the step's place in the workflow, and the refusal is then that step's checkpoint: a
    recovery refuses the same loop, and a workflow recorded before this check replays as it
    was recorded (no DBOS operation was added).
    """
    first = [alone]

    def checks() -> bool:
        check, first[0] = first[0], False
        return check

    if is_async_callable(call_model):

        async def acall(messages: Sequence[Any], **overrides: Any) -> Any:
            dbos = workflow_dbos()
            name = current_step() or "model_call"
            request = model_request(digest(messages), overrides)
            check, adapter = checks(), reader()

            async def step() -> dict[str, Any]:
                if check:
                    steps = await dbos.list_workflow_steps_async(
                        dbos.workflow_id, load_output=False
                    )
                    refused = _second_loop(steps, dbos.step_id, dbos.workflow_id)
                    if refused is not None:
                        raise refused
                reply = await call_model(messages, **overrides)
                if is_async_stream(reply):
                    reply = await aread_stream(reply, adapter, None, keep=True)
                return {"request": request, **_kept(reply, adapter)}

            return _checked(await dbos.run_step_async({"name": name}, step), name, request)

        return acall

    def call(messages: Sequence[Any], **overrides: Any) -> Any:
        dbos = workflow_dbos()
        name = current_step() or "model_call"
        request = model_request(digest(messages), overrides)
        check, adapter = checks(), reader()

        def step() -> dict[str, Any]:
            if check:
                steps = dbos.list_workflow_steps(dbos.workflow_id, load_output=False)
                refused = _second_loop(steps, dbos.step_id, dbos.workflow_id)
                if refused is not None:
                    raise refused
            return {"request": request, **_kept(call_model(messages, **overrides), adapter)}

        return _checked(dbos.run_step({"name": name}, step), name, request)

    return call


def _tool_step(name: str, tool: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap `tool` so that each call is a DBOS step, its timeout (the loop's) inside the step.

    A call that outlasts its timeout ends its step with `TimedOut`: that is what DBOS keeps,
    and what a recovery replays (what the run saw), not what the tool returns after it.
    """
    if is_async_callable(tool):

        async def within_async(timeout: float | None, **arguments: Any) -> Any:
            ok, value = await await_tool(lambda: tool(**arguments), timeout)
            if ok:
                return value
            raise value

        async def timed_async(timeout: float | None, **arguments: Any) -> Any:
            step = {"name": current_step() or name}
            return await workflow_dbos().run_step_async(step, within_async, timeout, **arguments)

        @functools.wraps(tool)
        async def astep(**arguments: Any) -> Any:
            return await timed_async(None, **arguments)

        keep_time(astep, timed_async)
        return astep

    def within(timeout: float | None, **arguments: Any) -> Any:
        if timeout is None:
            return tool(**arguments)
        ok, value = call_in_thread(lambda: tool(**arguments), timeout)
        if ok:
            return value
        raise value

    def timed(timeout: float | None, **arguments: Any) -> Any:
        step = {"name": current_step() or name}
        return workflow_dbos().run_step(step, within, timeout, **arguments)

    async def atimed(timeout: float | None, **arguments: Any) -> Any:
        # Started on the event loop, not in a thread: DBOS numbers a step when it starts, so
        # the steps of a turn's calls keep the order of the calls at every recovery.
        step = {"name": current_step() or name}
        return await workflow_dbos().run_step_async(step, within, timeout, **arguments)

    @functools.wraps(tool)
    def step(**arguments: Any) -> Any:
        return timed(None, **arguments)

    keep_time(step, timed, atimed)
    return step


def tool_steps(tools: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """Wrap each tool so that each call is the DBOS step `tool_call_<turn>_<slot>`.

    The wrappers keep the tools' signatures and marks (`stopkit.tool`, `idempotency_key`). A
    tool taking an `idempotency_key` needs the loop's `run_id=`, the same at every recovery:
    a run without one is refused (`ValueError`), as its made-up id would change the key.

    Example:
        >>> loop = stopkit.Loop(model_steps(call_model), tools=tool_steps(TOOLS),
        ...                     run_id=DBOS.workflow_id)  # doctest: +SKIP
    """
    return {name: _tool_step(name, tool) for name, tool in tools.items()}
