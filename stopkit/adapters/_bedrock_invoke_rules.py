"""Bedrock InvokeModel's rules for the model families that keep their own body: one table each.

Through InvokeModel (and InvokeModelWithResponseStream) Bedrock returns the body the model family
defines, not the Converse shape. Four families send a body no other adapter reads, each with its
own stop field and values: Amazon Titan Text, Meta Llama, Mistral (text completion) and Cohere
Command (generate). A `Family` says where a body of that family keeps its text, its stop value and
its token counts, and which table maps the value; the body's own top-level key tells the family.

The other families are read elsewhere: Anthropic bodies are Messages replies (`anthropic`), Nova
bodies are in the Converse shape (`bedrock`), AI21 Jamba bodies are Chat completions
(`openai.chat`), and Cohere Command R bodies are Cohere v1 Chat replies (`cohere.v1`).

What a body says beside its stop value is a fact the reader records: the guardrail's
intervention (`_bedrock_guardrail`), the counts, the invocation metrics of a stream's last chunk.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from stopkit._stop import StopReason
from stopkit.adapters._bedrock_rules import STREAM_ERRORS as CONVERSE_STREAM_ERRORS
from stopkit.adapters._cohere_rules import FINISH_REASON as COHERE_V2_FINISH_REASON
from stopkit.adapters._reading import Verdict
from stopkit.adapters._rules import Rules

__all__ = [
    "COHERE",
    "COHERE_FINISH_REASON",
    "FAMILIES",
    "LLAMA",
    "LLAMA_STOP_REASON",
    "MISTRAL",
    "MISTRAL_STOP_REASON",
    "PROVIDER",
    "RULES",
    "STREAM_ERRORS",
    "STREAM_ERROR_FIELD",
    "TITAN",
    "TITAN_COMPLETION_REASON",
    "Family",
    "family_of",
]

PROVIDER = "bedrock.invoke"
_R = StopReason

# Amazon Titan Text, `results[].completionReason`. Source: the Bedrock user guide, "Amazon Titan
# Text models" (docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-text.html),
# which lists FINISHED, LENGTH, STOP_CRITERIA_MET, RAG_QUERY_WHEN_RAG_DISABLED and
# CONTENT_FILTERED; the service itself sends `FINISH` for a natural end (every recorded Titan reply
# in the shared corpus: dd-trace-py, openllmetry, opentelemetry-python-contrib cassettes), which
# DESIGN section 3 maps. Both spellings are kept.
TITAN_COMPLETION_REASON: dict[str, Verdict] = {
    "FINISH": (_R.COMPLETED, None),
    "FINISHED": (_R.COMPLETED, None),
    "LENGTH": (_R.OUTPUT_LIMIT, "max_tokens"),
    # "truncated because the stop criteria was reached": the request's stopSequences are its
    # only stop criteria, so a stop sequence matched (which one, the body does not say).
    "STOP_CRITERIA_MET": (_R.STOP_SEQUENCE, None),
    # "The feature is disabled and cannot complete the query": no answer, an error-like stop.
    "RAG_QUERY_WHEN_RAG_DISABLED": (_R.UNKNOWN, "error"),
    "CONTENT_FILTERED": (_R.FILTERED, "safety"),
}

# Meta Llama, `stop_reason`. Source: the Bedrock user guide, "Meta Llama models"
# (docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-meta.html): `stop` (the model
# finished), `length` (the reply reached max_gen_len and was truncated).
LLAMA_STOP_REASON: dict[str, Verdict] = {
    "stop": (_R.COMPLETED, None),
    "length": (_R.OUTPUT_LIMIT, "max_tokens"),
}

# Mistral text completion, `outputs[].stop_reason`. Source: the Bedrock user guide, "Mistral AI
# text completion" (docs.aws.amazon.com/bedrock/latest/userguide/
# model-parameters-mistral-text-completion.html): `stop` (finished, or one of the request's stop
# sequences matched: the two are one value), `length` (max_tokens reached). `model_length` is
# not on that page: it is Mistral's own value for a filled context window (docs.mistral.ai,
# `finish_reason`), mapped as DESIGN section 3 maps it for Mistral's own API.
MISTRAL_STOP_REASON: dict[str, Verdict] = {
    "stop": (_R.COMPLETED, None),
    "length": (_R.OUTPUT_LIMIT, "max_tokens"),
    "model_length": (_R.OUTPUT_LIMIT, "context_window"),
}

# Cohere Command (generate), `generations[].finish_reason`. Source: cohere-python 7.3.1,
# `cohere/types/finish_reason.py` (`FinishReason`, the type of the v1 generate and v1 chat
# `finish_reason`); the Bedrock user guide, "Cohere Command models" (COMPLETE, MAX_TOKENS, ERROR,
# ERROR_TOXIC); DESIGN section 3 ("Added formats"). The values v2 Chat shares keep v2's verdicts.
COHERE_FINISH_REASON: dict[str, Verdict] = {
    **{
        value: COHERE_V2_FINISH_REASON[value]
        for value in ("COMPLETE", "STOP_SEQUENCE", "MAX_TOKENS", "ERROR", "TIMEOUT")
    },
    "ERROR_TOXIC": (_R.FILTERED, "safety"),
    "ERROR_LIMIT": (_R.OUTPUT_LIMIT, "context_window"),
    "USER_CANCEL": (_R.UNKNOWN, "cancelled"),
}

# The members an InvokeModelWithResponseStream can deliver in place of a chunk. Source: botocore,
# data/bedrock-runtime/2023-09-30/service-2.json, shape "ResponseStream": ConverseStream's
# exceptions, and `modelTimeoutException`. Each one ends the stream.
STREAM_ERRORS: dict[str, Verdict] = {
    **CONVERSE_STREAM_ERRORS,
    "modelTimeoutException": (_R.UNKNOWN, "timeout"),
}


@dataclass(frozen=True)
class Family:
    """Where one family's body keeps its reply, and the table of its stop value."""

    name: str
    """Kept in `Stop.details["family"]`."""
    title: str
    """The stop field, as notes and the reason table name it."""
    table: Mapping[str, Verdict]
    key: str
    """The top-level key that tells the family (a list of outputs, or the text itself)."""
    text: str
    """The text field of one output (of the body, for a family without a list)."""
    stop: str
    """The stop field of one output."""
    listed: bool
    """Whether `key` holds a list of outputs (one `Stop` each) rather than the body's text."""
    marks: tuple[str, ...]
    """Keys of which the first output (the body, for a family without a list) holds one."""
    input_count: str | None = None
    """The prompt's token count (a top-level field)."""
    output_count: str | None = None
    """The output's token count (a field of one output)."""
    value_notes: Mapping[str, str] = field(default_factory=dict)

    def holds(self, fields: Mapping[str, Any]) -> bool:
        """Say whether a body's fields are this family's: its key, shaped as the family sends it.

        Example:
            >>> LLAMA.holds({"generation": "Hi", "stop_reason": "stop"})
            True
        """
        value = fields.get(self.key)
        if self.listed:
            if type(value) is not list or not value:
                return False
            first = value[0]
            return type(first) is dict and any(mark in first for mark in self.marks)
        return type(value) is str and any(mark in fields for mark in self.marks)


