"""Writing JSON that never fails on what a reply held (the result models' dumps, the journal).

A reply's raw values are kept as sent, whatever their type; writing them must not fail: text cut
inside an emoji holds a lone UTF-16 surrogate, which UTF-8 cannot encode (JSON can, as an
escape), a value may have no JSON form, or be nested deeper than pydantic writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_jsonable_python

__all__ = ["JSONSafe", "compact_line", "escape_surrogates", "first_surrogate"]

# A lone UTF-16 surrogate: what a JSON `\\ud83d` escape reads to (text cut inside an emoji).
_SURROGATE = re.compile("[\ud800-\udfff]")
# pydantic's serializer stops at ~255 levels, the standard library's at the recursion limit:
# past this depth a raw value's JSON form is cut (the value itself stays whole).
_MAX_DEPTH = 200
_Fallback = Callable[[Any], Any]
_Warnings = bool | Literal["none", "warn", "error"]


def escape_surrogates(text: str) -> str:
    r"""Write each lone UTF-16 surrogate of JSON text as its escape, so the text is UTF-8 again.

    The escape reads back to the same character: the JSON says what it said.

    Example:
        >>> print(escape_surrogates('{"q": "caf' + chr(0xD83D) + '"}'))
        {"q": "caf\ud83d"}
    """
    return _SURROGATE.sub(_escape, text)


def compact_line(value: Any) -> bytes:
    r"""Return `value` as one line of compact UTF-8 JSON (the batch's request and link files).

    Example:
        >>> compact_line({"custom_id": "r1", "body": {"q": "café"}})
        b'{"custom_id":"r1","body":{"q":"caf\xc3\xa9"}}'
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def first_surrogate(text: str) -> int | None:
    """Return the index of the first lone UTF-16 surrogate in `text`, or None when it has none.

    Example:
        >>> first_surrogate("caf" + chr(0xD83D)), first_surrogate("cafe")
        (3, None)
    """
    found = _SURROGATE.search(text)
    return found.start() if found else None


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


class JSONSafe(BaseModel):
    """A result model whose JSON form never fails on what the reply held.

    Raw values are kept as sent (`Stop.details`), whatever their type: one with no JSON form
    (an agent's tools, a client) is written as its `repr`, one nested past pydantic's depth is
    cut with a marker, and text cut inside an emoji (a lone UTF-16 surrogate, which UTF-8
    cannot encode and pydantic refuses) is written as its JSON escape. An SDK object kept with
    off-spec values dumps without warnings, as `stopkit.adapters._wire.to_json` dumps it.
    """

    # pydantic's own `fallback` and `ensure_ascii` arguments are newer than the pydantic stopkit
    # supports (2.7): they are passed on only when the caller gives them, and the writing of an
    # odd value is done here.
    def model_dump(
        self, *, mode: str = "python", warnings: _Warnings = False, **options: Any
    ) -> dict[str, Any]:
        """Dump the model to a dict, as pydantic does; in JSON mode an odd value is its repr.

        Example:
            >>> from stopkit import ToolCall
            >>> ToolCall(id="c1", name="f").model_dump(mode="json")["arguments"]
            {}
        """
        if mode != "json":
            return super().model_dump(mode=mode, warnings=warnings, **options)
        try:
            return super().model_dump(mode="json", warnings=warnings, **options)
        except ValueError:  # a raw value with no JSON form, or nested past pydantic's depth
            pass
        fallback = options.pop("fallback", None) or repr
        dumped = super().model_dump(warnings=warnings, **options)
        ready: dict[str, Any] = _json_ready(dumped, fallback, 0)
        return ready

    def model_dump_json(
        self, *, indent: int | None = None, warnings: _Warnings = False, **options: Any
    ) -> str:
        """Dump the model to JSON, as pydantic does; an odd value is written as said above.

        Example:
            >>> from stopkit import ToolCall
            >>> call = ToolCall(id="c1", name="f", arguments={"q": chr(0xD83D)})
            >>> json.loads(call.model_dump_json())["arguments"] == {"q": chr(0xD83D)}
            True
        """
        try:
            return super().model_dump_json(indent=indent, warnings=warnings, **options)
        except PydanticSerializationError:  # as above, or a lone surrogate UTF-8 cannot encode
            pass
        ensure_ascii = bool(options.pop("ensure_ascii", False))
        text = json.dumps(
            self.model_dump(mode="json", warnings=warnings, **options),
            indent=indent,
            ensure_ascii=ensure_ascii,
            separators=(",", ": ") if indent is not None else (",", ":"),
        )
        return escape_surrogates(text)


def _json_ready(value: Any, fallback: _Fallback, depth: int) -> Any:
    """A python-mode dump as JSON values, containers deeper than `_MAX_DEPTH` cut."""
    if isinstance(value, dict | list | tuple):
        if depth >= _MAX_DEPTH:
            return f"<nested deeper than {_MAX_DEPTH} levels: not written>"
        if isinstance(value, dict):
            return {
                key if isinstance(key, str) else str(key): _json_ready(item, fallback, depth + 1)
                for key, item in value.items()
            }
        return [_json_ready(item, fallback, depth + 1) for item in value]
    return to_jsonable_python(value, fallback=fallback)
