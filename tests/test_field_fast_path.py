"""`field()` reads pydantic models without `getattr`; it must answer exactly as `getattr` does."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, PrivateAttr

from stopkit.adapters._common import field


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")

    kind: str = "message"
    content: Any = None
    _secret: str = PrivateAttr(default="hidden")

    @property
    def summary(self) -> str:
        return f"{self.kind}:{self.content}"

    def method(self) -> str:
        return "called"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str = "chunk"


class Custom(BaseModel):
    kind: str = "x"

    def __getattr__(self, name: str) -> Any:
        return f"computed {name}"


NAMES = ("kind", "content", "summary", "_secret", "extra_field", "absent", "model_config",
         "method", "__class__")


@pytest.mark.parametrize(
    "obj",
    [
        Loose(content=[1]),
        Loose(content=None, extra_field="kept"),
        Loose.model_construct(kind="raw"),
        Strict(),
        Custom(),
    ],
    ids=["loose", "loose-extra", "constructed", "strict", "custom-getattr"],
)
@pytest.mark.parametrize("name", NAMES)
def test_field_matches_getattr_on_models(obj: BaseModel, name: str) -> None:
    """For fields, extras, properties, private attributes, methods and absent names alike."""
    sentinel = object()
    for _ in range(2):  # the first call decides the way and caches it; the second uses the cache
        got = field(obj, name, sentinel)
        want = getattr(obj, name, sentinel)
        if callable(want) and not isinstance(want, type):
            assert callable(got)
            assert got.__name__ == want.__name__
        else:
            assert got == want


def test_field_same_class_different_extras() -> None:
    """The cached way is per class: an extra present on one instance only is still found."""
    assert field(Loose(), "extra_field", "d") == "d"
    assert field(Loose(extra_field=3), "extra_field", "d") == 3
    assert field(Loose(), "extra_field", "d") == "d"


@pytest.mark.parametrize("obj", [None, "text", 3, 2.5, True, [1], (1,)])
def test_field_on_scalars_gives_the_default(obj: Any) -> None:
    """None, strings, numbers, lists and tuples have no fields."""
    assert field(obj, "index", "d") == "d"


def test_field_on_mappings() -> None:
    """A dict and a dict subclass are read by key."""

    class Sub(dict[str, int]):
        pass

    assert field({"a": 1}, "a") == 1
    assert field(Sub(a=2), "a") == 2
    assert field(Sub(), "a", "d") == "d"
