"""What a journaled run keeps of a model call's reply: the form that reads back to its `Stop`.

Before a model step is recorded, what it would keep is read back as a rerun reads it, with
the adapter the run knew before the call: its JSON (`{"reply": ...}`, a stream's `{"events":
[...]}`), else its JSON with its class (`journal/_replies.py`). A reply read back to another
`Stop` either way (its JSON or its class loses what its adapter reads, LiteLLM's
`_hidden_params`) is refused with a `JournalError` naming its form, and nothing is recorded.
"""

from __future__ import annotations

from typing import Any

from stopkit._adapter import Adapter
from stopkit._errors import UnsupportedReply
from stopkit._stop import Stop
from stopkit.loop._streams import Streamed, read_reply, read_stream
from stopkit.loop.journal._codec import canonical, events_json, reply_json
from stopkit.loop.journal._errors import JournalError
from stopkit.loop.journal._replies import (
    Unreplayable,
    events_with_classes,
    form_of,
    replayable,
    with_class,
)

__all__ = ["kept_json", "recordable"]


def kept_json(reply: Any) -> dict[str, Any]:
    """Return the JSON a model step keeps of what `call_model` returned (a stream: its events)."""
    if type(reply) is Streamed:
        return events_json(reply.events or ())
    return reply_json(reply)


def recordable(reply: Any, stop: Stop, adapter: Adapter | None) -> dict[str, Any]:
    """Return what the model step keeps of `reply`, which the run read live as `stop`.

    Its JSON when that reads back to `stop`, else its JSON with its class; `adapter` is the one
    the run knew before the call (a rerun knows the same). Raises `JournalError` naming the
    reply's form when neither reads back to `stop`: the step is not recorded.

    Example:
        >>> recordable(reply, stop, None)  # doctest: +SKIP
        {'reply': {'type': 'message', ...}}
    """
    kept = kept_json(reply)
    if _reads_back(kept, stop, adapter):
        return kept
    streamed = type(reply) is Streamed
    tagged = events_with_classes(reply.events or []) if streamed else with_class(reply)
    if tagged is not None and _reads_back(tagged, stop, adapter):
        return tagged
    raise JournalError(
        f"{_described(reply)} reply cannot be journaled: read back from what the journal can "
        f"keep of it (its JSON{', its class' if tagged else ''}), it gives another Stop than "
        "the live one, so a rerun would not see what this run saw; return the provider's reply "
        "(its JSON body or the SDK object) from call_model"
    )


def _described(reply: Any) -> str:
    """Name a reply's form for an error: its class, or a stream of its events' classes."""
    if type(reply) is Streamed:
        kinds = dict.fromkeys(form_of(event) for event in reply.events or ())
        return f"a stream of {', '.join(kinds) or 'no event'}"
    return f"a {form_of(reply)}"


def _reads_back(kept: dict[str, Any], stop: Stop, adapter: Adapter | None) -> bool:
    """Say whether a rerun reading `kept` with `adapter` gets `stop` (every field, as JSON)."""
    try:
        replay = replayable(kept)
    except Unreplayable:
        return False
    events = replay.get("events")
    if events is not None:
        again = read_stream(events, adapter, None).stop
    else:
        try:
            again = read_reply(replay["reply"], adapter)[1]
        except UnsupportedReply:
            return False
    return again is not None and _same(again, stop)


def _same(a: Stop, b: Stop) -> bool:
    try:
        return bool(canonical(a.model_dump(mode="json")) == canonical(b.model_dump(mode="json")))
    except (JournalError, ValueError):  # a field with no JSON form: nothing to compare it by
        return False
