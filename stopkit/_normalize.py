"""`normalize` and `normalize_all`: find the adapter for a reply and let it read the reply."""

from __future__ import annotations

import io
from typing import Any

from stopkit._adapter import Adapter
from stopkit._errors import UnsupportedReply
from stopkit._json import JSONDecodeFailed, NotUnicode, loads
from stopkit._json_out import escape_surrogates
from stopkit._registry import Plan, detection_plan, get_adapter
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
    except NotUnicode:  # `json.dumps(reply, ensure_ascii=False)` of a reply cut inside an emoji
        return loads(escape_surrogates(str(reply)))  # the escapes read to the same text
    except JSONDecodeFailed as exc:
        raise UnsupportedReply(reply, [], f"not valid JSON: {exc}") from None


def detect(reply: Any) -> Adapter:
    """Return the adapter that reads `reply`, trying user adapters first.

    Raises `UnsupportedReply` naming the adapters tried when none recognizes it.

    Example:
        >>> import stopkit
        >>> stopkit.detect({"choices": [], "object": "chat.completion"}).name
        'openai.chat'
    """
    return _detect(_decode(reply))


# The official SDKs' reply classes, each seen once: the adapter that claimed an object of the
# class. Used only with the built-in adapters alone (a user adapter is tried first, and may
# claim anything) and only after that adapter claims the object at hand too; then no earlier
# adapter could have claimed it, as the fields they test are fixed by the class (`type`,
# `object`, `choices`, `candidates`). It spares an SDK object the adapters tried before its own,
# a third of `normalize` for a Gemini or Responses object (benchmarks/README.md, "Detection").
_SDK_PACKAGES = ("anthropic.", "openai.", "google.genai.", "pydantic_ai.", "agents.")
# class -> (the detection plan it was seen under, the adapter); an entry from another plan
# (adapters registered or removed since) is ignored, so no lock is needed.
_by_class: dict[type, tuple[Plan, Adapter]] = {}
_MAX_CLASSES = 1024


def _detect(reply: Any) -> Adapter:
    plan = detection_plan()
    kind = type(reply)
    if kind is dict:
        return _first_claim(reply, plan, body=True)
    seen = _by_class.get(kind)
    if seen is not None and seen[0] is plan and seen[1].detects(reply):
        return seen[1]
    adapter = _first_claim(reply, plan, body=False)
    if len(_by_class) < _MAX_CLASSES and _by_class_holds(kind, plan):
        _by_class[kind] = (plan, adapter)
    return adapter


def _by_class_holds(kind: type, plan: Plan) -> bool:
    """Say whether the adapter claiming an object of `kind` may be kept for its class."""
    return kind.__module__.startswith(_SDK_PACKAGES) and all(
        type(a).__module__.startswith("stopkit.adapters.") for a, _ in plan
    )


def _first_claim(reply: Any, plan: Plan, *, body: bool) -> Adapter:
    """The first adapter of `plan` claiming `reply`; a JSON body skips those it has no key of."""
    raised: dict[int, str] | None = None
    for adapter, keys in plan:
        if body and keys is not None and keys.isdisjoint(reply):
            continue
        try:
            if adapter.detects(reply):
                return adapter
        except Exception as exc:  # a broken user adapter must not hide the others
            raised = raised or {}
            raised[id(adapter)] = f"{adapter.name} (raised {type(exc).__name__}: {exc})"
    said = raised or {}
    raise UnsupportedReply(reply, [said.get(id(a), a.name) for a, _ in plan])


def normalize(reply: Any, *, adapter: str | Adapter | None = None) -> Stop:
    """Say why a reply stopped: read it with its adapter and return a `Stop`.

    `reply` is an official SDK object (anthropic, openai, google-genai) or the JSON body as a
    dict, `str` or `bytes`. With several choices/candidates, the first is read
    (see `normalize_all`). Pass `adapter=` (a name or an adapter) to skip auto-detection.

    Example:
        >>> import stopkit
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
