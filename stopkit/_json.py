r"""Decoding a JSON body, the one way stopkit does it (replies, stream events, payload files).

pydantic-core's parser first (already loaded with pydantic; several times `json.loads` on small
bodies); where it refuses a body only for its nesting (it stops at 254 levels) or for a lone
UTF-16 surrogate escape (a reply cut inside an emoji: JSON's grammar allows it, and `json.loads`,
hence httpx's `response.json()` and the SDKs, reads it), the standard library reads it, so a
reply gives the same answer as a `dict` and as its text. So does a `str` holding such a surrogate
itself (as `json.dumps(reply, ensure_ascii=False)` writes it), which pydantic-core cannot read
(it reads only what UTF-8 can encode). A UTF-8 byte order mark is skipped.

Example:
    >>> loads(b'\xef\xbb\xbf{"a": 1}')
    {'a': 1}
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import from_json

__all__ = ["JSONDecodeFailed", "loads"]

_BOM = b"\xef\xbb\xbf"


class JSONDecodeFailed(ValueError):
    """The text is not JSON stopkit can read; the message says where and why."""


def loads(data: str | bytes | bytearray | memoryview) -> Any:
    """Decode one JSON document; raise `JSONDecodeFailed` naming the problem."""
    data = data.removeprefix("\ufeff") if isinstance(data, str) else bytes(data).removeprefix(_BOM)
    try:
        return from_json(data)
    except TypeError:  # a str holding a lone surrogate (see above): json.loads words any error
        refused = ""
    except ValueError as exc:
        refused = str(exc)
        if "recursion limit" not in refused and "hex escape" not in refused:
            raise JSONDecodeFailed(refused) from None
    try:  # what pydantic-core does not read (see above): the standard library's parser
        return json.loads(data)
    except RecursionError:
        raise JSONDecodeFailed("nested too deeply to read") from None
    except ValueError as exc:
        raise JSONDecodeFailed(refused if "hex escape" in refused else str(exc)) from None
