"""The transcript a run starts from: the messages given, or a `str` prompt as one message.

Before the first reply says which provider it is, a `str` prompt goes out in the plain shape
(`{"role": "user", "content": ...}`, which OpenAI's and Anthropic's APIs take); a provider
refusing that shape (google-genai raises a pydantic error of many lines) gets a one-line
error saying what went out and what to pass instead (`unshaped_prompt`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stopkit._adapter import Adapter
from stopkit._logsafe import clip
from stopkit.loop._handlers import plain_user_message, user_message

__all__ = ["starting_messages", "unshaped_prompt"]

#: The most of a prompt an error message quotes.
QUOTED_PROMPT = 60


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


def unshaped_prompt(prompt: str | None, adapter: Adapter | None) -> str:
    """Say how a `str` prompt went out with no adapter known, for a failed call's error.

    "" when the run has an adapter (given, or read off a reply) or began with messages: then
    the prompt went out in the provider's shape, or in the caller's own.

    Example:
        >>> print(unshaped_prompt("Hi", None))  # doctest: +ELLIPSIS
        ; the str prompt went out as {'role': 'user', 'content': 'Hi'} (...): for Gemini pass ...
    """
    if prompt is None or adapter is not None:
        return ""
    sent = "{'role': 'user', 'content': " + clip(prompt, QUOTED_PROMPT) + "}"
    return (
        f"; the str prompt went out as {sent} (the shape OpenAI and Anthropic take, as no "
        'adapter= was given): for Gemini pass adapter="gemini", for another provider the name '
        "of its adapter, or give the messages in the provider's own shape"
    )
