"""Which adapters exist, in which order auto-detection tries them.

The built-in adapters are named here by module path and imported on first use, so that
`import stopkit` stays cheap. User adapters registered with `register_adapter` are tried first.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

from stopkit._adapter import Adapter
from stopkit._errors import AdapterNotFound

__all__ = [
    "Plan",
    "detection_plan",
    "get_adapter",
    "register_adapter",
    "registered_adapters",
    "unregister_adapter",
]

# Detection order: the most specific shapes first, the most common first where two cannot
# both claim a reply (Chat refuses `object: "response"`, which Responses requires). Chat
# (`choices`) before the shapes that also carry a top-level `message` (Ollama, Cohere).
_BUILTIN: dict[str, str] = {
    "anthropic": "stopkit.adapters.anthropic:AnthropicAdapter",
    # LiteLLM's replies are Chat-shaped objects: read by their class before Chat would claim
    # them. Never asked about a JSON body (empty detect_keys).
    "litellm": "stopkit.adapters.litellm:LiteLLMAdapter",
    # xai_sdk's objects, told by their class, before Chat: its `Chunk` has a `choices` property.
    # Their JSON holds `outputs` of `message`s or `delta`s (Mistral's InvokeModel `outputs`
    # hold `text` and `stop_reason`): a body without `outputs` skips it.
    "xai": "stopkit.adapters.xai:XAIAdapter",
    "openai.chat": "stopkit.adapters.openai_chat:OpenAIChatAdapter",
    "openai.responses": "stopkit.adapters.openai_responses:OpenAIResponsesAdapter",
    "gemini": "stopkit.adapters.gemini:GeminiAdapter",
    "bedrock": "stopkit.adapters.bedrock:BedrockAdapter",
    # The InvokeModel bodies of Titan, Llama, Mistral and Cohere Command: each holds its
    # family's key (`results`, `generation`, `outputs`, `generations`), no other adapter's.
    "bedrock.invoke": "stopkit.adapters.bedrock_invoke:BedrockInvokeAdapter",
    "cohere": "stopkit.adapters.cohere:CohereAdapter",
    "ollama": "stopkit.adapters.ollama:OllamaAdapter",
    # Older wire formats, last: no body the adapters above claim is theirs (legacy Completions
    # is refused by Chat; Cohere v1 has no `message`), so they never slow the common ones.
    "openai.completions": "stopkit.adapters.openai_completions:OpenAICompletionsAdapter",
    "cohere.v1": "stopkit.adapters.cohere_v1:CohereV1Adapter",
    # Framework objects, recognized by their class: no JSON body is ever theirs (empty
    # detect_keys), and no adapter above claims a LangChain object.
    "langchain": "stopkit.adapters.langchain:LangChainAdapter",
    # pydantic-ai's and the OpenAI Agents SDK's objects, recognized by their class the same way.
    "pydantic_ai": "stopkit.adapters.pydantic_ai:PydanticAIAdapter",
    "openai.agents": "stopkit.adapters.openai_agents:OpenAIAgentsAdapter",
}

Plan = tuple[tuple[Adapter, frozenset[str] | None], ...]
"""The adapters in detection order, each with its `detect_keys` (None: it may claim any body)."""

_lock = threading.RLock()
_user: list[Adapter] = []
_loaded: dict[str, Adapter] = {}
# Snapshots read by detection without taking the lock; replaced whole on every change.
_order: tuple[Adapter, ...] | None = None
_plan: Plan = ()


def _load(name: str) -> Adapter | None:
    if name in _loaded:
        return _loaded[name]
    module_name, _, attr = _BUILTIN[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:  # an adapter this checkout does not ship
            return None
        raise
    adapter: Adapter = getattr(module, attr)()
    _loaded[name] = adapter
    return adapter


def _rebuild() -> tuple[Adapter, ...]:
    """Recompute the detection order and its plan; the caller holds the lock."""
    global _order, _plan
    taken = {a.name for a in _user}
    builtins = (_load(name) for name in _BUILTIN if name not in taken)
    order = (*_user, *(a for a in builtins if a is not None))
    # The plan first: a reader that sees the new order finds the plan of that order.
    _plan = tuple((a, None if (keys := detect_keys(a)) is None else frozenset(keys)) for a in order)
    _order = order
    return order


def registered_adapters() -> tuple[Adapter, ...]:
    """Return every adapter in detection order: user-registered first, then the built-ins.

    Example:
        >>> import stopkit
        >>> [a.name for a in stopkit.registered_adapters()][:3]
        ['anthropic', 'litellm', 'xai']
    """
    order = _order
    if order is not None:
        return order
    with _lock:
        return _order if _order is not None else _rebuild()


def detection_plan() -> Plan:
    """Return the detection order with each adapter's `detect_keys` as a set (internal).

    A JSON body holding none of an adapter's keys is never offered to it: the keys are a
    necessary condition of its `detects` (pinned for the built-ins by tests/test_detect_keys.py).
    """
    if _order is None:  # built on first use
        registered_adapters()
    return _plan


def get_adapter(name: str | Adapter) -> Adapter:
    """Return the adapter registered under `name` (an adapter object is returned as is).

    Example:
        >>> import stopkit
        >>> stopkit.get_adapter("anthropic").name
        'anthropic'
    """
    if not isinstance(name, str):
        return name
    for adapter in registered_adapters():
        if adapter.name == name:
            return adapter
    raise AdapterNotFound(name, [a.name for a in registered_adapters()])


def detect_keys(adapter: Any) -> tuple[str, ...] | None:
    """Return an adapter's optional `detect_keys` as a tuple, checking its form (internal).

    Raises `TypeError` naming the adapter when it is not a collection of key names.
    """
    keys = getattr(adapter, "detect_keys", None)
    if keys is None:
        return None
    try:
        names = None if isinstance(keys, str | bytes) else tuple(keys)
    except TypeError:  # not iterable
        names = None
    if names is None or not all(isinstance(k, str) for k in names):
        raise TypeError(
            f"adapter {adapter.name!r}: detect_keys must be a collection of key names, "
            f"not {keys!r}"
        )
    return names


def register_adapter(adapter: Any, *, replace: bool = False) -> None:
    """Add a user adapter; auto-detection tries it before the built-ins. Thread-safe.

    Registering under a name already taken (a built-in's too) raises `ValueError` unless
    `replace=True`, which hides the adapter that had the name.

    Example:
        >>> stopkit.register_adapter(MyAdapter())  # doctest: +SKIP
    """
    for attribute in ("name", "detects", "normalize"):
        if not hasattr(adapter, attribute):
            raise TypeError(f"an adapter needs a {attribute!r} attribute; {adapter!r} has none")
    detect_keys(adapter)
    with _lock:
        if not replace and any(a.name == adapter.name for a in registered_adapters()):
            raise ValueError(f"an adapter named {adapter.name!r} is already registered")
        _user[:] = [adapter, *(a for a in _user if a.name != adapter.name)]
        _rebuild()


def unregister_adapter(name: str) -> None:
    """Remove a user adapter; a built-in it replaced comes back. Thread-safe."""
    with _lock:
        if not any(a.name == name for a in _user):
            raise AdapterNotFound(name, [a.name for a in _user])
        _user[:] = [a for a in _user if a.name != name]
        _rebuild()
