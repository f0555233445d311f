"""The one way adapters read wire data: a JSON dict, an SDK model (extras included), or anything.

`wire(obj)` returns the object's fields as a mapping read with `.get(name)`: the dict itself for
a JSON body; for an official SDK's pydantic model, its instance `__dict__` (with the fields the
SDK did not declare, which it keeps in `__pydantic_extra__`, merged in); for anything else, its
attributes. Reading a whole reply is then `dict.get` calls in C, whatever form the reply came
in: a missed `getattr` on a pydantic model costs microseconds (its `__getattr__` raises), a
missed `dict.get` nothing. The one cache is per class, bounded: whether its `__dict__` answers
what attribute access would.

Example:
    >>> wire({"stop_reason": "end_turn"}).get("stop_reason")
    'end_turn'
    >>> wire(None).get("stop_reason") is None
    True
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from enum import Enum
from types import MappingProxyType
from typing import Any

__all__ = ["either", "listed", "not_an_object", "raw_value", "to_json", "wire"]

#: What a value with no fields reads as (None, a string, a number, a list).
NOTHING: Mapping[str, Any] = MappingProxyType({})

_NO_FIELDS = (str, bytes, bytearray, int, float, list, tuple)
# class -> whether its instances' __dict__ (and __pydantic_extra__) answer every field read the
# way attribute access would. Bounded: past the bound, a class not seen reads by attribute.
_PLAIN: dict[type, bool] = {}
_MAX_CLASSES = 1024


def wire(obj: Any) -> Mapping[str, Any]:
    """Return the fields of a wire object as a mapping: read them with `.get(name)`.

    The mapping is the object's own storage where it can be (never write to it). A value that
    has no fields (None, a string, a number, a list) gives an empty mapping.
    """
    if type(obj) is dict:  # a JSON body: the usual case
        return obj
    kind = type(obj)
    plain = _PLAIN.get(kind)
    if plain is None:
        if obj is None or isinstance(obj, _NO_FIELDS):
            return NOTHING
        if isinstance(obj, Mapping):
            return obj
        plain = _plain_model(kind)
    if plain:
        extra = obj.__pydantic_extra__
        values: dict[str, Any] = obj.__dict__
        return {**extra, **values} if extra else values
    return _Attributes(obj)


def _plain_model(kind: type) -> bool:
    """Say whether `kind` is a pydantic model whose `__dict__` answers what `getattr` would.

    True for a model with pydantic's own attribute lookup, no class attribute named like one of
    its fields and no `cached_property` (whose values would sit in `__dict__` too).
    """
    from pydantic import BaseModel  # loaded with stopkit already; here to keep the module light

    plain = (
        issubclass(kind, BaseModel)
        and getattr(kind, "__getattr__", None) is getattr(BaseModel, "__getattr__", None)
        and kind.__getattribute__ is object.__getattribute__
        and not any(hasattr(kind, name) for name in kind.model_fields)
        and not any(
            isinstance(value, functools.cached_property)
            for klass in kind.__mro__
            for value in vars(klass).values()
        )
    )
    if len(_PLAIN) < _MAX_CLASSES:
        _PLAIN[kind] = plain
    return plain


class _Attributes(Mapping[str, Any]):
    """An object that is not a plain model, read by attribute access."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def get(self, name: str, default: Any = None) -> Any:
        return getattr(self._obj, name, default)

    def __getitem__(self, name: str) -> Any:
        try:
            return getattr(self._obj, name)
        except AttributeError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(getattr(self._obj, "__dict__", ()))

    def __len__(self) -> int:
        return len(getattr(self._obj, "__dict__", ()))


def either(fields: Mapping[str, Any], camel: str, snake: str) -> Any:
    """Read a field spelled `camel` (REST JSON) or `snake` (SDK objects, some REST bodies)."""
    value = fields.get(camel)
    return fields.get(snake) if value is None else value


def not_an_object(value: Any, name: str) -> str | None:
    """Say why the field `name`, holding `value`, has no fields to read; None when it has.

    For a reader that cannot go on without the object (Cohere's and Ollama's `message`).

    Example:
        >>> not_an_object("Hi", "message")
        'message is a str, not an object'
    """
    if value is None:
        return f"{name} is missing, not an object"
    if isinstance(value, _NO_FIELDS):
        return f"{name} is a {type(value).__name__}, not an object"
    return None


def listed(value: Any) -> list[Any]:
    """Return `value` as a list when it is a list or tuple, else an empty list."""
    if type(value) is list:
        return value
    if isinstance(value, list | tuple):
        return list(value)
    return []


def raw_value(value: Any) -> Any:
    """Return an SDK enum member's wire value; every other value unchanged."""
    return value.value if isinstance(value, Enum) else value


def to_json(obj: Any, *, drop_none: bool = False) -> Any:
    """Return a JSON-ready copy of one wire object: a dict copied, an SDK model dumped.

    The model is dumped by its wire names with the fields it was given (`drop_none` leaves out
    the ones that are None too); anything else comes back unchanged.
    """
    if isinstance(obj, dict):
        return dict(obj)
    dump = getattr(obj, "model_dump", None)
    if dump is None or isinstance(obj, type):
        return obj
    # warnings=False: the SDKs keep off-spec values as sent, and dumping them must not warn (a
    # warning is an exception under -W error); a value nested deeper than pydantic serializes
    # stays the SDK object.
    try:
        return dump(
            mode="json",
            by_alias=True,
            exclude_unset=not drop_none,
            exclude_none=drop_none,
            warnings=False,
        )
    except (ValueError, RecursionError):
        return obj
