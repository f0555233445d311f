"""Running one tool call (`stopkit/loop/_runner.py`): what the model is sent for what a tool does.

A tool is the caller's code: it may return anything, raise anything, hang, or change the
arguments it was given. Whatever it does, its call gets exactly one result and the run goes on.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import pathlib
from typing import Any

import pydantic
import pytest

import stopkit
from stopkit.testing import ScriptedModel
from tests.loop._fake import FAKE, USER, call, reply


def run_one(tool: Any, *, arun: bool = False, **settings: Any) -> stopkit.Outcome:
    """Run a loop whose model asks once for `tool`, then answers."""
    model = ScriptedModel([reply("tool_request", calls=[call("c", "t")]), reply("completed", "ok")])
    if arun:
        import asyncio

        loop = stopkit.arun_loop(model, [USER], adapter=FAKE, tools={"t": tool}, **settings)
        return asyncio.run(loop)
    return stopkit.run_loop(model, [USER], adapter=FAKE, tools={"t": tool}, **settings)


class Colour(enum.Enum):
    RED = "red"


class Point(pydantic.BaseModel):
    x: int
    seen: datetime.date


@dataclasses.dataclass
class Box:
    label: str
    size: tuple[int, int]


WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)

# What a tool returns -> the JSON text the model is sent.
VALUES = [
    (Point(x=1, seen=datetime.date(2026, 1, 2)), '{"x": 1, "seen": "2026-01-02"}'),
    (Box("b", (2, 3)), '{"label": "b", "size": [2, 3]}'),
    ({3}, "[3]"),
    ((1, "a"), '[1, "a"]'),
    (WHEN, '"2026-01-02T03:04:05Z"'),
    (pathlib.Path("/tmp/x"), '"/tmp/x"'),
    (Colour.RED, '"red"'),
    (b"bytes", '"bytes"'),
    ({"nested": [Colour.RED, {WHEN.date()}]}, '{"nested": ["red", ["2026-01-02"]]}'),
    ({"k": "é"}, '{"k": "é"}'),
    (None, "null"),
]


@pytest.mark.parametrize(
    ("value", "sent"), VALUES, ids=[f"{type(v).__name__}-{i}" for i, (v, _) in enumerate(VALUES)]
)
def test_return_values_are_sent_as_json(value: Any, sent: str) -> None:
    """Models, dataclasses, sets, tuples, datetimes, paths, enums and bytes become JSON."""
    outcome = run_one(lambda: value)
    result = outcome.tool_runs[0].result
    assert (result.content, result.is_error) == (sent, False)
    assert result.value is value  # the value itself is kept


class Opaque:
    def __str__(self) -> str:
        return "an opaque thing"


def cyclic() -> Any:
    value: list[Any] = []
    value.append(value)
    return value


def too_deep() -> Any:
    value: Any = []
    for _ in range(100_000):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "named"),
    [(Opaque(), "Opaque"), (b"\xff\xfe", "bytes"), (cyclic(), "list"), (too_deep(), "list"),
     ({("a", 1): 2}, "dict")],
    ids=["opaque object", "undecodable bytes", "cycle", "too deep", "tuple key"],
)  # fmt: skip
def test_a_value_that_cannot_be_encoded_is_an_error_result_naming_its_type(
    value: Any, named: str
) -> None:
    """A return value JSON cannot hold is an error result saying which type it was."""
    outcome = run_one(lambda: value)
    result = outcome.tool_runs[0].result
    assert result.is_error
    assert result.content.startswith(f"the tool returned a {named} that cannot be sent as JSON")
    assert outcome.termination is stopkit.Termination.COMPLETED
