"""Vertex's streamed function-call arguments: `partialArgs` pieces assembled by their JSONPath.

Vertex may send one call's arguments in pieces (google-genai `types.py`: `FunctionCall.
partial_args`, `PartialArg`): each piece names a JSONPath (RFC 9535, e.g. `$.recipe.steps[0]`)
and one value; string pieces for the same path are concatenated. The pieces come from the
wire, so the work they may cause is bounded:

- a path is followed only when it is at most `MAX_PATH_STEPS` steps deep, and each index is
  written in ASCII digits (at most 9 of them);
- an index may skip ahead of its array's end, the slots between filled with null, but by at
  most `MAX_SKIPPED_SLOTS` slots in all for one call (`$.a[100000000]` would otherwise ask for
  a hundred million).

A path stopkit will not follow leaves the call incomplete, with an error saying which path and
why; it never raises.

Example:
    >>> assemble_partial_args({}, [{"jsonPath": "$.a", "stringValue": "x"},
    ...                            {"jsonPath": "$.a", "stringValue": "y"}])
    ({'a': 'xy'}, None)
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from stopkit.adapters._wire import either, wire

__all__ = ["MAX_PATH_STEPS", "MAX_SKIPPED_SLOTS", "assemble_partial_args"]

#: A JSONPath deeper than this is not followed (arguments are rarely a dozen levels deep).
MAX_PATH_STEPS = 100
#: Array slots an index may skip past an array's end, in all, for one call's arguments.
MAX_SKIPPED_SLOTS = 10_000
# The longest index read (9 digits: below MAX_SKIPPED_SLOTS' reach anyway, and cheap to parse).
_MAX_INDEX_DIGITS = 9

Step = str | int


def _shown(path: str) -> str:
    """A path as an error quotes it: the first 80 characters at most."""
    return repr(path) if len(path) <= 80 else repr(path[:80]) + "..."


def _steps(path: str) -> list[Step] | str:
    """Split a JSONPath such as `$.a.b[0]['c d']` into keys and indexes, or say why not."""
    if not path.startswith("$"):
        return "does not start with $"
    out: list[Step] = []
    i, n = 1, len(path)
    while i < n:
        if len(out) >= MAX_PATH_STEPS:
            return f"is more than {MAX_PATH_STEPS} steps deep"
        c = path[i]
        if c == ".":
            j = i + 1
            while j < n and path[j] not in ".[":
                j += 1
            if j == i + 1:
                return "has an empty key"
            out.append(path[i + 1 : j])
            i = j
        elif c == "[":
            j = path.find("]", i)
            if j < 0:
                return "has an unclosed ["
            step, why = _bracketed(path[i + 1 : j])
            if why is not None:
                return why
            out.append(step)
            i = j + 1
        else:
            return f"has {c!r} where a step should start"
    return out if out else "names no argument"


def _bracketed(inner: str) -> tuple[Step, str | None]:
    """One bracketed step, `['c d']` or `[0]`: a quoted key or an index, or why it is neither."""
    if len(inner) >= 2 and inner[0] in "'\"" and inner[-1] == inner[0]:
        return inner[1:-1], None
    if inner.isascii() and inner.isdigit():
        if len(inner) > _MAX_INDEX_DIGITS:
            return 0, f"has an index of {len(inner)} digits"
        return int(inner), None
    return 0, f"has [{inner[:20]}], neither a quoted key nor an index in ASCII digits"


class _Room:
    """The array slots one call's pieces may still skip (`MAX_SKIPPED_SLOTS` to start)."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_SKIPPED_SLOTS


def _put(root: dict[str, Any], steps: list[Step], value: Any, room: _Room) -> str | None:
    """Set `value` at `steps` inside `root`, creating objects and arrays; or say why not."""
    node: Any = root
    last = len(steps) - 1
    for pos, key in enumerate(steps):
        if type(key) is int:
            if type(node) is not list:
                return "indexes something that is not an array"
            skipped = key - len(node)
            if skipped > 0:
                if skipped > room.left:
                    return (
                        f"skips {skipped} array slots; stopkit fills at most "
                        f"{MAX_SKIPPED_SLOTS} per call"
                    )
                room.left -= skipped
                node.extend([None] * skipped)
            if key == len(node):
                node.append(None)
        elif type(node) is not dict:
            return "names a key of something that is not an object"
        if pos == last:
            node[key] = value
            return None
        child = node[key] if type(key) is int else node.get(key)
        if child is None:
            child = [] if type(steps[pos + 1]) is int else {}
            node[key] = child
        node = child
    return None


def _value(piece: Mapping[str, Any]) -> tuple[bool, Any]:
    """Return (is_string, value) of one `PartialArg`."""
    text = either(piece, "stringValue", "string_value")
    if text is not None:
        return True, text
    for camel, snake in (("numberValue", "number_value"), ("boolValue", "bool_value")):
        value = either(piece, camel, snake)
        if value is not None:
            return False, value
    return False, None  # `nullValue: "NULL_VALUE"`, or nothing at all


def assemble_partial_args(
    base: Mapping[str, Any], partials: list[Any]
) -> tuple[dict[str, Any], str | None]:
    """Build the arguments object from `partialArgs` pieces, in order: (arguments, error).

    String pieces for one JSONPath are concatenated; other values replace. `base` (arguments
    sent whole beside the pieces) is copied, never changed. On an error the arguments built
    so far come back with it; the call must not run.

    Example:
        >>> assemble_partial_args({"a": 1}, [{"jsonPath": "$.l[1]", "numberValue": 2}])
        ({'a': 1, 'l': [None, 2]}, None)
    """
    strings: dict[str, list[str]] = {}
    values: dict[str, Any] = {}
    for partial in partials:
        piece = wire(partial)
        path = either(piece, "jsonPath", "json_path")
        if not isinstance(path, str):
            return dict(base), "a partialArgs piece has no jsonPath"
        is_string, value = _value(piece)
        if is_string:
            if not isinstance(value, str):
                return dict(base), "a partialArgs piece has a stringValue that is not a string"
            pieces = strings.get(path)
            if pieces is None:
                strings[path] = [value]
                values.setdefault(path, None)
            else:
                pieces.append(value)
        else:
            values[path] = value
    try:
        args: dict[str, Any] = copy.deepcopy(dict(base)) if base else {}
    except RecursionError:
        return dict(base), "the arguments sent beside the partialArgs are nested too deep to copy"
    room = _Room()
    for path, value in values.items():
        steps = _steps(path)
        if isinstance(steps, str):
            why: str | None = steps
        else:
            pieces = strings.get(path)
            why = _put(args, steps, "".join(pieces) if pieces is not None else value, room)
        if why is not None:
            return args, f"partialArgs jsonPath {_shown(path)} {why}: not followed"
    return args, None
