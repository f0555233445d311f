"""The strings an SDK's `Literal` type allows, for the tests that pin tables to SDK types."""

from __future__ import annotations

import typing
from typing import Any


def literal_values(annotation: Any) -> set[str]:
    """The strings of a Literal, also inside Optional/Union (Fern writes `Union[Literal, Any]`)."""
    if typing.get_origin(annotation) is typing.Literal:
        return {v for v in typing.get_args(annotation) if isinstance(v, str)}
    out: set[str] = set()
    for arg in typing.get_args(annotation):
        out |= literal_values(arg)
    return out
