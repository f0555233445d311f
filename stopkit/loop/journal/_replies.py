"""A model step's reply as the journal keeps it: read back to the same `Stop`, or refused.

A reply is kept as its JSON body (`{"reply": ...}`; an SDK object as its dump, a stream as its
events, `{"events": [...]}`), which every wire adapter reads as it reads the wire. The JSON of
some replies reads otherwise: a framework's objects (LangChain messages, pydantic-ai, LiteLLM
and OpenAI Agents responses) are recognized by their class, which their JSON does not carry,
and google-genai keeps a reply's extras under its Python names, not the wire's. Such a reply
is kept with its class (`"class"`; the events of a stream each with theirs, `"classes"`) and
replayed as the object rebuilt from its JSON, by pydantic (`model_validate`, or a
`TypeAdapter` for a dataclass).

Before a step is recorded, what it would keep is read back as a rerun reads it, with the
adapter the run knew before the call: a reply read back to another `Stop` either way (its
JSON or its class loses what its adapter reads, LiteLLM's `_hidden_params`) is refused with a
`JournalError` naming its form, and nothing is recorded. A class is rebuilt only when its
top-level package is already imported by the process (the app's own framework is): a journal
never makes a process import a package it did not use.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from typing import Any

from pydantic import BaseModel, TypeAdapter

from stopkit._adapter import Adapter
from stopkit._errors import JournalError, UnsupportedReply
from stopkit._stop import Stop
from stopkit.loop._streams import Streamed, read_reply, read_stream
from stopkit.loop.journal._codec import canonical, jsonable, reply_json

__all__ = ["Unreplayable", "recordable", "replayable"]


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


def _described(reply: Any) -> str:
    """Name a reply's form for an error: its class, or a stream of its events' classes."""
    if type(reply) is Streamed:
        kinds = dict.fromkeys(_form(_name(type(event))) for event in reply.events or ())
        return f"a stream of {', '.join(kinds) or 'no event'}"
    return f"a {_form(_name(type(reply)))}"


def _with_classes(reply: Any) -> dict[str, Any] | None:
    """Return the step's reply kept with its class (or its events' classes); None: no class."""
    if type(reply) is Streamed:
        events = reply.events or []
        classes = [_class(event) for event in events]
        if not events or None in classes:
            return None
        return {"events": [jsonable(e) for e in events], "classes": classes}
    name = _class(reply)
    return None if name is None else {"reply": jsonable(reply), "class": name}


def recordable(reply: Any, stop: Stop, adapter: Adapter | None) -> dict[str, Any]:
    """Return what the model step keeps of `reply`, which the run read live as `stop`.

    Its JSON when that reads back to `stop`, else its JSON with its class; `adapter` is the one
    the run knew before the call (a rerun knows the same). Raises `JournalError` naming the
    reply's form when neither reads back to `stop`: the step is not recorded.

    Example:
        >>> recordable(reply, stop, None)  # doctest: +SKIP
        {'reply': {'type': 'message', ...}}
    """
    kept: dict[str, Any] = dict(reply_json(reply))
    if _reads_back(kept, stop, adapter):
        return kept
    tagged = _with_classes(reply)
    if tagged is not None and _reads_back(tagged, stop, adapter):
        return tagged
    raise JournalError(
        f"{_described(reply)} reply cannot be journaled: read back from what the journal can "
        f"keep of it (its JSON{', its class' if tagged else ''}), it gives another Stop than "
        "the live one, so a rerun would not see what this run saw; return the provider's reply "
        "(its JSON body or the SDK object) from call_model"
    )


def _reads_back(kept: dict[str, Any], stop: Stop, adapter: Adapter | None) -> bool:
    """Say whether a rerun reading `kept` with `adapter` gets `stop` (every field, as JSON)."""
    try:
        replay = replayable(kept)
    except Unreplayable:
        return False
    events = replay.get("events")
    if events is not None:
        again = read_stream(events, adapter, None).stop
    else:
        try:
            again = read_reply(replay["reply"], adapter)[1]
        except UnsupportedReply:
            return False
    return again is not None and _same(again, stop)


def _same(a: Stop, b: Stop) -> bool:
    try:
        return bool(canonical(a.model_dump(mode="json")) == canonical(b.model_dump(mode="json")))
    except (JournalError, ValueError):  # a field with no JSON form: nothing to compare it by
        return False


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
