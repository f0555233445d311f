"""The OpenAI legacy Completions adapter (`POST /v1/completions`): replies and their streams.

A reply is `{"id", "object": "text_completion", "created", "model", "choices": [{"index",
"text", "logprobs", "finish_reason"}], "usage"}` (openai/types/completion.py,
completion_choice.py); the servers that speak OpenAI's dialect (vLLM, Together, DeepSeek's FIM
completions, Azure) answer their `/v1/completions` the same way. A choice's body is its `text`;
everything beside it (Azure's filter results, vLLM's `stop_reason`, an in-band error, usage) is
read as for Chat Completions (`_openai_choices.py`), and the table and steps are Chat's
(`_openai_completions_rules.py`). Usage is counted as Chat counts it
(openai/types/completion_usage.py, the same `CompletionUsage`). Streams are read by
`_openai_completions_stream.CompletionsStream`.

The endpoint takes a prompt, not messages, and has no tools: a reply is never a tool request.
The conversation turns are the neutral `{"role", "content"}` messages the loop's transcript holds
(the default user message has that shape too); the caller's `call_model` renders the transcript
into its prompt (or sends it to Chat Completions unchanged).

Example:
    >>> stop = OpenAICompletionsAdapter().normalize({"object": "text_completion", "choices": [
    ...     {"index": 0, "text": " Paris.", "finish_reason": "stop"}]})
    >>> (stop.reason.value, stop.text)
    ('completed', ' Paris.')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from stopkit._stop import Stop
from stopkit.adapters import _openai_choices
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._openai_chat_rules import CONTENT_FILTER, PROMPT_FILTER, VLLM_STOP_REASON
from stopkit.adapters._openai_completions_rules import FINISH_REASON, PROVIDER, RULES
from stopkit.adapters._openai_completions_stream import CompletionsStream
from stopkit.adapters._reading import Reading, Verdict
from stopkit.adapters._wire import raw_value, wire

__all__ = ["OpenAICompletionsAdapter"]

_SEQUENCES = (list, tuple)
_KIND = "text_completion"


def _readings(reply: Any) -> list[Reading]:
    """Read a Completions reply (a JSON dict or the SDK's `Completion`): one `Reading` per choice.

    Example:
        >>> [r.text for r in _readings({"choices": [
        ...     {"index": 1, "text": "B", "finish_reason": "stop"},
        ...     {"index": 0, "text": "A", "finish_reason": "length"}]})]
        ['A', 'B']
    """
    return _openai_choices.readings(reply, _text)


def _read(reply: Any) -> Reading:
    """Read the reply's first choice (the lowest `index`): what `normalize` reports.

    Example:
        >>> _read({"choices": [{"text": "Hi", "finish_reason": "stop"}]}).text
        'Hi'
    """
    return _openai_choices.read(reply, _text)


def _text(reading: Reading, said: Mapping[str, Any]) -> None:
    """A choice's body: its `text` (openai/types/completion_choice.py, `text: str`)."""
    text = said.get("text")
    if type(text) is str:
        reading.text = text
    elif text is not None:
        reading.malformed = f"text is a {type(text).__name__}, not a string"


def _is_completion(obj: Any) -> bool:
    """A reply or a stream chunk: a `choices` list, `object` "text_completion"."""
    fields = wire(obj)
    choices = fields.get("choices")
    return isinstance(choices, _SEQUENCES) and raw_value(fields.get("object")) == _KIND


class OpenAICompletionsAdapter(BaseAdapter):
    """Reads legacy Completions replies (JSON dicts or `openai.types.Completion`) and streams.

    Example:
        >>> stop = OpenAICompletionsAdapter().normalize({"object": "text_completion",
        ...     "choices": [{"index": 0, "text": "Once upon", "finish_reason": "length"}]})
        >>> (stop.reason.value, stop.detail)
        ('output_limit', 'max_tokens')
    """

    name = PROVIDER
    rules = RULES
    otel_provider = "openai"  # gen-ai-spans.md's well-known value
    otel_operation = "text_completion"  # legacy Completions: a prompt in, text out
    read = staticmethod(_read)
    readings = staticmethod(_readings)
    # A completion has a `choices` list: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("choices",)
    tables: ClassVar[dict[str, dict[str, Verdict]]] = {
        "finish_reason": FINISH_REASON,
        "stop_reason (vLLM)": VLLM_STOP_REASON,
        "content_filter_results (Azure, filtered: true)": CONTENT_FILTER,
        "prompt_filter_results (Azure)": PROMPT_FILTER,
    }
    stream_notes = (
        "Chunks have the reply's own shape (`object: text_completion`, a piece of `text` per "
        "choice); a choice ends at the chunk carrying its finish_reason, and the usage-only "
        "chunk after it (choices: []) is read for usage only.",
        "Text sent after a choice's finish_reason is ignored (a note counts the chunks); a later, "
        "stricter finish_reason (Azure's content_filter after stop) still wins.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a completion: a `choices` list and `object: text_completion`."""
        return _is_completion(reply)

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a streamed completion chunk (the same shape as a reply)."""
        return _is_completion(event)

    def stream(self) -> CompletionsStream:
        """Return a fresh accumulator for one streamed completion."""
        return CompletionsStream(_readings)

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the completion as an assistant message: `{"role": "assistant", "content"}`.

        The endpoint takes a prompt, so there is no wire message to send back: this is the
        transcript's neutral shape, which the caller's `call_model` renders into its next
        prompt (or sends to Chat Completions as is).

        Example:
            >>> OpenAICompletionsAdapter().assistant_message(stop)  # doctest: +SKIP
            [{'role': 'assistant', 'content': ' Paris.'}]
        """
        return [{"role": "assistant", "content": stop.text}]
