"""`normalize` and `normalize_all`: find the adapter for a reply and let it read the reply."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from stopkit._adapter import Adapter
from stopkit._errors import UnsupportedReply
from stopkit._json import JSONDecodeFailed, loads
from stopkit._registry import detect_keys, get_adapter, registered_adapters
from stopkit._stop import Stop

__all__ = ["detect", "normalize", "normalize_all", "reply_of"]


_TEXT = (str, bytes, bytearray, memoryview)


def _decode(reply: Any) -> Any:
    """Turn a JSON body given as `str`/`bytes` into a dict; leave everything else alone."""
    if type(reply) is dict or not isinstance(reply, _TEXT):
        return reply
    # (surrogatepass: a str may hold a lone surrogate, text cut inside an emoji; see stopkit._json)
    head = (
        bytes(reply[:64])
        if not isinstance(reply, str)
        else reply[:64].encode("utf-8", "surrogatepass")
    )
    if head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith((b"data:", b"event:")):
        raise UnsupportedReply(
            reply, [], "this is a server-sent event stream: use stopkit.normalize_stream()"
        )
    try:
        return loads(reply)
    except JSONDecodeFailed as exc:
        raise UnsupportedReply(reply, [], f"not valid JSON: {exc}") from None


def detect(reply: Any) -> Adapter:
    """Return the adapter that reads `reply`, trying user adapters first.

    Raises `UnsupportedReply` naming the adapters tried when none recognizes it.

    Example:
        >>> stopkit.detect({"choices": [], "object": "chat.completion"}).name
        'openai.chat'
    """
    return _detect(_decode(reply))


# The official SDKs' reply classes, each seen once: the adapter that claimed an object of the
# class. Used only with the built-in adapters alone (a user adapter is tried first, and may
# claim anything) and only after that adapter claims the object at hand too; then no earlier
# adapter could have claimed it, as the fields they test are fixed by the class (`type`,
# `object`, `choices`, `candidates`). Saves trying the adapters before it (~0.3 us each). The
# frameworks' objects (pydantic-ai, the OpenAI Agents SDK) hold none of those fields, so every
# wire adapter refuses them by class too; their adapters come last, after every refusal.
_SDK_PACKAGES = ("anthropic.", "openai.", "google.genai.", "pydantic_ai.", "agents.")
# class -> (the detection order it was seen under, the adapter); an entry from another order
# (adapters registered or removed since) is ignored, so no lock is needed.
_by_class: dict[type, tuple[tuple[Adapter, ...], Adapter]] = {}


# A JSON body is tried against every adapter in order. An adapter may declare `detect_keys`:
# top-level keys of which a body must hold at least one for its `detects` to accept it (a
# necessary condition, pinned for the built-ins by tests/test_detect_keys.py). A body holding
# none of them skips that adapter without the call (~70 ns each), so a Gemini body no longer
# pays for the three adapters tried before it. The plan is rebuilt when the order changes.
_Plan = tuple[tuple[Adapter, Callable[[Any], bool], frozenset[str] | None], ...]
_plan: tuple[tuple[Adapter, ...], _Plan] = ((), ())


def _dict_plan(order: tuple[Adapter, ...]) -> _Plan:
    global _plan
    # An adapter with no keys at all (one that reads framework objects) never accepts a body:
    # left out, rather than checked against every key of every body.
    plan = tuple(
        (a, a.detects, keys) for a in order if (keys := _key_set(detect_keys(a))) is None or keys
    )
    _plan = (order, plan)  # replaced whole: readers without the lock see one or the other
    return plan


def _key_set(keys: tuple[str, ...] | None) -> frozenset[str] | None:
    return None if keys is None else frozenset(keys)


def _detect(reply: Any) -> Adapter:
    order = registered_adapters()
    kind = type(reply)
    cacheable = False
    if kind is dict:
        planned = _plan
        for adapter, detects, keys in planned[1] if planned[0] is order else _dict_plan(order):
            if keys is not None and keys.isdisjoint(reply):  # one C call over the body's keys
                continue
            try:
                if detects(reply):
                    return adapter
            except Exception:  # a broken user adapter: the full pass below names it
                break
        else:
            raise UnsupportedReply(reply, [a.name for a in order])
    else:
        seen = _by_class.get(kind)
        if seen is not None and seen[0] is order and seen[1].detects(reply):
            return seen[1]
        cacheable = kind.__module__.startswith(_SDK_PACKAGES) and all(
            type(a).__module__.startswith("stopkit.adapters.") for a in order
        )
    raised: dict[int, str] | None = None
    for adapter in order:
        try:
            if adapter.detects(reply):
                if cacheable and len(_by_class) < 1024:
                    _by_class[kind] = (order, adapter)
                return adapter
        except Exception as exc:  # a broken user adapter must not hide the others
            raised = raised or {}
            raised[id(adapter)] = f"{adapter.name} (raised {type(exc).__name__}: {exc})"
    tried = [raised.get(id(a), a.name) if raised else a.name for a in order]
    raise UnsupportedReply(reply, tried)


def normalize(reply: Any, *, adapter: str | Adapter | None = None) -> Stop:
    """Say why a reply stopped: read it with its adapter and return a `Stop`.

    `reply` is an official SDK object (anthropic, openai, google-genai) or the JSON body as a
    dict, `str` or `bytes`. With several choices/candidates, the first is read
    (see `normalize_all`). Pass `adapter=` (a name or an adapter) to skip auto-detection.

    Example:
        >>> stop = stopkit.normalize({"object": "chat.completion", "choices": [{"index": 0,
        ...     "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}]})
        >>> stop.reason
        <StopReason.COMPLETED: 'completed'>
    """
    if type(reply) is not dict:  # a JSON body given as a dict needs no decoding
        reply = _decode(reply)
    if adapter is None:
        return _detect(reply).normalize(reply)
    chosen = get_adapter(adapter)
    if not chosen.detects(reply):
        raise UnsupportedReply(reply, [chosen.name], f"not a {chosen.name} reply")
    return chosen.normalize(reply)


def normalize_all(reply: Any, *, adapter: str | Adapter | None = None) -> tuple[Stop, ...]:
    """Return one `Stop` per choice/candidate of a reply, in order.

    Example:
        >>> [s.reason.value for s in stopkit.normalize_all(two_choice_reply)]  # doctest: +SKIP
        ['completed', 'output_limit']
    """
    reply = _decode(reply)
    chosen = _detect(reply) if adapter is None else get_adapter(adapter)
    if adapter is not None and not chosen.detects(reply):
        raise UnsupportedReply(reply, [chosen.name], f"not a {chosen.name} reply")
    reader = getattr(chosen, "normalize_all", None)
    if reader is None:
        return (chosen.normalize(reply),)
    result: tuple[Stop, ...] = tuple(reader(reply))
    return result


def reply_of(value: Any) -> Any:
    """Return the reply in what a client returned: the value itself, or its unread JSON body.

    What the loop and `stopkit.wrap` read: boto3's `invoke_model` returns the model's body as a
    `StreamingBody`, still unread. It is read, and an unread `StreamingBody` of the same bytes
    is put back in its place for the caller.

    Example:
        >>> reply_of({"choices": []})
        {'choices': []}
    """
    body = value.get("body") if type(value) is dict else None
    if type(body).__name__ != "StreamingBody" or not type(body).__module__.startswith("botocore."):
        return value
    # The reply came from botocore: it is installed (and untyped).
    from botocore.response import StreamingBody  # type: ignore[import-untyped]

    data = value["body"].read()
    value["body"] = StreamingBody(io.BytesIO(data), len(data))
    return data
