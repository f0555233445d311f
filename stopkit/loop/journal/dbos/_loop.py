"""The loops of a DBOS workflow: `run_loop` and `arun_loop` with their steps as DBOS steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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


def run_loop(call_model: Callable[..., Any], messages: Any, **settings: Any) -> Any:
    """`stopkit.run_loop` with each model call and tool call a DBOS step; call it in a workflow.

    Example:
        >>> @DBOS.workflow()  # doctest: +SKIP
        ... def agent(prompt: str) -> str:
        ...     return run_loop(call_model, prompt, tools=TOOLS).text
    """
    from stopkit.loop._driver import run_loop as plain

    model = _settings(call_model, settings)  # before `settings` is passed on: it fills them
    return plain(model, messages, **settings)


async def arun_loop(call_model: Callable[..., Any], messages: Any, **settings: Any) -> Any:
    """`stopkit.arun_loop` with each model call and tool call a DBOS step, in an async workflow.

    Example:
        >>> @DBOS.workflow()  # doctest: +SKIP
        ... async def agent(prompt: str) -> str:
        ...     return (await arun_loop(call_model, prompt, tools=TOOLS)).text
    """
    from stopkit.loop._driver import arun_loop as plain

    model = _settings(call_model, settings)  # before `settings` is passed on: it fills them
    return await plain(model, messages, **settings)
