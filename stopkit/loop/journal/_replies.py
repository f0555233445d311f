"""A model step's reply as the journal keeps it, and as a rerun gets it back.

A reply is kept as its JSON body (`{"reply": ...}`; an SDK object as its dump, a stream as its
events, `{"events": [...]}`), which every wire adapter reads as it reads the wire. The JSON of
some replies reads otherwise: a framework's objects (LangChain messages, pydantic-ai, LiteLLM
and OpenAI Agents responses) are recognized by their class, which their JSON does not carry,
and google-genai keeps a reply's extras under its Python names, not the wire's. Such a reply
is kept with its class (`"class"`: `with_class`; the events of a stream each with theirs,
`"classes"`: `events_with_classes`) and replayed as the object rebuilt from its JSON, by
pydantic (`model_validate`, or a `TypeAdapter` for a dataclass): `replayable`.

Which of the forms a step keeps is the loop's to decide (`stopkit/loop/_journaled.py`: the
form that reads back to the `Stop` the run saw). A class is rebuilt only when its top-level
package is already imported by the process (the app's own framework is): a journal never
makes a process import a package it did not use.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, TypeAdapter

from stopkit.loop.journal._codec import jsonable

__all__ = ["Unreplayable", "events_with_classes", "form_of", "replayable", "with_class"]


class Unreplayable(ValueError):
    """A recorded reply that cannot be replayed; the message says why (internal)."""


def _name(kind: type) -> str:
    """Name a class as the journal keeps it: `module:qualname`."""
    return f"{kind.__module__}:{kind.__qualname__}"


def _class(value: Any) -> str | None:
    """Name the class that rebuilds `value`, None when none can (a pydantic model, a dataclass)."""
    if isinstance(value, type):
        return None
    if isinstance(value, BaseModel) or dataclasses.is_dataclass(value):
        return _name(type(value))
    return None


def _form(name: str) -> str:
    """Name a kept class as Python writes it (`module.qualname`), for people."""
    return name.replace(":", ".")


def form_of(value: Any) -> str:
    """Name the form of a reply or an event for people: its class, as Python writes it.

    Example:
        >>> form_of({})
        'builtins.dict'
    """
    return _form(_name(type(value)))


def with_class(reply: Any) -> dict[str, Any] | None:
    """Return a whole reply kept with its class; None: no class rebuilds it."""
    name = _class(reply)
    return None if name is None else {"reply": jsonable(reply), "class": name}


def events_with_classes(events: Sequence[Any]) -> dict[str, Any] | None:
    """Return a stream's events, each with its class; None: none, or one no class rebuilds."""
    classes = [_class(event) for event in events]
    if not events or None in classes:
        return None
    return {"events": [jsonable(e) for e in events], "classes": classes}


def replayable(recorded: dict[str, Any]) -> dict[str, Any]:
    """Return a model step's result (checked: `_rows.py`) as the run replays it.

    `{"reply": ...}` or `{"events": [...]}`, the reply (or each event) rebuilt from its class
    where one was kept. Raises `Unreplayable` saying why a kept class cannot rebuild it here.

    Example:
        >>> replayable({"reply": {"type": "message"}})
        {'reply': {'type': 'message'}}
    """
    if "events" in recorded:
        events, classes = recorded["events"], recorded.get("classes")
        if classes is None:
            return {"events": events}
        pairs = zip(classes, events, strict=True)
        return {"events": [_rebuilt(name, event) for name, event in pairs]}
    name = recorded.get("class")
    return {"reply": recorded["reply"] if name is None else _rebuilt(name, recorded["reply"])}


def _rebuilt(name: str, data: Any) -> Any:
    """Return the object of class `name` (`module:qualname`) that `data` is the JSON of."""
    kind = _found(name)
    try:
        if issubclass(kind, BaseModel):
            return kind.model_validate(data)
        return _adapter_of(kind).validate_python(data)
    except Exception as exc:  # a validation error: the data is not this class's any more
        raise Unreplayable(f"it does not rebuild a {_form(name)} ({type(exc).__name__})") from None


def _found(name: str) -> type:
    """Return the class `name` names, from a package this process has imported already."""
    if ":" not in name:
        raise Unreplayable(f"its reply's class {name!r} is no class name")
    module, _, qualname = name.partition(":")
    if module.partition(".")[0] not in sys.modules:
        raise Unreplayable(
            f"its reply is a {_form(name)}, and this process has not imported "
            f"{module.partition('.')[0]!r} (import it, as the run that recorded it did)"
        )
    try:
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        raise Unreplayable(f"its reply's class {_form(name)} cannot be found") from None
    if not isinstance(found, type) or not (
        issubclass(found, BaseModel) or dataclasses.is_dataclass(found)
    ):
        raise Unreplayable(f"{_form(name)} is not a pydantic model nor a dataclass")
    return found


_VALIDATORS: dict[type, TypeAdapter[Any]] = {}


def _adapter_of(kind: type) -> TypeAdapter[Any]:
    """Return pydantic's validator of a dataclass (built once per class: building one costs)."""
    validator = _VALIDATORS.get(kind)
    if validator is None:
        validator = _VALIDATORS[kind] = TypeAdapter(kind)
    return validator
