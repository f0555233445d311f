"""InvokeModel's guardrail fields, read as a fact: an intervention filters unless it only masked.

Every body InvokeModel returns may carry `amazon-bedrock-guardrailAction` (and, with tracing on,
`amazon-bedrock-trace`) beside the model's own fields: a Nova reply in the Converse shape and the
Titan, Llama, Mistral and Cohere Command bodies alike. Both Bedrock readers record it here, so
DESIGN section 3 ("any Bedrock body whose `amazon-bedrock-guardrailAction` is `INTERVENED`") is
read one way.

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

__all__ = ["ACTION", "TRACE", "guardrail"]

ACTION = "amazon-bedrock-guardrailAction"
TRACE = "amazon-bedrock-trace"

#: How many nodes of a guardrail trace are looked at before it is taken as not read.
_TRACE_NODES = 10_000


def guardrail(reading: Reading, fields: Mapping[str, Any]) -> None:
    """Record the body's guardrail intervention as a filter, unless its trace shows only masking.

    A guardrail that anonymized (masked) part of the answer and blocked nothing delivered the
    reply: its stop value stands, with a note. Without a trace saying so, an intervention is a
    filter (DESIGN section 3). `NONE`, or no action at all, says nothing.
    """
    action = fields.get(ACTION)
    if type(action) is not str:
        return
    verdict = GUARDRAIL_ACTIONS.get(action)
    if verdict is None:
        return
    said = f"{ACTION} {action!r}"
    if _masked_only(fields.get(TRACE)):
        reading.notes.append(
            f"{said}, and its trace shows only masking (ANONYMIZED): the reply was delivered "
            "masked; the stop value stands"
        )
    else:
        reading.filter = (verdict[1] or "guardrail", f"{said}: the guardrail intervened")


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
