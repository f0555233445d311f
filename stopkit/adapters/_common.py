"""Small helpers every adapter shares: reading dicts and SDK objects alike, tool arguments, Stop.

Adapters read a reply through `field()`, which works on the JSON dict and on the SDK's pydantic
object without dumping it (attribute access is what keeps the SDK-object path cheap).
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from pydantic_core import from_json

from stopkit._stop import Stop, StopReason, ToolCall, _fast_stop, _fast_tool_call

__all__ = [
    "MISSING",
    "as_list",
    "as_raw",
    "field",
    "field2",
    "look_up",
    "make_stop",
    "malformed_message",
    "parse_arguments",
    "tool_call",
]

MISSING: Any = None


def field(obj: Any, name: str, default: Any = None) -> Any:
    """Read `name` from a dict or an object, `default` when absent.

    Same answer as `obj.get(name, default)` for a dict, `default` for None and scalars, and
    `getattr(obj, name, default)` otherwise, without its cost on pydantic models (an absent
    attribute goes through pydantic's `__getattr__`, which raises: ~1.5 us a miss).
    """
    kind = type(obj)
    if kind is dict:
        return obj.get(name, default)
    ways = _WAYS.get(kind)
    if ways is not None:
        way = ways.get(name)
        if way is True:
            # Normal lookup finds a field in the instance __dict__; failing that, pydantic's
            # __getattr__ answers from __pydantic_extra__ or raises AttributeError.
            value = obj.__dict__.get(name, _ABSENT)
            if value is not _ABSENT:
                return value
            extra = getattr(obj, "__pydantic_extra__", None)
            if extra and name in extra:
                return extra[name]
            return default
        if way is False:
            return getattr(obj, name, default)
    if obj is None or isinstance(obj, _SCALARS):
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    if kind not in _OTHERS and _is_plain_model(kind):
        if ways is None and len(_WAYS) < _MAX_CLASSES:
            ways = _WAYS[kind] = {}
        if ways is not None and len(ways) < _MAX_NAMES:
            # True: read from __dict__ / __pydantic_extra__ as above. False: a property,
            # method, class attribute or private attribute of that name: getattr.
            ways[name] = not hasattr(kind, name) and name not in kind.__private_attributes__
            return field(obj, name, default)
    elif len(_OTHERS) < _MAX_CLASSES:
        _OTHERS.add(kind)
    return getattr(obj, name, default)


_ABSENT: Any = object()
_SCALARS = (str, int, float, list, tuple)
# Per pydantic model class with pydantic's own attribute lookup: name -> read from the instance
# __dict__ (True) or by getattr (False). Bounded: past the bounds, getattr.
_WAYS: dict[type, dict[str, bool]] = {}
_MAX_CLASSES, _MAX_NAMES = 512, 256
_OTHERS: set[type] = set()  # classes that are not such models: getattr


def _is_plain_model(kind: type) -> bool:
    """Say whether `kind` is a pydantic model whose attribute lookup is pydantic's own."""
    from pydantic import BaseModel

    return (
        issubclass(kind, BaseModel)
        and getattr(kind, "__getattr__", None) is getattr(BaseModel, "__getattr__", None)
        and kind.__getattribute__ is object.__getattribute__
    )


def field2(obj: Any, camel: str, snake: str, default: Any = None) -> Any:
    """Read a field spelled `camel` (REST JSON) or `snake` (SDK objects, some REST bodies)."""
    if type(obj) is dict:  # `field` inlined for the JSON body: the usual case
        value = obj.get(camel)
        if value is None:
            value = obj.get(snake)
    else:
        value = field(obj, camel, None)
        if value is None:
            value = field(obj, snake, None)
    return default if value is None else value


def as_list(value: Any) -> list[Any]:
    """Return `value` as a list when it is a list or tuple, else an empty list."""
    if type(value) is list:
        return value
    if isinstance(value, list | tuple):
        return list(value)
    return []


def as_raw(value: Any) -> Any:
    """Return an SDK enum member's wire value; other values unchanged."""
    if isinstance(value, Enum):
        return value.value
    return value


def look_up(
    table: dict[str, tuple[StopReason, str | None]], title: str, raw_reason: Any, notes: list[str]
) -> tuple[StopReason, str | None]:
    """Map a stop value through its table; unknown with a note when it is absent or off-table.

    `title` is the wire field, named in the notes: None is unknown/`missing`, a value that is
    not a string unknown/`malformed`, a string the table lacks unknown/`unrecognized`.

    Example:
        >>> notes = []
        >>> look_up({"stop": (StopReason.COMPLETED, None)}, "done_reason", "halt", notes)
        (<StopReason.UNKNOWN: 'unknown'>, 'unrecognized')
        >>> notes
        ["done_reason 'halt' is not a documented value"]
    """
    if isinstance(raw_reason, str):
        entry = table.get(raw_reason)
        if entry is not None:
            return entry
        notes.append(f"{title} {raw_reason!r} is not a documented value")
        return StopReason.UNKNOWN, "unrecognized"
    if raw_reason is None:
        notes.append(f"the reply has no {title}")
        return StopReason.UNKNOWN, "missing"
    notes.append(f"{title} is a {type(raw_reason).__name__}, not a string")
    return StopReason.UNKNOWN, "malformed"


#: Arguments larger than this are not parsed (the call is marked incomplete): a model that
#: emits megabytes of arguments is broken or hostile, and parsing them would be the cost.
MAX_ARGUMENTS_CHARS = 1_000_000


def parse_arguments(raw: Any) -> tuple[dict[str, Any], str | None, bool, str | None]:
    """Parse tool-call arguments into `(arguments, arguments_json, complete, error)`.

    Accepts the JSON string the provider sent, an already-decoded dict, or nothing. Anything
    that is not a JSON object makes the call incomplete, with the reason in `error`.
    """
    if type(raw) is str:  # the usual case first (an exact str has no model_dump)
        return _parse_json_object(raw)
    if raw is None:
        return {}, None, True, None
    if isinstance(raw, dict):
        return dict(raw), None, True, None
    if hasattr(raw, "model_dump") and not isinstance(raw, str | bytes):
        dumped = raw.model_dump(mode="json")
        if isinstance(dumped, dict):
            return dumped, None, True, None
    if not isinstance(raw, str):
        return {}, None, False, f"arguments are a {type(raw).__name__}, not a JSON object"
    return _parse_json_object(raw)


def _parse_json_object(raw: str) -> tuple[dict[str, Any], str | None, bool, str | None]:
    """`parse_arguments` for a string: the JSON object it holds, or why it is not one."""
    if not raw or raw.isspace():
        # Providers send "" for a call without parameters.
        return {}, raw, True, None
    if len(raw) > MAX_ARGUMENTS_CHARS:
        return {}, raw, False, f"arguments are {len(raw)} characters, over {MAX_ARGUMENTS_CHARS}"
    try:
        # pydantic-core's parser (~4x json.loads on small objects); it gives json.loads' value
        # wherever both accept the text, and json.loads decides (and words the error)
        # wherever pydantic-core refuses it.
        value = from_json(raw, cache_strings=False)
    except (ValueError, RecursionError):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            return {}, raw, False, f"arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return {}, raw, False, f"arguments are a JSON {type(value).__name__}, not an object"
    return value, raw, True, None


def tool_call(call_id: Any, name: Any, raw_arguments: Any) -> ToolCall:
    """Build a `ToolCall`, parsing its arguments; a missing id or name makes it incomplete."""
    if type(name) is str and name and type(call_id) is str:
        # The usual call, answered as the steps below answer it, without their calls: a JSON
        # object's text within the size bound, or an already-decoded dict.
        kind = type(raw_arguments)
        if kind is str and raw_arguments and len(raw_arguments) <= MAX_ARGUMENTS_CHARS:
            try:
                value = from_json(raw_arguments, cache_strings=False)
            except (ValueError, RecursionError):
                value = None  # parse_arguments below decides and words the error
            if type(value) is dict:
                return _fast_tool_call(
                    {
                        "id": call_id,
                        "name": name,
                        "arguments": value,
                        "arguments_json": raw_arguments,
                        "complete": True,
                        "error": None,
                    }
                )
        elif kind is dict:
            return _fast_tool_call(
                {
                    "id": call_id,
                    "name": name,
                    "arguments": dict(raw_arguments),
                    "arguments_json": None,
                    "complete": True,
                    "error": None,
                }
            )
    arguments, arguments_json, complete, error = parse_arguments(raw_arguments)
    if not isinstance(name, str) or not name:
        complete, error = False, error or "the call has no tool name"
        name = "" if not isinstance(name, str) else name
    if not isinstance(call_id, str):
        call_id = "" if call_id is None else str(call_id)
    return _fast_tool_call(
        {
            "id": call_id,
            "name": name,
            "arguments": arguments,
            "arguments_json": arguments_json,
            "complete": complete,
            "error": error,
        }
    )


def malformed_message(reply: Any, message: Any, *, provider: str, stop_field: str) -> Stop | None:
    """Return UNKNOWN/`malformed` when a reply's `message` is not an object, else None.

    For the wire formats that wrap the whole answer in one `message` object (Cohere v2, Ollama):
    without it there is nothing to read, and the stop value is kept as `raw_reason`.
    """
    if message is not None and not isinstance(message, str | int | float | list | tuple | bool):
        return None
    return make_stop(
        StopReason.UNKNOWN,
        provider=provider,
        raw=reply,
        raw_reason=field(reply, stop_field),
        detail="malformed",
        notes=[f"message is a {type(message).__name__}, not an object"],
    )


def make_stop(
    reason: StopReason,
    *,
    provider: str,
    raw: Any,
    raw_reason: Any = None,
    detail: str | None = None,
    text: str = "",
    tool_calls: tuple[ToolCall, ...] = (),
    refusal: str | None = None,
    stop_sequence: str | None = None,
    notes: tuple[str, ...] | list[str] = (),
    details: dict[str, Any] | None = None,
) -> Stop:
    """Build a `Stop` without re-validating what the adapter already checked (hot path).

    A `raw_reason` that is neither a string nor an int is kept in `details["raw_reason"]`.
    """
    kind = type(raw_reason)
    if kind is not str and kind is not int and raw_reason is not None:
        raw_reason = as_raw(raw_reason)
        if type(raw_reason) not in (str, int):
            # Not a value a stop field can hold: kept, but out of the typed field.
            details = {**(details or {}), "raw_reason": raw_reason}
            raw_reason = None
    return _fast_stop(
        {
            "reason": reason,
            "raw_reason": raw_reason,
            "provider": provider,
            "detail": detail,
            "text": text,
            "tool_calls": tool_calls,
            "refusal": refusal,
            "stop_sequence": stop_sequence,
            "notes": notes if type(notes) is tuple else tuple(notes),
            "details": details if details is not None else {},
            "raw": raw,
        }
    )
