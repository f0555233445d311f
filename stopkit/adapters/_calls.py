"""Client tool calls as every adapter builds them: arguments parsed once, ids checked, cuts marked.

A call stopkit cannot trust is built anyway, kept in the `Stop` with `complete=False` and an
`error` saying why; such a call is never executed. Why a call may not be complete: its
arguments are not a JSON object (or too large to parse), it has no tool name, its id is not a
string, or the reply was cut while it was being written.

Example:
    >>> tool_call("call_1", "get_weather", '{"city": "Paris"}').arguments
    {'city': 'Paris'}
    >>> tool_call("call_1", "get_weather", '{"city": ').complete
    False
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import from_json

from stopkit._stop import ToolCall, _fast_tool_call

__all__ = ["MAX_ARGUMENTS_CHARS", "cut", "parse_arguments", "stable_id", "tool_call"]

#: Arguments larger than this are not parsed (the call is marked incomplete): a model that
#: emits megabytes of arguments is broken or hostile, and parsing them would be the cost.
MAX_ARGUMENTS_CHARS = 1_000_000


def parse_arguments(raw: Any) -> tuple[dict[str, Any], str | None, bool, str | None]:
    """Parse tool-call arguments into `(arguments, arguments_json, complete, error)`.

    Accepts the JSON string the provider sent, an already-decoded dict (or SDK model), or
    nothing. Anything that is not a JSON object makes the call incomplete, with the reason.

    Example:
        >>> parse_arguments('[1, 2]')[2:]
        (False, 'arguments are a JSON list, not an object')
    """
    if type(raw) is str:  # the usual case first (an exact str has no model_dump)
        return _parse_json_object(raw)
    if raw is None:
        return {}, None, True, None
    if isinstance(raw, dict):
        return dict(raw), None, True, None
    if isinstance(raw, str):
        return _parse_json_object(str(raw))
    if hasattr(raw, "model_dump") and not isinstance(raw, bytes):
        try:
            dumped = raw.model_dump(mode="json")
        except (ValueError, RecursionError):  # nested deeper than pydantic serializes
            return {}, None, False, "arguments are nested too deep to read"
        if isinstance(dumped, dict):
            return dumped, None, True, None
    return {}, None, False, f"arguments are a {type(raw).__name__}, not a JSON object"


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
    """Build a `ToolCall`, parsing its arguments; a bad id or a missing name makes it incomplete.

    An id that is not a string (a list, an object, a number) could never be matched by the
    result the loop sends back: the call keeps the id's text and is not runnable.
    """
    if type(name) is str and name and type(call_id) is str:
        # The usual call, built as the steps below build it, without their calls (every tool
        # request comes through here): a JSON object's text within the size bound, or a dict.
        kind = type(raw_arguments)
        if kind is str and 0 < len(raw_arguments) <= MAX_ARGUMENTS_CHARS:
            try:
                value = from_json(raw_arguments, cache_strings=False)
            except (ValueError, RecursionError):
                value = None  # parse_arguments below decides, and words the error
            if type(value) is dict:
                return _fast_tool_call(
                    {"id": call_id, "name": name, "arguments": value,
                     "arguments_json": raw_arguments, "complete": True, "error": None}
                )  # fmt: skip
        elif kind is dict:
            return _fast_tool_call(
                {"id": call_id, "name": name, "arguments": dict(raw_arguments),
                 "arguments_json": None, "complete": True, "error": None}
            )  # fmt: skip
    arguments, arguments_json, complete, error = parse_arguments(raw_arguments)
    if type(name) is not str or not name:
        complete, error = False, error or "the call has no tool name"
        name = name if type(name) is str else ""
    if type(call_id) is not str:
        if call_id is not None:
            complete = False
            error = error or f"the call's id is a {type(call_id).__name__}, not a string"
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


def stable_id(call_id: Any, position: int) -> str:
    """Return the call's own id, or `call_<position>` for a wire format that sends none.

    Ollama's older servers and Cohere v1 send calls without ids; the position among the reply's
    calls is the same in a reply and its stream, and on every read, so the id is stable.

    Example:
        >>> (stable_id("toolu_1", 0), stable_id(None, 1))
        ('toolu_1', 'call_1')
    """
    return call_id if type(call_id) is str and call_id else f"call_{position}"


def cut(call: ToolCall, why: str, *, overrule: bool = False) -> ToolCall:
    """Return `call` marked incomplete, saying `why`.

    A call that is incomplete already keeps its own error, unless `overrule` (the reason that
    matters most to a reader, e.g. that the reply was cut inside this very call).
    """
    if not call.complete and not overrule:
        return call
    return _fast_tool_call({**call.__dict__, "complete": False, "error": why})
