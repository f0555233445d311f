"""`stopkit.wrap`: a provider client whose every reply is normalized on the way out.

The wrapped client is a proxy: the methods that return model replies (`_routes`, or the ones
named with `methods=`) are watched, everything else is the client's own attribute. Return
values are exactly what the SDK returns (the same object; for streams, helper streams and raw
responses, a proxy of the SDK's object that `isinstance` still sees as the SDK's class; for
boto3's stream responses, the same dict holding the watched stream).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from stopkit._stop import Stop, StopReason
from stopkit._wrap._methods import merged, method_routes
from stopkit._wrap._proxy import Proxy
from stopkit._wrap._report import Settings, read_raise_on
from stopkit._wrap._routes import known_families, routes_of

__all__ = ["wrap"]

ClientT = TypeVar("ClientT")


def wrap(
    client: ClientT,
    *,
    on_stop: Callable[[Stop], object] | None = None,
    raise_on: Iterable[StopReason | str] | StopReason | str = (),
    methods: Mapping[str, str] | None = None,
) -> ClientT:
    """Return `client` with every reply normalized on the way out; return values are unchanged.

    Works with the clients people hold, sync and async (docs/wrap.md lists every family and
    call form): the official anthropic, openai and google-genai clients (`create`/`parse`,
    `stream=True`, the `.stream()` helpers, `with_raw_response`/`with_streaming_response`,
    `beta.*`, anthropic's `tool_runner`, genai `chats`), boto3's `bedrock-runtime`, mistralai,
    cohere, ollama, Groq, Together, Fireworks, Cerebras, huggingface_hub, xai_sdk, and the
    `litellm` module. For any other client, `methods` names the dotted methods that return
    replies and the adapter that reads each (`{"chat.complete": "openai.chat"}`); for a known
    client it adds to (or replaces) the watched ones. Each reply's `Stop` (one per choice when
    `n > 1`) goes to `on_stop`; then, if a reason is in `raise_on`, the typed error
    (`TruncatedReply`, `FilteredReply`, `PausedReply`, `UnknownStopReason`, all carrying
    `.stop`) is raised. A stream reports when it ends; closed or broken early, it reports
    `unknown`/`stream_incomplete` (never raised on when the caller closed it, its notes saying
    so; raised on when it ended short by itself);
    a stream dropped unread and never closed reports nothing. openai's `parse` helpers raise
    `LengthFinishReasonError`/`ContentFilterFinishReasonError` for a cut or filtered reply:
    `on_stop` hears of it first, and with its reason in `raise_on` the stopkit error is raised
    from the SDK's. An exception `on_stop` raises propagates with the reply on
    `.stopkit_reply` (and the `Stop` on `.stopkit_stop`). `on_stop` is called synchronously,
    also for async clients.

    Example:
        >>> client = stopkit.wrap(anthropic.Anthropic(),  # doctest: +SKIP
        ...     raise_on={"output_limit", "filtered"})
        >>> reply = client.messages.create(...)  # doctest: +SKIP
    """
    settings = Settings(on_stop, read_raise_on(raise_on), client)
    routes = routes_of(client)
    if methods is not None:
        routes = merged(routes or {}, method_routes(client, methods))
    if routes is None:
        kind = type(client)
        raise TypeError(
            f"stopkit.wrap() does not know {kind.__module__}.{kind.__qualname__}. It knows "
            f"{known_families()}. For another client, name the methods that return replies "
            "and the adapter that reads them: stopkit.wrap(client, methods={'chat.complete': "
            "'openai.chat'})."
        )
    proxy: Any = Proxy(client, routes, settings)
    return proxy  # type: ignore[no-any-return]
