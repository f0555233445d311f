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

A tool call's timeout (`tool_timeout=`, the `deadline`) runs inside its step: a call past it
ends its step with the timeout, which is what a recovery replays (the tool is not run again,
and a result it gives later is not kept). The workflow id is the run id of one loop: a second
loop in the same workflow needs a `run_id=` of its own (stable across recoveries), else it is
refused (`JournalError`) before its first model call, so no two loops share idempotency keys.

Limits: DBOS runs a step at least once, so `stopkit.tool(idempotent=False)` cannot stop the
run as a journal does: give such a tool an `idempotency_key` parameter (stable across
recoveries). A stream is read to its end inside its step (the text deltas arrive then). In
`arun_loop` a sync tool's step starts on the event loop (it runs in DBOS's threads), so the
steps of a turn's calls are numbered in the calls' order, at every recovery too. Needs
`pip install 'stopkit[dbos]'`; DBOS is imported only when a call is made.

Example:
    >>> from dbos import DBOS  # doctest: +SKIP
    >>> from stopkit.loop.journal import dbos as durable  # doctest: +SKIP
    >>> @DBOS.workflow()  # doctest: +SKIP
    ... def support_agent(question: str) -> str:
    ...     return durable.run_loop(call_model, question, tools=TOOLS).text
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stopkit._errors import ModelCallError
from stopkit.loop.journal._errors import JournalError
from stopkit.loop.journal.dbos._steps import model_steps, tool_steps, workflow_dbos, workflow_steps

__all__ = ["arun_loop", "model_steps", "run_loop", "tool_steps"]


def _settings(call_model: Callable[..., Any], settings: dict[str, Any]) -> Callable[..., Any]:
    if settings.get("journal") is not None:
        raise ValueError("with DBOS, DBOS is the journal: pass no journal=")
    # The workflow's id is the run's: idempotency keys stay the same across recoveries.
    alone = not settings.get("run_id")
    settings["run_id"] = settings.get("run_id") or workflow_dbos().workflow_id
    settings["tools"] = tool_steps(settings.get("tools") or {})
    return workflow_steps(call_model, alone=alone)


def _journal_error(error: ModelCallError) -> JournalError | None:
    """Return the journal error a DBOS model step raised, which the loop wrapped, if it was one.

    DBOS is the journal here: a step that does not replay (`JournalMismatch`) or a loop that
    may not run is said as a journal says it, not as a failed model call. It is raised once
    the `ModelCallError` is handled, so that it carries no context pointing back at itself (a
    cycle of causes cannot be pickled, and DBOS pickles a workflow's error).
    """
    cause = error.__cause__
    return cause if isinstance(cause, JournalError) else None


def run_loop(call_model: Callable[..., Any], messages: Any, **settings: Any) -> Any:
    """`stopkit.run_loop` with each model call and tool call a DBOS step; call it in a workflow.

    Example:
        >>> @DBOS.workflow()  # doctest: +SKIP
        ... def agent(prompt: str) -> str:
        ...     return run_loop(call_model, prompt, tools=TOOLS).text
    """
    from stopkit.loop._driver import run_loop as plain

    model = _settings(call_model, settings)
    try:
        return plain(model, messages, **settings)
    except ModelCallError as exc:
        journal = _journal_error(exc)
        if journal is None:
            raise
    raise journal


async def arun_loop(call_model: Callable[..., Any], messages: Any, **settings: Any) -> Any:
    """`stopkit.arun_loop` with each model call and tool call a DBOS step, in an async workflow.

    Example:
        >>> @DBOS.workflow()  # doctest: +SKIP
        ... async def agent(prompt: str) -> str:
        ...     return (await arun_loop(call_model, prompt, tools=TOOLS)).text
    """
    from stopkit.loop._driver import arun_loop as plain

    model = _settings(call_model, settings)
    try:
        return await plain(model, messages, **settings)
    except ModelCallError as exc:
        journal = _journal_error(exc)
        if journal is None:
            raise
    raise journal
