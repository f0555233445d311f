"""The one JSON reader of the batch audit: orjson when installed (`stopkit[fast]`), else json.

Chosen once, here, when the batch audit is first used: every other batch module calls `loads`
and `dumps` from this module. orjson parses a results line several times faster than the
standard library (benchmarks/README.md, "Batch audit"), and a batch is millions of lines; the
standard library gives the same values, only slower.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

__all__ = ["PARSER", "dumps", "loads"]

_Loads = Callable[[bytes | str], Any]
_Dumps = Callable[[Any], bytes]


def _stdlib_dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


# An escaped UTF-16 surrogate (`\ud800`): JSON's grammar allows one alone, but no Unicode text
# holds it, so it cannot be written out again as UTF-8. orjson refuses such a line; so does the
# standard library's reader here, so that a report does not depend on the extra installed.
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # the standard library's extension; orjson refuses it


def _stdlib_loads(raw: bytes | str) -> Any:
    # Strictly UTF-8, as orjson reads: `json.loads(bytes)` would guess UTF-16 or UTF-32, and
    # decode a surrogate's UTF-8 bytes into a lone surrogate that cannot be printed again.
    if isinstance(raw, str):
        raw.encode()  # a lone surrogate in the text: UnicodeEncodeError, a ValueError
        text = raw
    else:
        text = raw.decode()
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:  # a line nested deeper than the interpreter's stack: orjson refuses too
        raise ValueError("nested too deeply") from None
    if _SURROGATE.search(text) is not None:  # rare: then check that the text is text
        try:
            _stdlib_dumps(value)
        except UnicodeEncodeError:
            raise ValueError("a lone UTF-16 surrogate escape: not Unicode text") from None
    return value


def _choose() -> tuple[str, _Loads, _Dumps]:
    """Pick the parser: orjson if importable (an optional extra, so imported here, lazily)."""
    try:
        import orjson
    except ImportError:  # the `fast` extra is not installed: the standard library reads the same
        return "json", _stdlib_loads, _stdlib_dumps
    def dumps(value: Any) -> bytes:
        try:
            return orjson.dumps(value)
        except orjson.JSONEncodeError:  # nested past the 254 levels orjson writes: the stdlib can
            return _stdlib_dumps(value)

    # orjson.JSONDecodeError subclasses ValueError, as json's does: callers catch ValueError.
    return "orjson", orjson.loads, dumps


PARSER, loads, dumps = _choose()
"""`PARSER` names the parser in use; `loads(bytes | str)` raises `ValueError` on bad JSON;
`dumps(value)` returns compact UTF-8 JSON bytes."""
