"""LangGraph: route a graph on why the model stopped, not on whether it asked for tools.

`langgraph.prebuilt.tools_condition` sends a reply with tool calls to the tool node and every
other reply to END: a reply cut by `max_tokens`, a refusal and a stop value nobody knows all
end the graph as if it had finished, and a tool call cut in half is run. `stop_condition`
takes its place on the same edge; it reads the model node's reply with stopkit's LangChain
adapter (the same `Stop` as `stopkit.normalize(message)`) and returns its `StopReason` value,
so the path map `stop_routes` builds is the dispatch table of DESIGN section 1:

    graph.add_conditional_edges("agent", stop_condition, stop_routes(escalate="review"))

The loop's safety nets come along. The same tool call asked for too often (name and
arguments, 3 times in the last 10 calls: the loop's own detector and defaults) routes to
`"loop_detected"`, which ends the graph. `final_response` gives a finished graph's answer: the
last reply's text — salvaged from a reply that still carries tool calls when the run was cut
(LangGraph's recursion limit, loop detection) — or None for an empty one, and reports the end
as the stopkit loop does: the `LoopEnded` event to `on_event`, and an empty answer logged at
INFO on the `stopkit.loop` logger.

A run is the messages after the last human message: a thread's earlier turns (a checkpointer
keeps them) count neither as repeats nor as turns. LangGraph itself is never imported here
(END is its constant's value, `"__end__"`); the messages are LangChain's.

Example:
    >>> graph.add_conditional_edges(  # doctest: +SKIP
    ...     "agent", stop_condition, stop_routes(escalate="review", retry="raise_limit"))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stopkit._normalize import normalize
from stopkit._stop import Stop, StopReason
from stopkit.adapters._langchain_rules import kind_of
from stopkit.loop._detector import LoopDetector
from stopkit.loop._ending import log_empty_final
from stopkit.loop._settings import LoopSettings
from stopkit.loop.events import LoopEnded, Termination

__all__ = ["final_response", "stop_condition", "stop_routes"]

# What `stop_condition` says beyond a `StopReason` value.
_LOOP_DETECTED = "loop_detected"

# The loop's detector with the loop's defaults (`loop_threshold` 3, `loop_window` 10).
_SETTINGS = LoopSettings()
_REPLIES = frozenset({"AIMessage", "AIMessageChunk"})

# How a graph whose last reply stopped for each reason ended, in the loop's words. A tool
# request left as the last reply is the loop detection's, or else LangGraph's recursion limit:
# `_termination` decides those.
_ENDED: dict[StopReason, Termination] = {
    StopReason.COMPLETED: Termination.COMPLETED,
    StopReason.STOP_SEQUENCE: Termination.STOP_SEQUENCE,
    StopReason.OUTPUT_LIMIT: Termination.OUTPUT_LIMIT,
    StopReason.FILTERED: Termination.FILTERED,
    StopReason.UNKNOWN: Termination.UNKNOWN,
    StopReason.PAUSED: Termination.PAUSE_LIMIT,
}


def stop_condition(state: Any, messages_key: str = "messages") -> str:
    """Return why the model node's reply stopped: the route of a LangGraph conditional edge.

    A drop-in for `tools_condition`: `state` is a list of messages, or holds one under
    `messages_key` (a dict's key, an object's attribute). The last message must be the AI
    message the model node added. Returns its `StopReason` value (`"tool_request"`,
    `"completed"`, `"output_limit"`, `"filtered"`, `"paused"`, `"stop_sequence"`,
    `"unknown"`), or `"loop_detected"` for a tool request that repeats a call too often.

    Raises:
        ValueError: the state holds no messages, or its last message is not an AI message.

    Example:
        >>> stop_condition([AIMessage("Paris is", response_metadata={  # doctest: +SKIP
        ...     "model_provider": "anthropic", "stop_reason": "max_tokens"})])
        'output_limit'
    """
    messages = _messages(state, messages_key)
    last = messages[-1]
    if kind_of(last) not in _REPLIES:
        raise ValueError(
            "stop_condition reads the reply the model node just added, but the last message is "
            f"a {type(last).__name__}: put it on the edge out of the node that calls the model"
        )
    stop = normalize(last, adapter="langchain")
    if stop.reason is StopReason.TOOL_REQUEST and _repeats(_stops(_run(messages)[:-1]), stop):
        return _LOOP_DETECTED
    return stop.reason.value


def stop_routes(
    *,
    escalate: str,
    tools: str = "tools",
    end: str = "__end__",  # langgraph.constants.END (langgraph/constants.py)
    retry: str | None = None,
    resume: str | None = None,
) -> dict[str, str]:
    """Return the path map for `stop_condition`: each route to the node that handles it.

    The defaults of DESIGN section 1: a tool request goes to `tools`; completed and
    stop_sequence to `end`, as does `"loop_detected"` (the run ends cleanly; `final_response`
    salvages its text). A truncated reply goes to `retry` (a node that asks again with a
    higher limit, or finishes as truncated), a paused one to `resume` (the model node, which
    sends the paused reply back); without them, and for filtered and unknown always, to
    `escalate`. No route leads a truncated, refused or unknown reply to `end` as done.

    Raises:
        ValueError: a node name that is not a non-empty str.

    Example:
        >>> stop_routes(escalate="review")["output_limit"]
        'review'
    """
    nodes = {"escalate": escalate, "tools": tools, "end": end, "retry": retry, "resume": resume}
    for name, node in nodes.items():
        optional = name in ("retry", "resume")
        if not (optional and node is None) and (type(node) is not str or not node):
            raise ValueError(
                f"stop_routes: {name} must name a node (a non-empty str), not {node!r}"
            )
    return {
        StopReason.TOOL_REQUEST.value: tools,
        StopReason.COMPLETED.value: end,
        StopReason.STOP_SEQUENCE.value: end,
        StopReason.OUTPUT_LIMIT.value: retry or escalate,
        StopReason.PAUSED.value: resume or escalate,
        StopReason.FILTERED.value: escalate,
        StopReason.UNKNOWN.value: escalate,
        _LOOP_DETECTED: end,
    }


def final_response(
    state: Any,
    messages_key: str = "messages",
    *,
    on_event: Callable[[LoopEnded], object] | None = None,
) -> str | None:
    """Return a finished graph's answer: the last reply's text, None when it is empty.

    The text is the last AI message's (thinking excluded), also when that reply still carries
    tool calls because the run was cut (the recursion limit, loop detection) and when it was
    truncated (partial) or escalated. Reports the end as the stopkit loop does: `on_event`
    receives `LoopEnded` (the termination, the model calls and the tool calls of the run), and
    an empty answer is logged at INFO on the `stopkit.loop` logger.

    Raises:
        ValueError: the state holds no messages, or no AI message after the last human one.

    Example:
        >>> final_response(graph.invoke({"messages": [("user", "Weather?")]}))  # doctest: +SKIP
        'Sunny in Paris.'
    """
    run = _run(_messages(state, messages_key))
    stops = _stops(run)
    if not stops:
        raise ValueError(
            "final_response found no AI message after the last human message: "
            "the graph made no model call"
        )
    termination = _termination(stops, pending=kind_of(run[-1]) in _REPLIES)
    tool_calls = sum(1 for message in run if getattr(message, "type", None) == "tool")
    text = stops[-1].text
    if text == "":
        log_empty_final(termination, len(stops), tool_calls)
    if on_event is not None:
        on_event(LoopEnded(termination, len(stops), tool_calls, text == ""))
    return text or None


def _termination(stops: Sequence[Stop], *, pending: bool) -> Termination:
    """How a run whose replies were `stops` ended (`pending`: its last message is the reply)."""
    *before, last = stops
    if last.reason is not StopReason.TOOL_REQUEST:
        return _ENDED[last.reason]
    if pending and _repeats(before, last):
        return Termination.LOOP_DETECTED
    return Termination.MAX_TURNS  # the calls were left pending, or run with no reply after them


def _messages(state: Any, key: str) -> Sequence[Any]:
    """The messages of a graph's state, found as `tools_condition` finds them."""
    messages: Any = state
    if isinstance(state, dict):
        messages = state.get(key)
    elif not isinstance(state, list | tuple):
        messages = getattr(state, key, None)
    if not isinstance(messages, list | tuple) or not messages:
        raise ValueError(
            f"no messages in the state: expected a list of messages, or one under {key!r} "
            f"(a dict's key or an attribute); got a {type(state).__name__}"
        )
    return messages


def _run(messages: Sequence[Any]) -> Sequence[Any]:
    """The messages of the current run: those after the last human message."""
    for index in range(len(messages) - 1, -1, -1):
        if getattr(messages[index], "type", None) == "human":
            return messages[index + 1 :]
    return messages


def _stops(messages: Sequence[Any]) -> list[Stop]:
    """The `Stop` of each AI message, in order."""
    return [normalize(m, adapter="langchain") for m in messages if kind_of(m) in _REPLIES]


def _repeats(before: Sequence[Stop], stop: Stop) -> bool:
    """Whether running `stop`'s calls, after the run's earlier replies, repeats one too often."""
    detector = LoopDetector(_SETTINGS)
    for earlier in before:
        detector.detected(earlier)  # records the calls of each earlier tool request
    return detector.detected(stop)