TITAN = Family(
    "amazon.titan",
    "Titan completionReason",
    TITAN_COMPLETION_REASON,
    key="results",
    text="outputText",
    stop="completionReason",
    listed=True,
    marks=("outputText", "completionReason"),
    input_count="inputTextTokenCount",
    output_count="tokenCount",
    value_notes={
        "STOP_CRITERIA_MET": (
            "completionReason 'STOP_CRITERIA_MET' (Titan): a stop sequence of the request "
            "matched; the body does not say which"
        ),
    },
)
LLAMA = Family(
    "meta.llama",
    "Llama stop_reason",
    LLAMA_STOP_REASON,
    key="generation",
    text="generation",
    stop="stop_reason",
    listed=False,
    marks=("stop_reason", "generation_token_count", "prompt_token_count"),
    input_count="prompt_token_count",
    output_count="generation_token_count",
)
MISTRAL = Family(
    "mistral",
    "Mistral stop_reason",
    MISTRAL_STOP_REASON,
    key="outputs",
    text="text",
    stop="stop_reason",
    listed=True,
    # Not `text`: the legacy Gemini Interactions body has `outputs` of `{"type", "text"}` too.
    marks=("stop_reason",),
    value_notes={
        "model_length": (
            "stop_reason 'model_length' (Mistral): the context window is full; "
            "treated as output_limit/context_window"
        ),
    },
)
COHERE = Family(
    "cohere.command",
    "Cohere finish_reason",
    COHERE_FINISH_REASON,
    key="generations",
    text="text",
    stop="finish_reason",
    listed=True,
    marks=("finish_reason",),
)

#: In the order the reader tries them; no body holds two of their keys.
FAMILIES: tuple[Family, ...] = (TITAN, LLAMA, MISTRAL, COHERE)


def family_of(fields: Mapping[str, Any]) -> Family | None:
    """Return the family whose body `fields` are, or None.

    Example:
        >>> family_of({"outputs": [{"text": "Hi", "stop_reason": "stop"}]}).name
        'mistral'
    """
    for family in FAMILIES:
        if family.holds(fields):
            return family
    return None


STREAM_ERROR_FIELD = "InvokeModelWithResponseStream exception event"
"""The stop field a stream names when an exception event ended it (`Reading.field`)."""

# A reading names its family (`Reading.field` is the family's name): its table decides. A body
# of no family has no stop value at all (it is malformed).
RULES = Rules(
    PROVIDER,
    "stop value",
    {},
    fields={
        **{f.name: Rules(PROVIDER, f.title, f.table, f.value_notes) for f in FAMILIES},
        STREAM_ERROR_FIELD: Rules(PROVIDER, STREAM_ERROR_FIELD, STREAM_ERRORS),
    },
)
