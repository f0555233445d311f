"""The one JSON reader of the batch audit: orjson when installed (`stopkit[fast]`), else json.

Chosen once, here, when the batch audit is first used: every other batch module calls `loads`
and `dumps` from this module. orjson parses a results line several times faster than the
standard library (benchmarks/README.md, "Batch audit"), and a batch is millions of lines; the
standard library gives the same values, only slower.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["PARSER", "dumps", "loads"]

_Loads = Callable[[bytes | str], Any]
_Dumps = Callable[[Any], bytes]


def _stdlib_dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _choose() -> tuple[str, _Loads, _Dumps]:
    """Pick the parser: orjson if importable (an optional extra, so imported here, lazily)."""
    try:
        import orjson
    except ImportError:  # the `fast` extra is not installed: the standard library reads the same
        return "json", json.loads, _stdlib_dumps
    # orjson.JSONDecodeError subclasses ValueError, as json's does: callers catch ValueError.
    return "orjson", orjson.loads, orjson.dumps


PARSER, loads, dumps = _choose()
"""`PARSER` names the parser in use; `loads(bytes | str)` raises `ValueError` on bad JSON;
`dumps(value)` returns compact UTF-8 JSON bytes."""
