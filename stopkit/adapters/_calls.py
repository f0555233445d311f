"""Client tool calls as every adapter builds them: arguments parsed once, ids checked, cuts marked.

A call stopkit cannot trust is built anyway, kept in the `Stop` with `complete=False` and an
`error` saying why; such a call is never executed. Why a call may not be complete: its
arguments are not a JSON object (or too large to parse), it has no tool name, its id is not a
string, or the reply was cut while it was being written. Arguments text holding a lone UTF-16
surrogate (text cut inside an emoji) is no Unicode text, hence no JSON: its call is incomplete.

Example:
    >>> tool_call("call_1", "get_weather", '{"city": "Paris"}').arguments
    {'city': 'Paris'}
    >>> tool_call("call_1", "get_weather", '{"city": ').complete
    False
"""

from __future__ import annotations

from typing import Any

from stopkit._json import JSONDecodeFailed, NotUnicode, loads, loads_partial
from stopkit._stop import ToolCall

__all__ = [
    "MAX_ARGUMENTS_CHARS",
    "cut",
    "parse_arguments",
    "partial_arguments",
    "stable_id",
    "tool_call",
]

#: Arguments larger than this are not parsed (the call is marked incomplete): a model that
#: emits megabytes of arguments is broken or hostile, and parsing them would be the cost.
MAX_ARGUMENTS_CHARS = 1_000_000
_ALL_STRINGS: Any = object()


def parse_arguments(raw: Any) -> tuple[dict[str, Any], str | None, bool, str | None]:
    """Parse tool-call arguments into `(arguments, arguments_json, complete, error)`.

    Accepts the JSON string the provider sent, an already-decoded dict (or SDK model), or
    nothing. Anything that is not a JSON object makes the call incomplete, with the reason.

    Example:
        >>> parse_arguments('[1, 2]')[2:]
        (False, 'arguments are a JSON list, not an object')
    """
    if isinstance(raw, str):
        return _parse_json_object(str(raw))
    if raw is None:
        return {}, None, True, None
    if isinstance(raw, dict):
        odd = next((key for key in raw if type(key) is not str), _ALL_STRINGS)
        if odd is not _ALL_STRINGS:  # a dict built in Python: no JSON object has such a key
            return {}, None, False, f"arguments key {odd!r} is not a string"
        return dict(raw), None, True, None
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
        value = loads(raw)
    except NotUnicode as exc:
        # A JSON body's `\ud83d` escape (text cut inside an emoji), decoded into the arguments
        # string: no Unicode text, hence no JSON text, and no tool may get it.
        return {}, raw, False, f"arguments are {exc}"
    except JSONDecodeFailed as exc:
        return {}, raw, False, f"arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return {}, raw, False, f"arguments are a JSON {type(value).__name__}, not an object"
    return value, raw, True, None


def partial_arguments(raw: str) -> dict[str, Any]:
    """Read what arrived of arguments cut while being written: the object they begin, or `{}`.

    What an SDK's own stream accumulator shows of an unfinished call; the call stays incomplete.

    Example:
        >>> partial_arguments('{"city": "Paris", "days": ')
        {'city': 'Paris'}
    """
    try:
        value = loads_partial(raw)
    except JSONDecodeFailed:  # not JSON, or not Unicode text
        return {}
    return value if isinstance(value, dict) else {}


def tool_call(call_id: Any, name: Any, raw_arguments: Any) -> ToolCall:
    """Build a `ToolCall`, parsing its arguments; a bad id or a missing name makes it incomplete.

    An id that is not a string (a list, an object, a number) could never be matched by the
    result the loop sends back: the call keeps the id's text and is not runnable.
    """
    arguments, arguments_json, complete, error = parse_arguments(raw_arguments)
    if type(name) is not str or not name:
        complete, error = False, error or "the call has no tool name"
        name = name if type(name) is str else ""
    if type(call_id) is not str:
        if call_id is not None:
            complete = False
            error = error or f"the call's id is a {type(call_id).__name__}, not a string"
        call_id = "" if call_id is None else str(call_id)
    return ToolCall(
        id=call_id,
        name=name,
        arguments=arguments,
        arguments_json=arguments_json,
        complete=complete,
        error=error,
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
    return call.model_copy(update={"complete": False, "error": why})
