"""The one way adapters read wire data: a JSON dict, an SDK model (extras included), or anything.

`wire(obj)` returns the object's fields as a mapping read with `.get(name)`: the dict itself for
a JSON body; for an official SDK's pydantic model, a view reading its declared fields by
attribute and the fields the SDK did not declare from `model_extra` (pydantic's public API
only); for anything else, its attributes. A name a model does not declare is never looked up
as an attribute: a missed `getattr` on a pydantic model raises inside its `__getattr__`, which
costs more than reading the fields that are there. The one cache is per class, bounded: the
names a model class declares (`model_fields`), or that it is read by attribute.

Example:
    >>> wire({"stop_reason": "end_turn"}).get("stop_reason")
    'end_turn'
    >>> wire(None).get("stop_reason") is None
    True
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import Enum
from types import MappingProxyType
from typing import Any

__all__ = ["either", "listed", "not_an_object", "raw_value", "to_json", "wire"]

#: What a value with no fields reads as (None, a string, a number, a list).
NOTHING: Mapping[str, Any] = MappingProxyType({})

_NO_FIELDS = (str, bytes, bytearray, int, float, list, tuple)
# class -> the field names its instances are read by (a pydantic model's `model_fields`), or
# None for a class read by attribute. Bounded: past the bound, a class not seen is worked out
# again at each read.
_FIELDS: dict[type, frozenset[str] | None] = {}
_MAX_CLASSES = 1024


def wire(obj: Any) -> Mapping[str, Any]:
    """Return the fields of a wire object as a mapping: read them with `.get(name)`.

    Never write to the mapping (a dict body is returned as it is). A value that has no fields
    (None, a string, a number, a list) gives an empty mapping.
    """
    if type(obj) is dict:  # a JSON body: the usual case
        return obj
    kind = type(obj)
    fields = _FIELDS.get(kind, _UNSEEN)
    if fields is _UNSEEN:
        if obj is None or isinstance(obj, _NO_FIELDS):
            return NOTHING
        if isinstance(obj, Mapping):
            return obj
        fields = _declared(kind)
    if fields is None:
        return _Attributes(obj)
    return _Model(obj, fields)


_UNSEEN: Any = object()


def _declared(kind: type) -> frozenset[str] | None:
    """The field names a pydantic model class declares; None for a class read by attribute.

    A model with an attribute lookup of its own (`__getattr__`) is read by attribute too: what
    it computes for a name is what it says.
    """
    from pydantic import BaseModel  # loaded with stopkit already; here to keep the module light

    fields = None
    if issubclass(kind, BaseModel) and getattr(kind, "__getattr__", None) is getattr(
        BaseModel, "__getattr__", None
    ):
        fields = frozenset(kind.model_fields)
    if len(_FIELDS) < _MAX_CLASSES:
        _FIELDS[kind] = fields
    return fields


class _Model(Mapping[str, Any]):
    """A pydantic model's wire fields: the declared ones by attribute, then `model_extra`."""

    __slots__ = ("_extra", "_fields", "_obj")

    def __init__(self, obj: Any, fields: frozenset[str]) -> None:
        self._obj = obj
        self._fields = fields
        self._extra: dict[str, Any] | None = obj.model_extra

    def get(self, name: str, default: Any = None) -> Any:
        if name in self._fields:
            return getattr(self._obj, name, default)
        extra = self._extra
        return default if extra is None else extra.get(name, default)

    def __getitem__(self, name: str) -> Any:
        value = self.get(name, _UNSEEN)
        if value is _UNSEEN:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        yield from self._fields
        if self._extra:
            yield from self._extra.keys() - self._fields

    def __len__(self) -> int:
        return sum(1 for _ in self)


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
        names = getattr(type(self._obj), "model_fields", None)  # a model with its own lookup
        if names is None:
            try:
                names = vars(self._obj)
            except TypeError:  # an object without instance attributes (`__slots__`)
                names = ()
        return iter(names)

    def __len__(self) -> int:
        return sum(1 for _ in self)


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
