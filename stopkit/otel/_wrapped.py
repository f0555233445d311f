"""A wrapped client's model call (`stopkit.wrap`): its own span, or a part of the loop's call.

What only the request shows is read from the SDK method's keywords: the model, the output
ceiling (`max_tokens`; Chat's `max_completion_tokens`; Responses' `max_output_tokens`;
google-genai's `config.max_output_tokens`), and for google-genai which backend the client
talks to (`gcp.vertex_ai` or `gcp.gemini`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stopkit._stop import Stop
from stopkit.adapters._wire import wire
from stopkit.otel._call import ModelCall, claim
from stopkit.otel._telemetry import Telemetry, safe

__all__ = ["WrappedCall", "provider_of", "request_facts"]

# Where each SDK method takes the output ceiling (anthropic, openai chat: max_tokens or
# max_completion_tokens, openai responses: max_output_tokens).
_CEILINGS = ("max_tokens", "max_completion_tokens", "max_output_tokens")


def request_facts(kwargs: Mapping[str, Any]) -> tuple[Any, Any]:
    """Return the request's model and output ceiling, as its keywords say them.

    Example:
        >>> request_facts({"model": "gpt-4o", "max_completion_tokens": 64})
        ('gpt-4o', 64)
    """
    # Only an int is a ceiling: an SDK's sentinel for a keyword left out (openai's NOT_GIVEN,
    # `omit`) must not hide the ceiling given under another name.
    config = wire(kwargs.get("config"))  # google-genai: a dict or GenerateContentConfig
    given = [kwargs.get(k) for k in _CEILINGS]
    given += [config.get("max_output_tokens"), config.get("maxOutputTokens")]
    ceiling = next((value for value in given if type(value) is int), None)
    return kwargs.get("model"), ceiling


def provider_of(adapter: str, client: Any) -> str | None:
    """Return the `gen_ai.provider.name` a client's own settings tell (google's backend), else None.

    Example:
        >>> provider_of("anthropic", object()) is None
        True
    """
    if adapter != "gemini":
        return None
    vertex = getattr(client, "vertexai", None)  # genai.Client; an AsyncClient keeps its own
    if vertex is None:
        vertex = getattr(getattr(client, "_api_client", None), "vertexai", None)
    return "gcp.vertex_ai" if vertex else "gcp.gemini"


class WrappedCall:
    """One watched call: a span of its own, or (inside a loop's model call) that call's facts."""

    __slots__ = ("call",)

    def __init__(
        self,
        telemetry: Telemetry,
        adapter: str,
        kwargs: Mapping[str, Any],
        client: Any,
        start_ns: int | None,
    ) -> None:
        model, ceiling = request_facts(kwargs)
        provider = provider_of(adapter, client)
        in_loop = claim()
        self.call: ModelCall | None = None
        if in_loop is not None:  # the loop's span is this call's: add the request's facts
            in_loop.request(model, ceiling, provider)
        else:
            self.call = ModelCall(
                telemetry, None, adapter, model, ceiling, provider=provider, start_ns=start_ns
            )

    @safe
    def returned(self) -> None:
        if self.call is not None:
            self.call.release()

    @safe
    def replied(
        self, stops: Sequence[Stop], streamed: bool, error: BaseException | None = None
    ) -> None:
        call, self.call = self.call, None
        if call is not None and stops:
            call.replied(stops, streamed, error)

    @safe
    def failed(self, error: BaseException) -> None:
        call, self.call = self.call, None
        if call is not None:
            call.failed(error)

    @safe
    def unread(self, end_ns: int) -> None:
        call, self.call = self.call, None
        if call is not None:
            call.unread(end_ns)
