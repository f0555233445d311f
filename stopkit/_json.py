r"""Decoding JSON, the one way stopkit does it.

Replies, stream events, tool-call arguments, payload files, recorded bodies, journal records
and batch results lines are all read here.

`loads(data)` reads a JSON document as the standard library reads it: it gives `json.loads`'s
value for every document. pydantic-core's parser reads first (already loaded with pydantic;
several times `json.loads` on small bodies); where it refuses a document, the standard library
decides (and words the refusal), so a document pydantic-core does not read (one nested past its
200 levels, or holding a lone UTF-16 surrogate escape, which JSON's grammar allows) reads all
the same. A UTF-8 byte order mark is skipped.

A `str` holding a lone UTF-16 surrogate itself (text cut inside an emoji, decoded from an
escape) is no Unicode text, hence no JSON text: `NotUnicode`, naming where it is. A caller that
holds such text on purpose writes its surrogates as escapes first
(`stopkit._json_out.escape_surrogates`): the escapes read back to the same characters.

`loads_strict(data)` is the batch audit's reader of results lines, where a line is JSON
that is also Unicode text, or is not read: no `NaN`/`Infinity`, no lone surrogate (escaped or
not), strictly UTF-8, no nesting deeper than the interpreter's stack. orjson reads exactly that,
several times faster than the standard library (benchmarks/README.md, "Batch audit"), and is
used when installed (`stopkit[fast]`, imported on the first strict read); without it the
standard library reads the same lines to the same values.

Example:
    >>> loads(b'\xef\xbb\xbf{"a": 1}')
    {'a': 1}
    >>> loads('{"a": NaN}')
    {'a': nan}
    >>> try:
    ...     loads_strict('{"a": NaN}')
    ... except JSONDecodeFailed:
    ...     print("not a results line")
    not a results line
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from pydantic_core import from_json

from stopkit._json_out import first_surrogate

__all__ = [
    "JSONDecodeFailed",
    "NotUnicode",
    "loads",
    "loads_partial",
    "loads_strict",
    "strict_parser",
]

_BOM = b"\xef\xbb\xbf"
# pydantic-core's refusals of documents the standard library reads: nested past its limit, or
# holding a lone surrogate escape.
_STDLIB_READS = ("recursion limit", "hex escape")
_Text = str | bytes | bytearray | memoryview


class JSONDecodeFailed(ValueError):
    """The text is not JSON stopkit can read; the message says where and why."""


class NotUnicode(JSONDecodeFailed):
    """The text holds a lone UTF-16 surrogate: it is no Unicode text, hence no JSON text."""


def loads(data: _Text) -> Any:
    """Decode one JSON document; raise `JSONDecodeFailed` naming the problem."""
    data = data.removeprefix("\ufeff") if isinstance(data, str) else bytes(data).removeprefix(_BOM)
    try:
        return from_json(data)
    except TypeError:  # pydantic-core reads only text UTF-8 can encode
        raise NotUnicode(_not_unicode(data)) from None
    except ValueError as exc:
        refused = str(exc)
    if isinstance(data, bytes) and not any(kind in refused for kind in _STDLIB_READS):
        # The standard library would decode the bytes whole (a 50 MB upload, copied) only to
        # refuse them as well: pydantic-core's refusal stands.
        raise JSONDecodeFailed(refused)
    try:  # what pydantic-core refuses: the standard library decides, and words the refusal
        return json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise JSONDecodeFailed(str(exc)) from None


def loads_partial(text: str) -> Any:
    """Decode what arrived of a JSON document cut while being written (`{"city": "Par`).

    The values that arrived whole are kept; raise `JSONDecodeFailed` when the text begins no
    JSON document (or is no Unicode text).

    Example:
        >>> loads_partial('{"city": "Paris", "days": ')
        {'city': 'Paris'}
    """
    try:
        return from_json(text, allow_partial=True)
    except TypeError:
        raise NotUnicode(_not_unicode(text)) from None
    except ValueError as exc:
        raise JSONDecodeFailed(str(exc)) from None


def _not_unicode(text: str | bytes) -> str:
    at = first_surrogate(text) if isinstance(text, str) else None
    where = "" if at is None else f" at character {at}"
    return f"not Unicode text: a lone UTF-16 surrogate{where} (cut inside an emoji)"


# --- the batch audit's strict reader --------------------------------------------------------------

# An escaped UTF-16 surrogate (`\ud800`): JSON's grammar allows one alone, but no Unicode text
# holds it, so it cannot be written out again as UTF-8. orjson refuses such a line; so does the
# standard library's reader here, so that a report does not depend on the extra installed.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_strict: tuple[str, Callable[[Any], Any]] | None = None


def strict_parser() -> str:
    """Name the parser `loads_strict` uses: `orjson` when installed, else `json`."""
    return _strict_reader()[0]


def loads_strict(data: _Text) -> Any:
    """Decode one batch results line strictly (see above); raise `JSONDecodeFailed` if not."""
    try:
        return _strict_reader()[1](data)
    except JSONDecodeFailed:
        raise
    except ValueError as exc:  # orjson.JSONDecodeError, UnicodeDecodeError
        raise JSONDecodeFailed(str(exc)) from None


def _strict_reader() -> tuple[str, Callable[[Any], Any]]:
    """Pick the strict parser once: orjson if importable (an optional extra, imported here)."""
    global _strict
    if _strict is None:
        try:
            import orjson
        except ImportError:  # the `fast` extra is not installed: the standard library reads
            _strict = ("json", _stdlib_strict)
        else:
            _strict = ("orjson", orjson.loads)
    return _strict


def _refuse_constant(name: str) -> Any:
    raise JSONDecodeFailed(f"{name} is not JSON")  # the standard library's extension


def _stdlib_strict(data: _Text) -> Any:
    # Strictly UTF-8, as orjson reads: `json.loads(bytes)` would guess UTF-16 or UTF-32, and
    # decode a surrogate's UTF-8 bytes into a lone surrogate that cannot be printed again.
    if isinstance(data, str):
        data.encode()  # a lone surrogate in the text: UnicodeEncodeError, a ValueError
        text = data
    else:
        text = bytes(data).decode()
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:  # nested deeper than the interpreter's stack: orjson refuses too
        raise JSONDecodeFailed("nested too deeply") from None
    if _SURROGATE_ESCAPE.search(text) is not None:  # rare: then check that the text is text
        try:
            json.dumps(value, ensure_ascii=False).encode()
        except UnicodeEncodeError:
            raise JSONDecodeFailed("a lone UTF-16 surrogate escape: not Unicode text") from None
    return value
