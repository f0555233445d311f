"""What the framework adapters share: recognizing a framework's objects, and the wire tables.

A framework's objects are recognized by their class (`class_of`): its name and its module's,
found in the MRO, never by importing the framework.

A framework (LangChain, LiteLLM) keeps the provider's own stop value somewhere of its own; the
value is read with the table of the wire format it came from — the built-in adapter's table,
imported, never copied — under the framework adapter's name (`Stop.provider`) and the field's
title in the framework's words (`ChatAnthropic stop_reason`, `gemini native_finish_reason`). Where
the built-in adapter has value notes and provider steps they come along (OpenAI Chat's dialect
notes, the Responses API's `incomplete_details.reason`).

Example:
    >>> class_of({"choices": []}, "litellm.", frozenset({"ModelResponse"})) is None
    True
    >>> wrapped("anthropic", "langchain", "stop_reason").table["pause_turn"]
    (<StopReason.PAUSED: 'paused'>, 'server_tool_limit')
    >>> family("claude-sonnet-4-5")
    'anthropic'
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import Any

from stopkit.adapters._anthropic_rules import RULES as ANTHROPIC_RULES
from stopkit.adapters._bedrock_rules import RULES as BEDROCK_RULES
from stopkit.adapters._cohere_rules import RULES as COHERE_RULES
from stopkit.adapters._gemini_rules import RULES as GEMINI_RULES
from stopkit.adapters._ollama_rules import RULES as OLLAMA_RULES
from stopkit.adapters._openai_chat_rules import RULES as CHAT_RULES
from stopkit.adapters._openai_responses_rules import RULES as RESPONSES_RULES
from stopkit.adapters._rules import Rules

__all__ = ["BAD_CALLS", "WIRES", "class_of", "family", "wrapped"]

#: The built-in adapter's rules per wire format a framework may wrap (by the adapter's name).
WIRES: dict[str, Rules] = {
    "anthropic": ANTHROPIC_RULES,
    "openai.chat": CHAT_RULES,
    "openai.responses": RESPONSES_RULES,
    "gemini": GEMINI_RULES,
    "bedrock": BEDROCK_RULES,
    "ollama": OLLAMA_RULES,
    "cohere": COHERE_RULES,
}

#: Every wire format's stop values that say the calls themselves are bad, with what each says:
#: for a framework whose own rules decide a value read with another wire format's table.
BAD_CALLS: dict[str, str] = {
    value: meaning for rules in WIRES.values() for value, meaning in rules.bad_calls.items()
}


def wrapped(wire: str, provider: str, title: str) -> Rules:
    """Return the rules of the built-in wire format `wire`, as the adapter `provider` applies them.

    Example:
        >>> wrapped("ollama", "langchain", "done_reason (ChatOllama)").provider
        'langchain'
    """
    return replace(WIRES[wire], provider=provider, title=title)


# Model families whose name says which wire format they speak, whoever serves them.
_FAMILIES = (("claude", "anthropic"), ("gemini", "gemini"))


def family(model: Any) -> str | None:
    """Name the wire format a model's name says it speaks (`claude-*`, `gemini-*`), or None.

    A `provider/model` name (LiteLLM's, Vertex AI's `models/...`) is read by its last part.

    Example:
        >>> (family("models/gemini-2.5-flash"), family("gpt-4o"))
        ('gemini', None)
    """
    if type(model) is not str:
        return None
    name = model.rsplit("/", 1)[-1].lower()
    for prefix, wire in _FAMILIES:
        if name.startswith(prefix):
            return wire
    return None


_UNSEEN: Any = object()
# (class, package) -> the framework class it is, or None; bounded like `_wire`'s cache.
_CLASSES: dict[tuple[type, str], str | None] = {}


def class_of(obj: Any, package: str, names: Collection[str]) -> str | None:
    """Name the class of `package` (a module prefix, `"litellm."`) that `obj` is an instance of.

    The first class in `obj`'s MRO whose name is one of `names` and whose module is under
    `package`; None for anything else. The answer is kept per class.

    Example:
        >>> class_of(3, "langchain_core.", {"AIMessage"}) is None
        True
    """
    key = (type(obj), package)
    found = _CLASSES.get(key, _UNSEEN)
    if found is _UNSEEN:
        found = next(
            (
                klass.__name__
                for klass in key[0].__mro__
                if klass.__name__ in names and klass.__module__.startswith(package)
            ),
            None,
        )
        if len(_CLASSES) < 1024:
            _CLASSES[key] = found
    name: str | None = found
    return name
