"""LangChain: a callback handler that reads every generation of any chat model.

`StopCallback` goes where LangChain takes callbacks — a model's `callbacks=[...]`, or
`config={"callbacks": [...]}` on any `invoke` / `stream` / `batch` of a chain — and reads the
`LLMResult` of each model call in `on_llm_end` with stopkit's LangChain adapter: one `Stop` per
generation (`n > 1`, a batch's prompts one call each), the same as
`stopkit.normalize_all(result)` gives. `on_stop` gets each; a reason in `raise_on` raises the
typed stopkit error (`TruncatedReply`, `FilteredReply`, ...) from the model call, so a chain
never goes on with a cut or refused reply.

A streamed call is read once, when LangChain ends it (its chunks merged): the chunks have
been yielded by then, and the error is raised from the stream's end. LangChain logs a
callback's exception at WARNING (`Error in StopCallback.on_llm_end callback`) before it
propagates. In an async call `on_stop` runs in the caller's thread, on its event loop (the
handler is `run_inline`), not in LangChain's executor.

Example:
    >>> model = ChatAnthropic(model="claude-sonnet-4-5",  # doctest: +SKIP
    ...     callbacks=[StopCallback(raise_on={"output_limit", "filtered"})])
    >>> model.invoke("Weather in Paris?")  # doctest: +SKIP
    Traceback (most recent call last):
    stopkit._errors.TruncatedReply: langchain reply stopped with output_limit (raw 'max_tokens')...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from uuid import UUID

from stopkit._normalize import normalize_all
from stopkit._stop import Stop, StopReason
from stopkit._wrap._report import Settings, read_raise_on
from stopkit.integrations._missing import missing

try:
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.outputs import LLMResult
except ImportError as exc:  # pragma: no cover - the message is tested, not this line
    raise missing("langchain", "langchain-core", "langchain") from exc

__all__ = ["StopCallback"]


class StopCallback(BaseCallbackHandler):
    """A LangChain callback handler that reads the `Stop` of every generation of a model call.

    `on_stop` is called with each `Stop`, in order; then, if a reason is in `raise_on`, the
    typed error of the first such `Stop` is raised from the call (as `stopkit.wrap` does).
    An exception `on_stop` raises propagates, with the result on `.stopkit_reply`.

    Raises:
        ValueError: a `raise_on` value that is not a `StopReason`.

    Example:
        >>> stops = []
        >>> callback = StopCallback(on_stop=stops.append)
        >>> model.invoke("Hi", config={"callbacks": [callback]})  # doctest: +SKIP
        >>> stops[0].reason  # doctest: +SKIP
        <StopReason.COMPLETED: 'completed'>
    """

    # LangChain logs and swallows a handler's exception unless it says `raise_error`; run inline,
    # an async call runs the handler in the caller's thread rather than in an executor's.
    raise_error = True
    run_inline = True

    def __init__(
        self,
        on_stop: Callable[[Stop], object] | None = None,
        raise_on: Iterable[StopReason | str] | StopReason | str = (),
    ) -> None:
        self._stopkit = Settings(on_stop, read_raise_on(raise_on))

    def on_llm_end(
        self,
        response: LLMResult,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """Read every generation of the call's result; report each `Stop`, raise per `raise_on`."""
        self._stopkit.report(normalize_all(response, adapter="langchain"), response)
