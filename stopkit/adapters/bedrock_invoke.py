"""Amazon Bedrock InvokeModel bodies of the families with a body of their own: one adapter.

`invoke_model` returns the body the model family defines. Four families send one no other adapter
reads; the body's own top-level key tells which (`_bedrock_invoke_rules.FAMILIES`):

- Amazon Titan Text: `{"inputTextTokenCount", "results": [{"tokenCount", "outputText",
  "completionReason"}]}`
- Meta Llama: `{"generation", "prompt_token_count", "generation_token_count", "stop_reason"}`
- Mistral (text completion): `{"outputs": [{"text", "stop_reason"}]}`
- Cohere Command (generate): `{"id", "prompt", "generations": [{"id", "text", "finish_reason"}]}`

One adapter, not one per family: the four come through the same operation with the same
envelope (the guardrail fields, a stream's `amazon-bedrock-invocationMetrics`, its exception
events), each differs only in where its text, stop value and counts sit, which is data
(`Family`) and a table. `Stop.provider` is `bedrock.invoke`; `details["family"]` names the
family. A body with a list of outputs (Cohere's `num_generations`) gives one `Stop` each.

Read elsewhere: Anthropic bodies (`anthropic`), Nova bodies (`bedrock`: the Converse shape),
AI21 Jamba bodies (`openai.chat`: a Chat completion, whose table maps Jamba's `stop` and
`length` as documented), Cohere Command R bodies (`cohere.v1`: a Cohere v1 Chat reply).

Example:
    >>> stop = BedrockInvokeAdapter().normalize({"generation": "Hi", "prompt_token_count": 3,
    ...     "generation_token_count": 1, "stop_reason": "stop"})
    >>> (stop.reason.value, stop.text, stop.details["family"])
    ('completed', 'Hi', 'meta.llama')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, ToolResult
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._bedrock_guardrail import ACTION, TRACE, guardrail
from stopkit.adapters._bedrock_invoke_rules import (
    COHERE,
    LLAMA,
    MISTRAL,
    PROVIDER,
    RULES,
    STREAM_ERRORS,
    TITAN,
    Family,
    family_of,
)
from stopkit.adapters._bedrock_invoke_stream import METRICS, BedrockInvokeStream, chunk_family
from stopkit.adapters._bedrock_rules import GUARDRAIL_ACTIONS
from stopkit.adapters._reading import Reading, Verdict, identify, tokens
from stopkit.adapters._wire import listed, wire

__all__ = ["BedrockInvokeAdapter"]

#: Top-level fields kept in `Stop.details` under their wire names.
_DETAIL_FIELDS = (ACTION, TRACE, METRICS)


def _readings(reply: Any) -> list[Reading]:
    """Read an InvokeModel body into one `Reading` per output (one for Llama's body).

    Example:
        >>> [r.raw_reason for r in _readings({"generations": [
        ...     {"text": "a", "finish_reason": "COMPLETE"},
        ...     {"text": "b", "finish_reason": "MAX_TOKENS"}]})]
        ['COMPLETE', 'MAX_TOKENS']
    """
    fields = wire(reply)
    family = family_of(fields)
    if family is None:
        reading = Reading(reply)
        reading.malformed = "no Titan, Llama, Mistral or Cohere Command output in the body"
        return [reading]
    outputs = listed(fields.get(family.key)) if family.listed else [fields]
    return [_read_output(reply, fields, family, i, output) for i, output in enumerate(outputs)]


def _read(reply: Any) -> Reading:
    """Read an InvokeModel body's first output into its facts.

    Example:
        >>> _read({"results": [{"outputText": "Hi", "completionReason": "FINISH"}]}).text
        'Hi'
    """
    return _readings(reply)[0]


def _read_output(
    reply: Any, fields: Mapping[str, Any], family: Family, i: int, output: Any
) -> Reading:
    """Read one output of a body: its text and stop value, the body's guardrail and counts."""
    where = f"{family.key}[{i}]" if family.listed else "the body"
    item = wire(output) if type(output) is dict else None
    reading = Reading(reply, None if item is None else item.get(family.stop))
    details = reading.details
    details["family"] = family.name
    # Only Cohere Command's body names itself (`id`, the Bedrock user guide's "Cohere Command
    # models" response); no family's body names its model (the request's `modelId` does).
    identify(reading, None, fields.get("id"))
    if item is None:
        reading.malformed = f"{where} is a {type(output).__name__}, not an object"
        return reading
    text = item.get(family.text)
    if type(text) is str:
        reading.text = text
    elif text is not None:
        reading.malformed = f"{where}.{family.text} is a {type(text).__name__}, not a string"
    reading.field = family.name  # its family's stop field: its table decides
    for name in _DETAIL_FIELDS:
        value = fields.get(name)
        if value:
            details[name] = value
    guardrail(reading, fields)
    _usage(reading, fields, family, item)
    return reading


def _usage(reading: Reading, fields: Mapping[str, Any], family: Family, item: Any) -> None:
    """The family's own counts, each as the body sends it; else a stream's invocation metrics.

    Titan and Llama count the prompt (`inputTextTokenCount`, `prompt_token_count`) and the
    output (`tokenCount`, `generation_token_count`); Mistral and Cohere Command bodies carry no
    counts (Bedrock sends them in the `X-Amzn-Bedrock-*-Token-Count` HTTP headers). The last
    chunk of a stream carries `amazon-bedrock-invocationMetrics` (`inputTokenCount`,
    `outputTokenCount`): the count of each the body lacks is taken from there.
    """
    said: dict[str, Any] = {}
    if family.input_count is not None and fields.get(family.input_count) is not None:
        said[family.input_count] = fields.get(family.input_count)
    if family.output_count is not None and item.get(family.output_count) is not None:
        said[family.output_count] = item.get(family.output_count)
    metrics = wire(fields.get(METRICS))
    inputs = said.get(family.input_count or "")
    outputs = said.get(family.output_count or "")
    reading.usage = tokens(
        metrics.get("inputTokenCount") if inputs is None else inputs,
        metrics.get("outputTokenCount") if outputs is None else outputs,
    )
    if said:
        reading.details["usage"] = said


class BedrockInvokeAdapter(BaseAdapter):
    """Reads Bedrock InvokeModel bodies (and streams) of Titan, Llama, Mistral, Cohere Command.

    Example:
        >>> stop = BedrockInvokeAdapter().normalize({"inputTextTokenCount": 5, "results": [
        ...     {"tokenCount": 9, "outputText": "Hi", "completionReason": "LENGTH"}]})
        >>> (stop.reason.value, stop.detail, stop.usage.output_tokens)
        ('output_limit', 'max_tokens', 9)
    """

    name = PROVIDER
    rules = RULES
    otel_provider = "aws.bedrock"  # gen-ai-spans.md's well-known value
    otel_operation = "text_completion"  # prompt-completion bodies (Titan, Llama, Mistral, ...)
    read = staticmethod(_read)
    readings = staticmethod(_readings)
    # A body of one of the four families holds its family's key: auto-detection skips this
    # adapter for a JSON body with none of them.
    detect_keys: ClassVar[tuple[str, ...]] = tuple(f.key for f in (TITAN, LLAMA, MISTRAL, COHERE))
    tables: ClassVar[dict[str, Mapping[str, Verdict]]] = {
        **{f.title: f.table for f in (TITAN, LLAMA, MISTRAL, COHERE)},
        ACTION: GUARDRAIL_ACTIONS,
        "InvokeModelWithResponseStream exception event": STREAM_ERRORS,
    }
    stream_notes = (
        "Pass the decoded chunks (`json.loads(event['chunk']['bytes'])`, the objects each "
        "family sends: Titan's `outputText`/`completionReason`, Llama's "
        "`generation`/`stop_reason`, Mistral's `outputs`), or boto3's events as they come.",
        "The stream ends at the chunk carrying the stop value or "
        "`amazon-bedrock-invocationMetrics` (Bedrock adds them to the last chunk), or at an "
        "exception event (unknown/error; `modelTimeoutException`: unknown/timeout). The "
        "metrics' counts fill what the family's own counts do not say.",
        "A guardrail that intervened (`INTERVENED`) filters the stream; unless its trace shows "
        "only masking, even when no last chunk follows: Bedrock replaced the answer.",
        "Cohere Command (generate) streams are not read: their chunks are not documented for "
        "Bedrock, and their `text`/`is_finished` events are Cohere's own v1 stream events.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a Titan, Llama, Mistral or Cohere Command body."""
        return type(reply) is dict and family_of(reply) is not None

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a decoded Titan, Llama or Mistral stream chunk."""
        return type(event) is dict and chunk_family(event) is not None

    def stream(self) -> BedrockInvokeStream:
        """Return a fresh accumulator for one InvokeModelWithResponseStream."""
        return BedrockInvokeStream(_read)

    def assistant_message(self, stop: Stop) -> dict[str, Any]:
        """Return the reply as a plain assistant message, for a transcript the caller renders.

        These families take one prompt string, not a message list: the caller's `call_model`
        turns the transcript into the family's prompt template.
        """
        return {"role": "assistant", "content": stop.text}

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Refuse: these bodies carry no tool calls, so there is nothing to answer."""
        raise ValueError(
            "Titan, Llama, Mistral text completion and Cohere Command bodies carry no tool "
            f"calls: a {PROVIDER} Stop ({stop.reason.value}) has no results to send"
        )

    def resume(self, stop: Stop) -> tuple[list[Any], dict[str, Any]]:
        """Refuse: no family here has a paused stop, so there is nothing to resume."""
        raise ValueError(
            f"InvokeModel bodies have no paused stop: a {PROVIDER} Stop "
            f"({stop.reason.value}, raw {stop.raw_reason!r}) cannot be resumed"
        )
