"""The transcript a run starts from: the messages given, or a `str` prompt as one message."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stopkit._adapter import Adapter
from stopkit.loop.handlers import plain_user_message, user_message

__all__ = ["starting_messages"]


def starting_messages(messages: Sequence[Any] | str, adapter: Adapter | None) -> list[Any]:
    """Return the transcript a run starts from: a copy of `messages`, or a `str` as one message.

    The `str` is a user message in `adapter`'s shape, or the plain one while no adapter is
    known. Anything but a sequence of messages is a `TypeError` naming what was given.
    """
    if isinstance(messages, str):
        return [
            plain_user_message(messages) if adapter is None else user_message(adapter, messages)
        ]
    if not isinstance(messages, Sequence) or isinstance(messages, bytes | bytearray):
        raise TypeError(
            f"messages must be a list of messages or a str, not {type(messages).__name__}"
            + (" (put the one message in a list)" if isinstance(messages, Mapping) else "")
        )
    return list(messages)
