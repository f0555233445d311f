"""Assembling Vertex's streamed function-call arguments (`partialArgs`), with bounded work."""

from __future__ import annotations

from typing import Any

import pytest

from stopkit.adapters._gemini_args import (
    MAX_PATH_STEPS,
    MAX_SKIPPED_SLOTS,
    assemble_partial_args,
)


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        ([{"jsonPath": "$.a", "stringValue": "x"}, {"jsonPath": "$.a", "stringValue": "y"}],
         {"a": "xy"}),
        ([{"jsonPath": "$.l[1]", "numberValue": 2}], {"l": [None, 2]}),
        ([{"jsonPath": "$['k k'].v", "boolValue": True}], {"k k": {"v": True}}),
        ([{"jsonPath": "$.n", "nullValue": "NULL_VALUE"}], {"n": None}),
        ([{"jsonPath": '$["q"][0].r', "stringValue": "s"}], {"q": [{"r": "s"}]}),
    ],
)  # fmt: skip
def test_assemble_partial_args(pieces: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    """The partialArgs pieces build the arguments object their JSONPaths describe."""
    assert assemble_partial_args({}, pieces) == (expected, None)


@pytest.mark.parametrize("path", ["a.b", "$.", "$[x]", "$.a[", None])
def test_unreadable_json_path_is_an_error(path: Any) -> None:
    """An unreadable JSONPath makes an error (the call will not run), never an exception."""
    _, error = assemble_partial_args({}, [{"jsonPath": path, "stringValue": "v"}])
    assert error is not None


@pytest.mark.parametrize(
    "pieces",
    [
        [{"jsonPath": "$.a[100000000]", "numberValue": 1}],
        [{"jsonPath": f"$.a[{MAX_SKIPPED_SLOTS + 1}]", "numberValue": 1}],
        # Each piece within the bound, the call's pieces together past it.
        [{"jsonPath": f"$.k{i}[{MAX_SKIPPED_SLOTS // 3}]", "numberValue": 1} for i in range(4)],
        [{"jsonPath": "$" + ".a" * (MAX_PATH_STEPS + 1), "numberValue": 1}],
        [{"jsonPath": "$.a[0123456789]", "numberValue": 1}],
        [{"jsonPath": "$.a[²]", "numberValue": 1}],
        [{"jsonPath": "$.a[-1]", "numberValue": 1}],
    ],
    ids=["huge", "past-bound", "bound-in-all", "deep", "ten-digits", "superscript", "negative"],
)
def test_paths_past_the_bounds_are_errors(pieces: list[dict[str, Any]]) -> None:
    """A path past the documented bounds is an error naming it, never an exception."""
    _, error = assemble_partial_args({}, pieces)
    assert error is not None
    assert error.startswith("partialArgs jsonPath '$")
    assert error.endswith("not followed")


def test_paths_within_the_bounds_are_followed() -> None:
    """An index skipping up to the bound, and a path as deep as the bound, are followed."""
    deep = "$" + ".a" * MAX_PATH_STEPS
    args, error = assemble_partial_args(
        {},
        [
            {"jsonPath": f"$.l[{MAX_SKIPPED_SLOTS}]", "numberValue": 1},
            {"jsonPath": deep, "boolValue": True},
        ],
    )
    assert error is None
    assert len(args["l"]) == MAX_SKIPPED_SLOTS + 1
    assert args["l"][-1] == 1


def test_the_arguments_sent_whole_are_never_changed() -> None:
    """Pieces that extend `args` sent beside them work on a copy: the reply stays as sent."""
    base = {"steps": ["a"], "meta": {"n": 1}}
    pieces = [
        {"jsonPath": "$.steps[1]", "stringValue": "b"},
        {"jsonPath": "$.meta.m", "numberValue": 2},
    ]
    args, error = assemble_partial_args(base, pieces)
    assert (args, error) == ({"steps": ["a", "b"], "meta": {"n": 1, "m": 2}}, None)
    assert base == {"steps": ["a"], "meta": {"n": 1}}
