"""What a step writes: requests as digests and canonical JSON, results as the JSON they were.

A request is compared, not replayed, so it is stored in a canonical form: keys sorted, keys
whose value is null left out (an SDK object dumped with its unset fields, and the dict a
replayed reply gives, then agree), SDK objects dumped by their wire names, bytes as base64,
classes and functions by their qualified names. A pydantic-ai message's `timestamp`s are left
out: pydantic-ai stamps a message (and each of its parts) with the time it was made, so the
same prompt and the same tool results, made again by a rerun, would never compare equal. The
messages are kept as a SHA-256 digest of that form (a transcript can be megabytes), the
overrides in full (an operator reads them).

A result is replayed, so it is kept as it was: a reply as its JSON body (an SDK object
dumped with `model_dump(mode="json", by_alias=True, exclude_none=True)`, which its adapter
reads as it reads the wire; without the null fields, as the adapters send an SDK reply back,
so a replayed transcript is the live one), a stream as the list of its events, a tool result
as its content, error flag and value. A reply whose JSON its adapter reads otherwise is kept
with its class too, and checked to read back the same (`stopkit/loop/_journaled.py`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable
from typing import Any

from pydantic_core import to_jsonable_python

from stopkit._json import loads
from stopkit._json_out import escape_surrogates
from stopkit._stop import ToolCall, ToolResult
from stopkit.loop.journal._errors import JournalError

__all__ = [
    "TranscriptDigest",
    "canonical",
    "digest",
    "dumps",
    "events_json",
    "jsonable",
    "loads",
    "model_request",
    "reply_json",
    "tool_request",
    "tool_result",
    "tool_result_json",
]

_SCALARS = (str, int, float, bool)


def _named(value: Any) -> str | None:
    """Name a class or a function by its module and qualified name (None: not one)."""
    qualname = getattr(value, "__qualname__", None)
    if isinstance(value, type) or (callable(value) and isinstance(qualname, str)):
        return f"{getattr(value, '__module__', '?')}.{qualname}"
    return None


def canonical(value: Any) -> Any:
    """Return `value` as plain JSON data in the one form two equal requests share.

    Raises `JournalError` naming a value that has no stable JSON form.

    Example:
        >>> canonical({"b": [1, None], "a": None, "c": b"hi"})
        {'b': [1, None], 'c': {'$bytes': 'aGk='}}
    """
    kind = type(value)
    if kind is dict:
        return {str(k): canonical(v) for k, v in value.items() if v is not None}
    if kind is list or kind is tuple:
        return [canonical(item) for item in value]
    if value is None or kind in _SCALARS:
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    dump = getattr(value, "model_dump", None)
    if dump is not None and not isinstance(value, type):
        return canonical(dump(mode="json", by_alias=True, exclude_none=True, warnings=False))
    named = _named(value)
    if named is not None:
        return {"$named": named}
    try:
        plain = to_jsonable_python(value, by_alias=True, bytes_mode="base64")
    except Exception:  # an object pydantic cannot encode: no stable form to compare
        raise JournalError(
            f"a {kind.__module__}.{kind.__qualname__} in a journaled request has no JSON form "
            "to record (keep messages and overrides to JSON data, SDK objects, bytes)"
        ) from None
    if kind.__module__.startswith("pydantic_ai."):  # a dataclass stamped when it was made
        plain = _untimed(plain)
    return canonical(plain)


def _untimed(value: Any) -> Any:
    """Return `value` (plain JSON data) without the `timestamp` keys of its objects."""
    if type(value) is dict:
        return {k: _untimed(v) for k, v in value.items() if k != "timestamp"}
    if type(value) is list:
        return [_untimed(item) for item in value]
    return value


def dumps(value: Any, *, sort_keys: bool = True) -> str:
    """Return JSON text to record: no spaces, keys sorted (canonical) unless told otherwise.

    A lone UTF-16 surrogate (text cut inside an emoji) is written as its escape: the stores
    keep UTF-8, which cannot hold one, and the text reads back the same.
    """
    text = json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False)
    return escape_surrogates(text)


def digest(value: Any) -> str:
    """Return the SHA-256 hex digest of `value`'s canonical JSON.

    Example:
        >>> digest({"a": 1, "b": None}) == digest({"a": 1})
        True
    """
    return hashlib.sha256(dumps(canonical(value)).encode("utf-8")).hexdigest()


def jsonable(value: Any) -> Any:
    """Return a reply, an event or a tool's value as JSON data, as it would go over the wire.

    An SDK object is dumped with `model_dump(mode="json", by_alias=True, exclude_none=True)`;
    a dict or list holding some is dumped the same way throughout. Raises `JournalError` when
    there is no JSON form.
    """
    kind = type(value)
    if value is None or kind in _SCALARS:
        return value
    dump = getattr(value, "model_dump", None)
    if dump is not None and not isinstance(value, type):
        return dump(mode="json", by_alias=True, exclude_none=True, warnings=False)
    try:
        return to_jsonable_python(value, by_alias=True, exclude_none=True, bytes_mode="base64")
    except Exception:  # no JSON form: refused below, outside this block, so that the error
        pass  # carries no pydantic error along (DBOS pickles a step's error with its chain)
    raise JournalError(f"a {kind.__module__}.{kind.__qualname__} cannot be recorded as JSON")


def reply_json(reply: Any) -> dict[str, Any]:
    """Return what a model step keeps of a whole reply: `{"reply": <its JSON body>}`."""
    if isinstance(reply, str | bytes | bytearray):
        try:  # a JSON body as text: kept as its JSON
            return {"reply": loads(reply)}
        except ValueError:
            return {"reply": reply if isinstance(reply, str) else None}
    return {"reply": jsonable(reply)}


def events_json(events: Iterable[Any]) -> dict[str, Any]:
    """Return what a model step keeps of a stream: `{"events": [<each event as JSON>]}`."""
    return {"events": [jsonable(event) for event in events]}


class TranscriptDigest:
    """The digest of a transcript, kept up to date as it grows: each message is read once.

    The digest is SHA-256 over the digests of the messages in order. A run's transcript grows
    by appending, so the messages already digested (the same objects, in the same places) are
    not read again: a step costs its new messages, not the whole transcript (which would make
    a long run quadratic). A transcript replaced or cut is digested again from where it
    differs. The loop never changes a message once appended; neither may a handler.

    Example:
        >>> TranscriptDigest().of([{"role": "user", "content": "Hi"}])[:12]
        '015eb06e8f95'
    """

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.states = [hashlib.sha256()]

    def of(self, messages: Any) -> str:
        """Return the digest of `messages`."""
        known, states = self.messages, self.states
        same = 0
        for mine, theirs in zip(known, messages, strict=False):  # the shorter one ends it
            if mine is not theirs:
                break
            same += 1
        if same < len(known):
            del known[same:], states[same + 1 :]
        for message in messages[same:]:
            state = states[-1].copy()
            state.update(hashlib.sha256(dumps(canonical(message)).encode("utf-8")).digest())
            states.append(state)
            known.append(message)
        return states[-1].hexdigest()


def model_request(digest_of_messages: str, overrides: Any) -> str:
    """Return what a model step records as its request: the messages' digest, the overrides."""
    return dumps({"messages": digest_of_messages, "overrides": canonical(dict(overrides))})


def tool_request(call: ToolCall) -> str:
    """Return what a tool step records as its request: the call's id, name, arguments' digest."""
    return dumps({"id": call.id, "name": call.name, "arguments": digest(call.arguments)})


def tool_result_json(result: ToolResult, seconds: float) -> str:
    """Return what a tool step records as its result (the value only where it is JSON)."""
    try:
        value = jsonable(result.value)
    except JournalError:  # the model was sent `content`; the value is kept only where it can be
        value = None
    return dumps(
        {"content": result.content, "is_error": result.is_error, "value": value,
         "seconds": seconds},
        sort_keys=False,
    )  # fmt: skip


def tool_result(call: ToolCall, data: dict[str, Any]) -> ToolResult:
    """Return the `ToolResult` a tool step recorded for `call` (its result, parsed, checked)."""
    return ToolResult.model_construct(
        call_id=call.id,
        name=call.name,
        content=data["content"],
        is_error=bool(data["is_error"]),
        value=data.get("value"),
    )
