"""DBOS: the loop's model calls and tool calls as DBOS steps inside a DBOS workflow.

For those who already run DBOS (it checkpoints to SQLite or PostgreSQL): call
`stopkit.loop.journal.dbos.run_loop` (or `arun_loop`) inside a `@DBOS.workflow()`. Each model
call runs as the DBOS step `model_call_<turn>` and each tool call as `tool_call_<turn>_<slot>`
(the loop's own step names, `current_step()`); DBOS records what each returned. When DBOS
recovers the workflow after a crash, it runs the workflow function again: the loop drives the
same steps in the same order, and DBOS answers each finished one from its checkpoint, so only
the unfinished work runs. DBOS is the journal here (no `journal=`; the workflow id is the
run id): a model step returns the reply's JSON body (the loop reads it as it reads any reply)
beside its request's digest, checked on recovery (`JournalMismatch` naming the step when the
prompt or the code changed); a tool step returns what the tool returned (DBOS pickles it) or
raises what it raised.

Limits: DBOS runs a step at least once, so `stopkit.tool(idempotent=False)` cannot stop the
run as a journal does: give such a tool an `idempotency_key` parameter (stable across
recoveries). A stream is read to its end inside its step (the text deltas arrive then). In
`arun_loop`, give async tools: sync ones run in threads, and DBOS numbers steps in the order
they start. Needs `pip install 'stopkit[dbos]'`; DBOS is imported only when a call is made.

Example:
    >>> from dbos import DBOS  # doctest: +SKIP
    >>> from stopkit.loop.journal import dbos as durable  # doctest: +SKIP
    >>> @DBOS.workflow()  # doctest: +SKIP
    ... def support_agent(question: str) -> str:
    ...     return durable.run_loop(call_model, question, tools=TOOLS).text
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from stopkit._errors import JournalError, JournalMismatch
from stopkit.loop._runner import is_async_callable
from stopkit.loop._streams import is_async_stream, is_sync_stream
from stopkit.loop.journal._codec import digest, jsonable, model_request, reply_json
from stopkit.loop.journal._names import current_step

__all__ = ["arun_loop", "model_steps", "run_loop", "tool_steps"]


def _dbos() -> Any:
    try:
        from dbos import DBOS
    except ImportError:
        raise ImportError("stopkit's DBOS steps need DBOS: pip install 'stopkit[dbos]'") from None
    if DBOS.workflow_id is None:
        raise JournalError("stopkit's DBOS steps run inside a DBOS workflow (@DBOS.workflow())")
    return DBOS


def _checked(recorded: dict[str, Any], name: str, request: str) -> Any:
    """Return the reply a model step recorded (a JSON body, or a list of events)."""
    if recorded["request"] != request:
        raise JournalMismatch(
            name,
            "the request differs from the one DBOS recorded: the prompt, the transcript, the "
            "overrides or the code that builds them changed",
            recorded["request"],
            request,
        )
    events = recorded.get("events")
    return events if events is not None else recorded["reply"]


def _kept(reply: Any) -> dict[str, Any]:
    """What a model step returns to DBOS: the reply as JSON, a stream as its JSON events."""
    if is_sync_stream(reply) and not hasattr(reply, "__iter__"):  # a stream manager
        with reply as entered:
            return _kept(entered)
    if is_sync_stream(reply):
        try:
            return {"events": [jsonable(event) for event in reply]}
        finally:
            close = getattr(reply, "close", None)
            if callable(close):
                close()
    return dict(reply_json(reply))


def model_steps(call_model: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap `call_model` so that each call is the DBOS step `model_call_<turn>`.

    Example:
        >>> stopkit.run_loop(model_steps(call_model), prompt)  # doctest: +SKIP
    """
    if is_async_callable(call_model):

        async def acall(messages: Sequence[Any], **overrides: Any) -> Any:
            dbos = _dbos()
            name = current_step() or "model_call"
            request = model_request(digest(messages), overrides)

            async def step() -> dict[str, Any]:
                reply = await call_model(messages, **overrides)
                if is_async_stream(reply):
                    if not hasattr(reply, "__aiter__"):
                        async with reply as entered:
                            reply = [event async for event in entered]
                    else:
                        reply = [event async for event in reply]
                    return {"request": request, "events": [jsonable(e) for e in reply]}
                return {"request": request, **_kept(reply)}

            return _checked(await dbos.run_step_async({"name": name}, step), name, request)

        return acall

    def call(messages: Sequence[Any], **overrides: Any) -> Any:
        dbos = _dbos()
        name = current_step() or "model_call"
        request = model_request(digest(messages), overrides)

        def step() -> dict[str, Any]:
            return {"request": request, **_kept(call_model(messages, **overrides))}

        return _checked(dbos.run_step({"name": name}, step), name, request)

    return call


def _tool_step(name: str, tool: Callable[..., Any]) -> Callable[..., Any]:
    if is_async_callable(tool):

        @functools.wraps(tool)
        async def astep(**arguments: Any) -> Any:
            step = {"name": current_step() or name}
            return await _dbos().run_step_async(step, tool, **arguments)

        return astep

    @functools.wraps(tool)
    def step(**arguments: Any) -> Any:
        return _dbos().run_step({"name": current_step() or name}, tool, **arguments)

    return step


def tool_steps(tools: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """Wrap each tool so that each call is the DBOS step `tool_call_<turn>_<slot>`.

    The wrappers keep the tools' signatures and marks (`stopkit.tool`, `idempotency_key`).

    Example:
        >>> loop = stopkit.Loop(model_steps(call_model), tools=tool_steps(TOOLS))  # doctest: +SKIP
    """
    return {name: _tool_step(name, tool) for name, tool in tools.items()}


def _settings(call_model: Callable[..., Any], settings: dict[str, Any]) -> Callable[..., Any]:
    if settings.get("journal") is not None:
        raise ValueError("with DBOS, DBOS is the journal: pass no journal=")
    # The workflow's id is the run's: idempotency keys stay the same across recoveries.
    settings["run_id"] = settings.get("run_id") or _dbos().workflow_id
    settings["tools"] = tool_steps(settings.get("tools") or {})
    return model_steps(call_model)


def run_loop(call_model: Callable[..., Any], messages: Any, **settings: Any) -> Any:
    """`stopkit.run_loop` with each model call and tool call a DBOS step; call it in a workflow.

    Example:
        >>> @DBOS.workflow()  # doctest: +SKIP
        ... def agent(prompt: str) -> str:
        ...     return run_loop(call_model, prompt, tools=TOOLS).text
    """
    from stopkit.loop._driver import run_loop as plain

    model = _settings(call_model, settings)
    return plain(model, messages, **settings)


async def arun_loop(call_model: Callable[..., Any], messages: Any, **settings: Any) -> Any:
    """`stopkit.arun_loop` with each model call and tool call a DBOS step, in an async workflow.

    Example:
        >>> @DBOS.workflow()  # doctest: +SKIP
        ... async def agent(prompt: str) -> str:
        ...     return (await arun_loop(call_model, prompt, tools=TOOLS)).text
    """
    from stopkit.loop._driver import arun_loop as plain

    model = _settings(call_model, settings)
    return await plain(model, messages, **settings)
