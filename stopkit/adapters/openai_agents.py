"""OpenAI Agents SDK results: `RunResult`, `RunResultStreaming`, `agents.items.ModelResponse`.

A run that produced its final output is `completed` (DESIGN section 3), its text the final
output (when it is a string). A run that did not — it paused for tool approvals, it is still
streaming, or it was cancelled — is read from its last model response, and a run waiting on
approvals asks for the calls it is waiting on (`interruptions`). An `agents.items.ModelResponse`
keeps the Responses API's output items and usage but no status: it is read from its items
(`ITEMS`), with the Responses adapter's item reader, and a note says so.

Usage is the model response's own (for a run, its last response's; the whole run's usage is
kept in `details["run_usage"]`), in the Responses convention: `input_tokens` includes the
cached ones, `output_tokens` the reasoning ones.

The objects are detected by their class's module (`agents.result`, `agents.items`): the SDK is
never imported to read them.

Example:
    >>> result = await Runner.run(agent, "Weather in Paris?")  # doctest: +SKIP
    >>> stopkit.normalize(result).reason  # doctest: +SKIP
    <StopReason.COMPLETED: 'completed'>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._calls import tool_call
from stopkit.adapters._framework import class_of
from stopkit.adapters._openai_responses_calls import (
    CLIENT_CALL_TYPES,
    answers,
    call_of,
    input_items,
)
from stopkit.adapters._reading import Reading, Verdict, identify
from stopkit.adapters._rules import Rules
from stopkit.adapters._wire import listed, to_json, wire
from stopkit.adapters.openai_responses import _read_items, _read_usage

__all__ = ["OpenAIAgentsAdapter"]

_PROVIDER = "openai.agents"
_R = StopReason

# A run: `RunResult` / `RunResultStreaming` (agents/result.py). `Runner.run` returns a
# RunResult once the final output is produced, or with `interruptions` (ToolApprovalItems) when
# tool calls wait for the caller's approval; a streamed run says `is_complete`.
_RUN: dict[str, Verdict] = {
    "final_output": (_R.COMPLETED, None),
    "interruptions": (_R.TOOL_REQUEST, None),
}
"""What a run result says, by which of its attributes says it."""

# An `agents.items.ModelResponse` (agents/items.py) keeps `output` (Responses API output items)
# and `usage`, and no status: what its items say stands for one. A reply cut off by a token
# ceiling cannot be told apart from a finished one (the OpenAI Responses model raises for an
# `incomplete` or `failed` response instead of returning it).
_ITEMS: dict[str, Verdict] = {
    "refusal": (_R.FILTERED, "refusal"),
    "client call": (_R.TOOL_REQUEST, None),
    "other items": (_R.COMPLETED, None),
    "no items": (_R.UNKNOWN, "missing"),
}
"""What a bare `ModelResponse` says, by its Responses output items (it keeps no status)."""

_RUN_TITLE = "RunResult"
_ITEMS_TITLE = "ModelResponse items (no status kept)"

_RULES = Rules(
    _PROVIDER,
    "status",
    {},
    fields={
        _RUN_TITLE: Rules(_PROVIDER, _RUN_TITLE, _RUN),
        _ITEMS_TITLE: Rules(_PROVIDER, _ITEMS_TITLE, _ITEMS),
    },
)
"""No stop value is sent: each reading names what says one (a row of `RUN` or of `ITEMS`)."""

_NO_STATUS = "an Agents ModelResponse keeps no status: read from its output items"


def _read(reply: Any) -> Reading:
    """Read a run result or one `agents.items.ModelResponse` into its facts.

    Example:
        >>> read(result).details["final_output"]  # doctest: +SKIP
        'It is sunny in Paris.'
    """
    if _is_run(reply):
        return _read_run(reply)
    reading = _read_response(reply)
    reading.notes.append(_NO_STATUS)
    return reading


def _read_response(response: Any) -> Reading:
    """One model response: its output items, its usage."""
    fields = wire(response)
    reading = Reading(response)
    # agents/items.py `ModelResponse.response_id`; it does not name the model.
    identify(reading, None, fields.get("response_id"))
    output = fields.get("output")
    if not isinstance(output, list | tuple):
        shown = "missing" if output is None else f"a {type(output).__name__}"
        reading.malformed = f"output is {shown}, not a list of items"
    items = listed(output)
    _read_items(reading, items)
    reading.field, reading.named = _ITEMS_TITLE, _items_say(reading, items)
    usage = fields.get("usage")
    if usage is not None:
        reading.details["usage"] = usage
        reading.usage = _read_usage(usage)
    raw_usage = fields.get("raw_usage")
    if raw_usage is not None:
        reading.details["raw_usage"] = raw_usage
    return reading


def _items_say(reading: Reading, items: list[Any]) -> str:
    """Name the `ITEMS` row the items of one response fall under."""
    if reading.refusal is not None:
        return "refusal"
    answered = reading.answered or ()
    if any(call.id not in answered for call in reading.calls):
        return "client call"
    return "other items" if items else "no items"


def _read_run(result: Any) -> Reading:
    """A run: completed when it produced its final output, else what its last response says."""
    fields = wire(result)
    responses = listed(fields.get("raw_responses"))
    if responses:
        reading = _read_response(responses[-1])
        reading.raw = result
    else:
        reading = Reading(result)
        reading.field, reading.named = _ITEMS_TITLE, "no items"
        reading.notes.append("the run holds no model response")
    details = reading.details
    context = wire(fields.get("context_wrapper"))
    if context.get("usage") is not None:
        details["run_usage"] = context["usage"]
    final = fields.get("final_output")
    waiting = listed(fields.get("interruptions"))
    streaming = fields.get("is_complete")  # RunResultStreaming only
    if waiting:
        details["interruptions"] = waiting
        reading.calls = [_approval_call(item) for item in waiting]
        reading.answered = None
        reading.field, reading.named = _RUN_TITLE, "interruptions"
        reading.notes.append(
            f"the run is interrupted: {len(waiting)} tool call(s) await approval "
            "(RunResult.interruptions)"
        )
    elif streaming is False:
        reading.ended = False
        reading.notes.append("the streamed run has not finished (is_complete is False)")
    elif streaming is None or final is not None:
        details["final_output"] = final
        if reading.refusal is None:
            reading.field, reading.named = _RUN_TITLE, "final_output"
            reading.calls = ()  # every call of the run was run by the SDK
            reading.notes.append("the run produced its final output: completed")
            if type(final) is str:
                reading.text = final
        else:  # a `model_refusal` error handler gave the output; the model refused
            reading.notes.append(
                "the run produced a final output, but its last model response is a refusal"
            )
    else:
        reading.notes.append(
            "the streamed run ended without a final output (cancelled, or it failed)"
        )
        if responses:
            reading.notes.append(_NO_STATUS)
    return reading


def _approval_call(item: Any) -> ToolCall:
    """The call a `ToolApprovalItem` waits on (its `raw_item`: a function call, an MCP request)."""
    said = wire(item)
    raw = wire(said.get("raw_item"))
    kind = raw.get("type")
    if type(kind) is str and kind in CLIENT_CALL_TYPES:
        return call_of(raw, kind)
    call_id = raw.get("call_id") or raw.get("id")
    return tool_call(call_id, said.get("tool_name"), to_json(raw.get("arguments")))


# The SDK's classes a reply can be: a run (`RunResult`, `RunResultStreaming`: agents/result.py)
# or one model response (agents/items.py).
_CLASSES = frozenset({"RunResultBase", "ModelResponse"})


def _is_run(reply: Any) -> bool:
    return class_of(reply, "agents.", _CLASSES) == "RunResultBase"


def _output_items(stop: Stop) -> list[Any]:
    """The output items of the reply a Stop read (a run's: its last model response's)."""
    reply = stop.raw
    if _is_run(reply):
        responses = listed(wire(reply).get("raw_responses"))
        reply = responses[-1] if responses else None
    return listed(wire(reply).get("output"))


class OpenAIAgentsAdapter(BaseAdapter):
    """Reads OpenAI Agents SDK run results and model responses.

    Example:
        >>> OpenAIAgentsAdapter().detects({"raw_responses": [], "final_output": "Hi"})
        False
    """

    name = _PROVIDER
    rules = _RULES
    otel_provider = "openai"  # a run speaks the Responses API: well-known
    read = staticmethod(_read)
    # Never a JSON body: auto-detection skips this adapter for every dict without asking it.
    detect_keys: ClassVar[tuple[str, ...]] = ()
    tables: ClassVar[dict[str, dict[str, Verdict]]] = {_RUN_TITLE: _RUN, _ITEMS_TITLE: _ITEMS}

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a `RunResult`, `RunResultStreaming` or Agents `ModelResponse`."""
        return class_of(reply, "agents.", _CLASSES) is not None

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the model response's output items, as Responses input dicts."""
        return input_items(_output_items(stop))

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one Responses answer item per result (`function_call_output`, ...)."""
        return answers(_output_items(stop), results)

    def resume(self, stop: Stop) -> tuple[list[Any], dict[str, Any]]:
        """Refuse: nothing an Agents result says is a pause (approvals are tool requests).

        Raises:
            ValueError: always, naming the stop's reason.
        """
        raise ValueError(f"only a paused reply can be resumed, not {stop.reason.value!r}")
