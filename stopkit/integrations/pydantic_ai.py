"""pydantic-ai: a model that reads every `ModelResponse` before the agent acts on it.

`StopkitModel(model)` wraps any pydantic-ai model (a `WrapperModel`): each response it passes
on, whole or streamed, is read with stopkit's pydantic-ai adapter (the same `Stop` as
`stopkit.normalize(response)`). `on_stop` gets the `Stop`; a reason in `raise_on` raises the
typed stopkit error (`TruncatedReply`, `FilteredReply`, ...) instead of handing the response
on, so an `Agent` never validates a cut or refused reply as its output.

Why a `WrapperModel` and not a capability hook (`AbstractCapability.after_model_request`): the
hook sees a streamed response only after the stream's consumer is done with it — in
`agent.run_stream(...)`, `get_output()` has already returned the cut text by then — while the
model's own `request_stream` is left before the run's output is produced, so the error comes
first (`tests/integrations/test_pydantic_ai.py` shows both). A model also works wherever a
model does: `Agent(model=...)`, `agent.run(model=...)`, `pydantic_ai.direct.model_request`,
inside a `FallbackModel`.

A streamed response is read once, at its end (`StreamedResponse.get()`): its text deltas have
reached the consumer by then, as a stream's do; one the consumer stopped reading is not read.

Example:
    >>> agent = Agent(StopkitModel("anthropic:claude-sonnet-4-5",  # doctest: +SKIP
    ...     raise_on={"output_limit", "filtered", "unknown"}))
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any

from stopkit._normalize import normalize
from stopkit._stop import Stop, StopReason
from stopkit._wrap._report import Settings, read_raise_on
from stopkit.integrations._missing import missing

try:
    from pydantic_ai import RunContext
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models import KnownModelName, Model, ModelRequestParameters, StreamedResponse
    from pydantic_ai.models.wrapper import WrapperModel
    from pydantic_ai.settings import ModelSettings
except ImportError as exc:  # pragma: no cover - the message is tested, not this line
    raise missing("pydantic_ai", "pydantic-ai", "pydantic-ai") from exc

__all__ = ["StopkitModel"]


class StopkitModel(WrapperModel):
    """A pydantic-ai model that reads the `Stop` of every response of the model it wraps.

    `model` is a model or a model name (`"openai:gpt-4o"`), as `Agent` takes one. `on_stop`
    is called with each response's `Stop`; then, if its reason is in `raise_on`, the typed
    error is raised from the request (as `stopkit.wrap` does). An exception `on_stop` raises
    propagates, with the response on `.stopkit_reply`.

    Raises:
        ValueError: a `raise_on` value that is not a `StopReason`.

    Example:
        >>> agent = Agent(StopkitModel(model, raise_on={"output_limit"}))  # doctest: +SKIP
        >>> agent.run_sync("Weather in Paris?")  # doctest: +SKIP
        Traceback (most recent call last):
        stopkit._errors.TruncatedReply: pydantic_ai reply stopped with output_limit ...
    """

    def __init__(
        self,
        model: Model | KnownModelName | str,
        *,
        on_stop: Callable[[Stop], object] | None = None,
        raise_on: Iterable[StopReason | str] | StopReason | str = (),
    ) -> None:
        super().__init__(model)
        self._stopkit = Settings(on_stop, read_raise_on(raise_on))

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Make the wrapped model's request; read its response before returning it."""
        response = await super().request(messages, model_settings, model_request_parameters)
        self._read(response)
        return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Stream the wrapped model's response; read it once the stream has been consumed."""
        async with super().request_stream(
            messages, model_settings, model_request_parameters, run_context
        ) as stream:
            yield stream
            self._read(stream.get())

    def _read(self, response: ModelResponse) -> None:
        self._stopkit.report((normalize(response, adapter="pydantic_ai"),), response)
