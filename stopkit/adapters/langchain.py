"""The LangChain adapter: AI messages and their chunks, `ChatGeneration`, `ChatResult`, `LLMResult`.

A LangChain chat model has already read the provider's reply; what it kept of the stop is the
provider's own value, under the integration's key in `response_metadata` (a generation's
`generation_info`, and a single-generation result's `llm_output`, merged under it as
langchain-core merges them). That value is read with the table of the wire format the
integration speaks (`_langchain_rules`); a message that holds none is unknown/missing, with a
note that LangChain kept no stop value. Tool calls are LangChain's own parse: `tool_calls`, and
`invalid_tool_calls` (never runnable). A refusal is read where the integration keeps it
(`additional_kwargs["refusal"]`, a `refusal` content block). Usage is LangChain's
`usage_metadata`, as LangChain counts it: `input_tokens` includes cached tokens
(`input_token_details.cache_read` / `cache_creation`), `output_tokens` includes reasoning
(`output_token_details.reasoning`).

Objects are recognized by their class (`langchain_core.*`); `import stopkit` never imports
LangChain, and nothing here does until `tool_results` builds `ToolMessage`s.

Example:
    >>> from langchain_core.messages import AIMessage  # doctest: +SKIP
    >>> stopkit.normalize(AIMessage("Hi", response_metadata={"model_provider": "anthropic",
    ...     "stop_reason": "max_tokens"})).reason  # doctest: +SKIP
    <StopReason.OUTPUT_LIMIT: 'output_limit'>
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolResult, Usage
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._bedrock_guardrail import converse_guardrail
from stopkit.adapters._calls import cut, tool_call
from stopkit.adapters._langchain_rules import (
    BEDROCK,
    BLOCK_FIELD,
    GOOGLE,
    INTEGRATIONS,
    NAME,
    OPENAI_RESPONSES,
    RULES,
    block_reason,
    integration,
    kind_of,
)
from stopkit.adapters._langchain_stream import LangChainStream
from stopkit.adapters._reading import Reading, identify, tokens
from stopkit.adapters._wire import listed, wire

__all__ = ["LangChainAdapter"]

_R = StopReason
_KEYS = ", ".join(dict.fromkeys(item.key for item in INTEGRATIONS))
_RESULTS = ("ChatResult", "LLMResult")
_CHUNKS = ("AIMessageChunk", "ChatGenerationChunk")


def _read(reply: Any) -> Reading:
    """Read a LangChain object's first generation (the message itself for a message).

    Example:
        >>> reading = read(message)  # doctest: +SKIP
        >>> (reading.raw_reason, reading.field)  # doctest: +SKIP
        ('end_turn', 'ChatAnthropic stop_reason')
    """
    return _read_all(reply)[0]


def _read_all(reply: Any) -> list[Reading]:
    """Read a LangChain object: one reading per generation of a result, one for a message.

    A single generation's metadata lies over its result's `llm_output`, as langchain-core
    lays them when it returns the message.
    """
    kind = kind_of(reply)
    if kind not in _RESULTS:
        return [_generation(reply, reply, None)]
    fields = wire(reply)
    generations = listed(fields.get("generations"))
    if kind == "LLMResult":  # one list of generations per prompt
        generations = [g for prompt in generations for g in listed(prompt)]
    if not generations:
        reading = Reading(reply)
        reading.malformed = f"the {kind} holds no generation"
        return [reading]
    shared = fields.get("llm_output") if len(generations) == 1 else None
    reads = [_generation(reply, g, shared) for g in generations]
    if len(reads) > 1:
        for index, reading in enumerate(reads):
            reading.details["generation"] = index
    return reads


def _generation(raw: Any, obj: Any, shared: Any) -> Reading:
    """Read a message, or a generation (its message, or an LLM's text) with its metadata."""
    fields = wire(obj)
    if "response_metadata" in fields:  # a message
        return _read_message(raw, fields, fields.get("response_metadata"))
    layers = [shared, fields.get("generation_info")]
    message = fields.get("message")
    if message is not None:
        fields = wire(message)
        layers.append(fields.get("response_metadata"))
    metadata: dict[str, Any] = {}
    for layer in layers:
        if isinstance(layer, Mapping):
            metadata.update(layer)
    if message is None:  # an LLM's generation: text and generation_info only
        reading = Reading(raw)
        text = fields.get("text")
        reading.text = text if type(text) is str else ""
        _stop_value(reading, metadata)
        return reading
    return _read_message(raw, fields, metadata)


def _read_message(raw: Any, fields: Mapping[str, Any], metadata: Any) -> Reading:
    """Read one AI message's fields (`wire(message)`) with the metadata its stop value is in.

    Example:
        >>> reading = _read_message(None, {"content": "Hi"}, {"stop_reason": "end_turn"})
        >>> (reading.raw_reason, reading.field)
        ('end_turn', 'ChatAnthropic stop_reason')
    """
    reading = Reading(raw)
    reading.text, refusal = _content(fields.get("content"))
    extra = fields.get("additional_kwargs")
    kept = wire(extra).get("refusal") if isinstance(extra, Mapping) else None
    if isinstance(kept, str) and kept:
        refusal = kept
    reading.refusal = refusal
    calls = [
        tool_call(said.get("id"), said.get("name"), said.get("args"))
        for said in map(wire, listed(fields.get("tool_calls")))
    ]
    for said in map(wire, listed(fields.get("invalid_tool_calls"))):
        call = tool_call(said.get("id"), said.get("name"), said.get("args"))
        error = said.get("error")
        why = error if isinstance(error, str) and error else "LangChain could not parse this call"
        calls.append(cut(call, f"an invalid tool call: {why}"))
    reading.calls = calls
    usage = fields.get("usage_metadata")
    if usage is not None:
        reading.details["usage"] = usage
        reading.usage = _usage(usage)
    if not isinstance(metadata, Mapping):
        metadata = {}
    _stop_value(reading, metadata)
    return reading


def _content(content: Any) -> tuple[str, str | None]:
    """The visible text of a message's content (a string, or blocks), and a refusal block's."""
    if type(content) is str:
        return content, None
    texts: list[str] = []
    refusal: str | None = None
    for block in listed(content):
        if isinstance(block, str):  # merged chunks may hold bare strings among the blocks
            texts.append(block)
            continue
        said = wire(block)
        kind = said.get("type")
        if kind == "text":
            text = said.get("text")
            if isinstance(text, str):
                texts.append(text)
        elif kind == "refusal":  # the Responses API's refusal part, as ChatOpenAI keeps it
            said_refusal = said.get("refusal")
            if isinstance(said_refusal, str) and said_refusal:
                refusal = said_refusal
    return "".join(texts), refusal


def _usage(usage: Any) -> Usage | None:
    """The counts of LangChain's `UsageMetadata` (langchain_core/messages/ai.py)."""
    counts = wire(usage)
    cached = wire(counts.get("input_token_details"))
    return tokens(
        counts.get("input_tokens"),
        counts.get("output_tokens"),
        wire(counts.get("output_token_details")).get("reasoning"),
        cached.get("cache_read"),
        cached.get("cache_creation"),
        counts.get("total_tokens"),
    )


def _stop_value(reading: Reading, metadata: Mapping[str, Any]) -> None:
    """Find the integration's stop value in the metadata, and name the field it is read from."""
    # The provider's model and reply id, as the integrations keep them: `model_name`
    # (langchain-openai's, -anthropic's and -google-genai's `llm_output`/`generation_info`) or
    # `model` (ChatOllama's reply, Anthropic's body), and `id` (the provider's, in `llm_output`).
    identify(reading, metadata.get("model_name") or metadata.get("model"), metadata.get("id"))
    found, guessed = integration(metadata)
    provider = metadata.get("model_provider")
    if guessed is not None:
        reading.notes.append(guessed)
    if found is None:
        if type(provider) is str:
            reading.details["integration"] = provider
        reading.notes.append(
            f"LangChain kept no stop value: the message's metadata holds none of {_KEYS} "
            "(a message not built from a model's reply says nothing of why it stopped)"
        )
        return
    reading.details["integration"] = provider if type(provider) is str else found.name
    raw = metadata.get(found.key)
    reading.raw_reason = raw
    reading.field = found.title
    if found is OPENAI_RESPONSES:
        reading.details["incomplete_details"] = metadata.get("incomplete_details")
    elif found is BEDROCK:  # its metadata is the Converse body's rest, `trace` included
        converse_guardrail(reading, metadata)
    elif found.key == "stop_reason":
        sequence = metadata.get("stop_sequence")
        if isinstance(sequence, str):
            reading.stop_sequence = sequence
    if raw is None and not (found is GOOGLE and _blocked(reading, metadata)):
        reading.notes.append(
            f"LangChain kept no stop value: no {found.key} in the {found.name} message's metadata"
        )


def _blocked(reading: Reading, metadata: Mapping[str, Any]) -> bool:
    """A Gemini reply with no candidate: its prompt's block reason is the value, if it has one."""
    block = block_reason(metadata)
    if block is None:
        return False
    reading.raw_reason = block
    reading.field = BLOCK_FIELD
    reading.details["prompt_feedback"] = metadata.get("prompt_feedback")
    return True


def _message(stop: Stop) -> Any:
    """The AI message a Stop was read from (a result's generation by its index)."""
    raw = stop.raw
    kind = kind_of(raw)
    if kind in _RESULTS:
        generations = listed(wire(raw).get("generations"))
        if kind == "LLMResult":
            generations = [g for prompt in generations for g in listed(prompt)]
        raw = generations[stop.details.get("generation", 0)]
        kind = kind_of(raw)
    if kind in ("ChatGeneration", "ChatGenerationChunk"):
        return wire(raw).get("message")
    if kind in ("AIMessage", "AIMessageChunk"):
        return raw
    raise ValueError(f"this Stop's raw reply holds no AI message to send back ({kind or raw!r})")


class LangChainAdapter(BaseAdapter):
    """Reads LangChain's AI messages, generations and results, and continues their conversations.

    Example:
        >>> stopkit.get_adapter("langchain").normalize(ai_message).reason  # doctest: +SKIP
        <StopReason.TOOL_REQUEST: 'tool_request'>
    """

    name = NAME
    rules = RULES
    read = staticmethod(_read)
    readings = staticmethod(_read_all)
    # LangChain objects are never JSON bodies: auto-detection never asks this adapter about one.
    detect_keys: ClassVar[tuple[str, ...]] = ()
    tables: ClassVar[dict[str, dict[str, tuple[StopReason, str | None]]]] = {
        item.title: dict(item.rules.table) for item in INTEGRATIONS
    }
    stream_notes = (
        "A stream is the AIMessageChunks (or ChatGenerationChunks) a chat model yields; they "
        "are merged as LangChain merges them (`+`), and the merged message is read.",
        "The stream has ended at the chunk that carries the integration's stop value (or "
        "LangChain's `chunk_position='last'`); a stream without it is unknown/stream_incomplete.",
        "Text or tool calls in chunks after the end are not taken (a note counts them); usage "
        "still is, and a later stop value replaces the held one only when stricter.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a LangChain AI message, generation or result."""
        return type(reply) is not dict and kind_of(reply) is not None

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a LangChain stream chunk (`AIMessageChunk`, a generation's)."""
        return type(event) is not dict and kind_of(event) in _CHUNKS

    def stream(self) -> LangChainStream:
        """Return a fresh accumulator for the chunks of one streamed message."""
        return LangChainStream(_read_message)

    def assistant_message(self, stop: Stop) -> list[Any]:
        """Return the AI message itself (LangChain sends its own messages back as they are).

        Example:
            >>> LangChainAdapter().assistant_message(stop)  # doctest: +SKIP
            [AIMessage(content='Hi', ...)]
        """
        return [_message(stop)]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[Any]:
        """Return one LangChain `ToolMessage` per result (`status="error"` for a failed one).

        Example:
            >>> LangChainAdapter().tool_results(stop, [ToolResult(call_id="t1", name="f",
            ...     content="42")])  # doctest: +SKIP
            [ToolMessage(content='42', name='f', tool_call_id='t1')]
        """
        from langchain_core.messages import ToolMessage  # only here: a LangChain user has it

        return [
            ToolMessage(
                content=r.content,
                tool_call_id=r.call_id,
                name=r.name,
                status="error" if r.is_error else "success",
            )
            for r in results
        ]

    def user_message(self, text: str) -> Any:
        """Return a user message saying `text`: a LangChain `HumanMessage`.

        Example:
            >>> LangChainAdapter().user_message("Go on.")  # doctest: +SKIP
            HumanMessage(content='Go on.', ...)
        """
        from langchain_core.messages import HumanMessage  # only here: a LangChain user has it

        return HumanMessage(text)

    def resume(self, stop: Stop) -> tuple[list[Any], dict[str, Any]]:
        """Return the messages that resume a paused ChatAnthropic turn: the message itself.

        Anthropic continues a `pause_turn` from the reply sent back as the last message;
        no other integration pauses a turn that way.

        Raises:
            ValueError: for a Stop that is not a paused ChatAnthropic reply.
        """
        if stop.reason is not StopReason.PAUSED or stop.details.get("integration") != "anthropic":
            raise ValueError(
                f"only a paused ChatAnthropic reply can be resumed; this one is "
                f"{stop.reason.value} ({stop.details.get('integration')!r})"
            )
        return self.assistant_message(stop), {}
