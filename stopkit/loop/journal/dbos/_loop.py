"""The loops of a DBOS workflow: `run_loop` and `arun_loop` with their steps as DBOS steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stopkit._errors import ModelCallError
from stopkit.loop.journal._errors import JournalError
from stopkit.loop.journal.dbos._steps import tool_steps, workflow_dbos, workflow_steps

__all__ = ["arun_loop", "run_loop"]


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
