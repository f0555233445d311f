"""OpenAI Agents SDK: run hooks that read every model response of a `Runner` run.

`StopHooks` is a `RunHooks`: passed as `Runner.run(agent, input, hooks=StopHooks(...))` (or
`run_sync`, `run_streamed`), its `on_llm_end` reads each `agents.items.ModelResponse` with
stopkit's OpenAI Agents adapter (the same `Stop` as `stopkit.normalize(response)`). `on_stop`
gets the `Stop`; a reason in `raise_on` raises the typed stopkit error there, which ends the
run with it.

A `ModelResponse` keeps the Responses API's output items and no status, so the `Stop` is read
from its items (a refusal is `filtered`, a pending function call a `tool_request`, no item at
all `unknown`), with a note saying so; the SDK's OpenAI models raise for an `incomplete` or
`failed` response themselves. To add hooks of your own, subclass `StopHooks` and call
`super().on_llm_end(...)` from yours.

Example:
    >>> await Runner.run(agent, "Weather in Paris?",  # doctest: +SKIP
    ...     hooks=StopHooks(raise_on={"filtered", "unknown"}))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from stopkit._normalize import normalize
from stopkit._stop import Stop, StopReason
from stopkit._wrap._report import Settings, read_raise_on
from stopkit.integrations._missing import missing

try:
    from agents import Agent, RunContextWrapper, RunHooks
    from agents.items import ModelResponse
except ImportError as exc:  # pragma: no cover - the message is tested, not this line
    raise missing("openai_agents", "openai-agents", "openai-agents") from exc

__all__ = ["StopHooks"]


class StopHooks(RunHooks[Any]):
    """Run hooks that read the `Stop` of every model response of an Agents SDK run.

    `on_stop` is called with each response's `Stop`; then, if its reason is in `raise_on`,
    the typed error is raised from `on_llm_end`, ending the run (as `stopkit.wrap` raises).
    An exception `on_stop` raises propagates, with the response on `.stopkit_reply`.

    Raises:
        ValueError: a `raise_on` value that is not a `StopReason`.

    Example:
        >>> stops = []
        >>> await Runner.run(agent, "Hi", hooks=StopHooks(on_stop=stops.append))  # doctest: +SKIP
        >>> stops[-1].reason  # doctest: +SKIP
        <StopReason.COMPLETED: 'completed'>
    """

    def __init__(
        self,
        on_stop: Callable[[Stop], object] | None = None,
        raise_on: Iterable[StopReason | str] | StopReason | str = (),
    ) -> None:
        self._stopkit = Settings(on_stop, read_raise_on(raise_on))

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        """Read the model response; report its `Stop`, raise per `raise_on`."""
        self._stopkit.report((normalize(response, adapter="openai.agents"),), response)
