"""The legacy Completions stream accumulator: `text_completion` chunks into one `Stop` per choice.

A streamed completion is a list of chunks shaped like the whole reply (openai/types/completion.py:
"both the streamed and non-streamed response objects share the same shape"): each choice
carries a piece of `text`, and its last chunk the `finish_reason`; with
`stream_options.include_usage` a final chunk with `choices: []` carries the usage. That is Chat's
stream with a `text` body in place of a `delta`, so the accumulator is Chat's (`ChatStream`),
told how a choice's body arrives and how the whole choice is written back.
"""

from __future__ import annotations

from typing import Any, ClassVar

from stopkit.adapters._openai_chat_choice import Choice
from stopkit.adapters._openai_chat_stream import ChatStream
from stopkit.adapters._openai_completions_rules import FINISH_REASON, RULES
from stopkit.adapters._reading import Verdict
from stopkit.adapters._rules import Rules

__all__ = ["CompletionsStream"]


class _TextChoice(Choice):
    """One completion choice being received: its pieces are `text` strings."""

    table: ClassVar[dict[str, Verdict]] = FINISH_REASON

    def _body(self, said: Any) -> None:
        text = said.get("text")
        if type(text) is str and text:
            if self.ended:
                self.late += 1  # the choice has ended: nothing sent after it is taken
            else:
                self.text.append(text)

    def _whole(self) -> dict[str, Any]:
        return {"text": "".join(self.text)}


class CompletionsStream(ChatStream):
    """Collects one streamed completion into the `Stop`s its whole reply would give.

    The Stops' `raw` is the whole reply rebuilt as a `text_completion` dict (each choice's text
    joined, its finish_reason and dialect extras, the usage).

    Example:
        >>> import stopkit
        >>> acc = stopkit.get_adapter("openai.completions").stream()
        >>> acc.feed({"object": "text_completion", "choices": [{"index": 0,
        ...     "text": "Hi", "finish_reason": "stop"}]})
        >>> acc.result().reason.value
        'completed'
    """

    rules: ClassVar[Rules] = RULES
    choice: ClassVar[type[Choice]] = _TextChoice
    kind: ClassVar[str] = "text_completion"
