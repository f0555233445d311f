"""Bedrock's guardrail fields, read as facts: an intervention filters, and says when it only masked.

Every body InvokeModel returns may carry `amazon-bedrock-guardrailAction` (and, with tracing on,
`amazon-bedrock-trace`) beside the model's own fields: a Nova reply in the Converse shape and the
Titan, Llama, Mistral and Cohere Command bodies alike; a Converse reply says it in its stop value
(`guardrail_intervened`) and its `trace`. Both Bedrock readers record it here, so DESIGN section
3 ("any Bedrock body whose `amazon-bedrock-guardrailAction` is `INTERVENED`"; a guardrail that
only masked is an intervention, through Converse and InvokeModel alike) is read one way.

Example:
    >>> from stopkit.adapters._reading import Reading
    >>> reading = Reading({})
    >>> guardrail(reading, {"amazon-bedrock-guardrailAction": "INTERVENED"})
    >>> reading.filter
    ('guardrail', "amazon-bedrock-guardrailAction 'INTERVENED': the guardrail intervened")
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stopkit.adapters._bedrock_rules import GUARDRAIL_ACTIONS
from stopkit.adapters._reading import Reading

__all__ = ["ACTION", "MASKED_ONLY", "TRACE", "converse_guardrail", "guardrail"]

ACTION = "amazon-bedrock-guardrailAction"
TRACE = "amazon-bedrock-trace"
#: The `Stop.details` key saying a guardrail only masked: the masked answer is in `text`.
MASKED_ONLY = "guardrail_masked_only"

#: How many nodes of a guardrail trace are looked at before it is taken as not read.
_TRACE_NODES = 10_000


def guardrail(reading: Reading, fields: Mapping[str, Any], stop_value: str | None = None) -> None:
    """Record the body's guardrail intervention as a filter, and say when it only masked.

    `stop_value` names the stop value where it says itself that a guardrail intervened
    (Converse's `stopReason 'guardrail_intervened'`: its table filters already). A guardrail
    that anonymized (masked) part of the answer and blocked nothing is still an intervention
    (DESIGN section 3): filtered, read the same through Converse and InvokeModel, with a note
    and `details["guardrail_masked_only"]` saying the masked answer is in `text`, for a handler
    that chooses to deliver it. `NONE`, or no action at all, says nothing.
    """
    action = fields.get(ACTION)
    verdict = GUARDRAIL_ACTIONS.get(action) if type(action) is str else None
    if verdict is not None:
        said = f"{ACTION} {action!r}"
        reading.filter = (verdict[1] or "guardrail", f"{said}: the guardrail intervened")
    elif stop_value is not None:
        said = stop_value
    else:
        return
    trace = fields.get(TRACE)  # InvokeModel's; Converse keeps its trace in `trace`
    if _masked_only(fields.get("trace") if trace is None else trace):
        reading.details[MASKED_ONLY] = True
        reading.notes.append(
            f"{said}, and its trace shows only masking (ANONYMIZED), nothing BLOCKED: still a "
            f"guardrail intervention; the masked answer is in text (details[{MASKED_ONLY!r}])"
        )


def converse_guardrail(reading: Reading, fields: Mapping[str, Any]) -> None:
    """Record a Converse reply's guardrail: its stop value says it intervened, its `trace` how.

    `fields` is the Converse body, or what a framework kept of it beside the stop value
    (ChatBedrockConverse's `response_metadata` keeps `trace`), so a masked-only guardrail reads
    the same through both; `reading.raw_reason` is the `stopReason`.
    """
    intervened = reading.raw_reason == "guardrail_intervened"
    guardrail(reading, fields, "stopReason 'guardrail_intervened'" if intervened else None)


def _masked_only(trace: Any) -> bool:
    """Say whether a guardrail trace holds an `ANONYMIZED` action and no `BLOCKED` one.

    The trace's assessments (service-2.json, `GuardrailAssessment`) carry `action` on each
    filter, topic, word, PII entity and regex: BLOCKED, ANONYMIZED (PII only) or NONE. A trace
    larger than the bound is not read through, so it proves nothing.
    """
    masked = False
    stack = [trace]
    budget = _TRACE_NODES
    while stack:
        budget -= 1
        if budget < 0:
            return False
        node = stack.pop()
        if type(node) is dict:
            action = node.get("action")
            if action == "BLOCKED":
                return False
            masked = masked or action == "ANONYMIZED"
            stack.extend(node.values())
        elif type(node) is list:
            stack.extend(node)
    return masked
