"""stopkit.integrations.langgraph: a real `StateGraph` routed on the `StopReason`.

Each graph is langgraph's own: a `StateGraph` over `MessagesState`, a `ToolNode`, and a model
node calling langchain-core's `GenericFakeChatModel`, whose AI messages carry in
`response_metadata` what each provider's LangChain integration keeps of its stop value.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Mapping
from typing import Any

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

import stopkit
from stopkit.integrations.langgraph import final_response, stop_condition, stop_routes
from stopkit.loop.events import LoopEnded, Termination


@tool
def get_weather(city: str) -> str:
    """Say the weather in a city."""
    return f"Sunny in {city}."


ANTHROPIC = {"model_provider": "anthropic", "model_name": "claude-sonnet-4-5"}
OPENAI = {"model_provider": "openai", "model_name": "gpt-4o"}
GEMINI = {"model_provider": "google_genai", "model_name": "gemini-2.5-flash"}


def _call(city: str = "Paris", call_id: str = "call_1") -> dict[str, Any]:
    return {"name": "get_weather", "args": {"city": city}, "id": call_id}


def reply(text: str, metadata: Mapping[str, Any], *calls: dict[str, Any], **stop: Any) -> AIMessage:
    """An AI message as the integration returns it: its stop value in `response_metadata`."""
    return AIMessage(text, tool_calls=list(calls), response_metadata={**metadata, **stop})


DONE = reply("Sunny in Paris.", ANTHROPIC, stop_reason="end_turn")

# What each provider's reply is, and where each condition sends it (the graph's nodes, in order).
CASES = {
    "anthropic tool_use": (
        reply("", ANTHROPIC, _call(), stop_reason="tool_use"),
        ["agent", "tools", "agent"],
        ["agent", "tools", "agent"],
    ),
    "anthropic max_tokens": (
        reply("The weather in Paris is", ANTHROPIC, stop_reason="max_tokens"),
        ["agent", "escalate"],
        ["agent"],  # tools_condition: END, as if the answer were whole
    ),
    "anthropic max_tokens in a tool call": (
        reply("", ANTHROPIC, _call(), stop_reason="max_tokens"),
        ["agent", "escalate"],
        ["agent", "tools", "agent"],  # tools_condition: the cut call is run
    ),
    "anthropic refusal": (
        reply("", ANTHROPIC, stop_reason="refusal"),
        ["agent", "escalate"],
        ["agent"],
    ),
    "anthropic pause_turn": (
        reply("Searching", ANTHROPIC, stop_reason="pause_turn"),
        ["agent", "escalate"],
        ["agent"],
    ),
    "anthropic stop_sequence": (
        reply("Sunny", ANTHROPIC, stop_reason="stop_sequence", stop_sequence="###"),
        ["agent"],
        ["agent"],
    ),
    "openai stop with a tool call": (
        reply("", OPENAI, _call(), finish_reason="stop"),
        ["agent", "tools", "agent"],
        ["agent", "tools", "agent"],
    ),
    "openai length": (
        reply("The weather in", OPENAI, finish_reason="length"),
        ["agent", "escalate"],
        ["agent"],
    ),
    "openai content_filter": (
        reply("", OPENAI, finish_reason="content_filter"),
        ["agent", "escalate"],
        ["agent"],
    ),
    "gemini STOP with a function call": (
        reply("", GEMINI, _call(), finish_reason="STOP"),
        ["agent", "tools", "agent"],
        ["agent", "tools", "agent"],
    ),
    "gemini MALFORMED_FUNCTION_CALL": (
        reply("", GEMINI, finish_reason="MALFORMED_FUNCTION_CALL"),
        ["agent", "escalate"],
        ["agent"],
    ),
    "an unknown stop value with a tool call": (
        reply("", OPENAI, _call(), finish_reason="brand_new_reason"),
        ["agent", "escalate"],
        ["agent", "tools", "agent"],
    ),
    "no stop value kept": (
        AIMessage("Sunny in Paris."),
        ["agent", "escalate"],
        ["agent"],
    ),
}


def _graph(
    replies: list[AIMessage],
    condition: Callable[..., Hashable],
    routes: dict[Hashable, str] | None = None,
    *,
    checkpointer: Any = None,
) -> Any:
    """A ReAct graph: the model node, a ToolNode, an escalation node, one conditional edge."""
    model = GenericFakeChatModel(messages=iter(replies))
    graph = StateGraph(MessagesState)
    graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    graph.add_node("tools", ToolNode([get_weather]))
    graph.add_node("escalate", lambda state: {"messages": []})
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", condition, routes)
    graph.add_edge("tools", "agent")
    graph.add_edge("escalate", END)
    return graph.compile(checkpointer=checkpointer)


def _path(graph: Any, config: Any = None) -> list[str]:
    """The nodes a run of `graph` went through, in order."""
    updates = graph.stream({"messages": [("user", "Weather in Paris?")]}, config)
    return [node for update in updates for node in update]


ROUTES = stop_routes(escalate="escalate")


@pytest.mark.parametrize(("first", "ours", "theirs"), CASES.values(), ids=list(CASES))
def test_each_reply_takes_its_route_beside_tools_condition(
    first: AIMessage, ours: list[str], theirs: list[str]
) -> None:
    """stop_condition sends each reply where its reason says; tools_condition's path is beside."""
    assert _path(_graph([first, DONE], stop_condition, ROUTES)) == ours
    assert _path(_graph([first, DONE], tools_condition)) == theirs


@pytest.mark.parametrize("first", [case[0] for case in CASES.values()], ids=list(CASES))
def test_the_route_is_the_reason_normalize_gives(first: AIMessage) -> None:
    """The route of a reply is the reason of `stopkit.normalize` for the same message."""
    state = {"messages": [HumanMessage("Weather in Paris?"), first]}
    assert stop_condition(state) == stopkit.normalize(first).reason.value


def test_a_truncated_reply_never_reaches_end_as_done() -> None:
    """No route of stop_routes leads a reason other than a whole answer to END."""
    routes = stop_routes(escalate="review", retry="raise_limit", resume="agent")
    to_end = {route for route, node in routes.items() if node == END}
    assert to_end == {"completed", "stop_sequence", "loop_detected"}
    assert set(routes) == {reason.value for reason in stopkit.StopReason} | {"loop_detected"}


def test_retry_and_resume_take_the_truncated_and_the_paused_reply() -> None:
    """With `retry` and `resume` named, output_limit and paused go there; the rest escalate."""
    routes = stop_routes(escalate="review", retry="raise_limit", resume="agent")
    assert (routes["output_limit"], routes["paused"]) == ("raise_limit", "agent")
    assert (routes["filtered"], routes["unknown"]) == ("review", "review")


def test_a_paused_turn_is_resumed_by_the_model_node() -> None:
    """A pause_turn routed to `resume="agent"` calls the model again, which finishes."""
    paused = CASES["anthropic pause_turn"][0]
    routes = stop_routes(escalate="escalate", resume="agent")
    assert _path(_graph([paused, DONE], stop_condition, routes)) == ["agent", "agent"]


def _repeating(times: int, text: str = "Let me check again.") -> list[AIMessage]:
    return [
        reply(text, ANTHROPIC, _call(call_id=f"call_{n}"), stop_reason="tool_use")
        for n in range(times)
    ]


def test_the_same_call_asked_for_a_third_time_routes_to_loop_detected() -> None:
    """The third identical call (name and arguments) ends the graph; its text is salvaged."""
    events: list[LoopEnded] = []
    graph = _graph([*_repeating(3), DONE], stop_condition, ROUTES)
    state = graph.invoke({"messages": [("user", "Weather in Paris?")]})
    assert stop_condition(state) == "loop_detected"
    assert [type(m).__name__ for m in state["messages"]][-2:] == ["ToolMessage", "AIMessage"]
    assert final_response(state, on_event=events.append) == "Let me check again."
    assert events == [LoopEnded(Termination.LOOP_DETECTED, 3, 2, False)]


def test_calls_with_other_arguments_are_no_loop() -> None:
    """Three calls of one tool with different arguments are run, one after the other."""
    cities = [
        reply("", ANTHROPIC, _call(city, f"call_{city}"), stop_reason="tool_use")
        for city in ("Paris", "Rome", "Oslo")
    ]
    path = _path(_graph([*cities, DONE], stop_condition, ROUTES))
    assert path == ["agent", "tools"] * 3 + ["agent"]


def test_a_threads_earlier_turns_count_no_repeat() -> None:
    """The same call once per human turn of a thread is no loop: a run starts at the human."""
    asked = _repeating(1)[0]
    answered = ToolMessage("Sunny in Paris.", tool_call_id="call_0")
    turn = [HumanMessage("Weather in Paris?"), asked, answered, DONE]
    assert stop_condition([*turn, *turn, HumanMessage("And now?"), asked]) == "tool_request"


def test_the_recursion_limit_salvages_the_text_of_the_pending_reply() -> None:
    """A graph cut by its recursion limit: final_response gives the last reply's text, max_turns."""
    replies = [
        reply(f"Checking {n}.", ANTHROPIC, _call(f"city {n}", f"call_{n}"), stop_reason="tool_use")
        for n in range(10)
    ]
    graph = _graph(replies, stop_condition, ROUTES, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 6}
    with pytest.raises(GraphRecursionError):
        graph.invoke({"messages": [("user", "Weather everywhere?")]}, config)
    events: list[LoopEnded] = []
    state = graph.get_state(config).values
    assert final_response(state, on_event=events.append) == "Checking 2."
    assert events == [LoopEnded(Termination.MAX_TURNS, 3, 3, False)]


@pytest.mark.parametrize(
    ("last", "termination"),
    [
        (DONE, Termination.COMPLETED),
        (CASES["anthropic stop_sequence"][0], Termination.STOP_SEQUENCE),
        (CASES["anthropic max_tokens"][0], Termination.OUTPUT_LIMIT),
        (CASES["anthropic refusal"][0], Termination.FILTERED),
        (CASES["no stop value kept"][0], Termination.UNKNOWN),
        (CASES["anthropic pause_turn"][0], Termination.PAUSE_LIMIT),
        (CASES["anthropic tool_use"][0], Termination.MAX_TURNS),
    ],
    ids=lambda value: getattr(value, "value", ""),
)
def test_final_response_names_how_the_graph_ended(
    last: AIMessage, termination: Termination
) -> None:
    """The LoopEnded event says the termination the stopkit loop gives a run ending so."""
    events: list[LoopEnded] = []
    text = final_response([HumanMessage("Weather?"), last], on_event=events.append)
    assert text == (last.text or None)
    assert events == [LoopEnded(termination, 1, 0, last.text == "")]


def test_an_empty_final_answer_is_none_and_logged_at_info(caplog: pytest.LogCaptureFixture) -> None:
    """An empty final reply gives None, logged as the loop logs one (termination, turn, calls)."""
    empty = reply("", ANTHROPIC, stop_reason="end_turn")
    state = _graph([_repeating(1)[0], empty], stop_condition, ROUTES).invoke(
        {"messages": [("user", "Weather in Paris?")]}
    )
    with caplog.at_level(logging.INFO, logger="stopkit.loop"):
        assert final_response(state) is None
    assert "empty final answer (termination completed, turn 2, 1 tool calls)" in caplog.text


@pytest.mark.parametrize(
    ("state", "error"),
    [
        ({"messages": []}, "no messages in the state"),
        ({"history": [DONE]}, "no messages in the state"),
        ([DONE, ToolMessage("ok", tool_call_id="call_1")], "the last message is a ToolMessage"),
    ],
)
def test_a_state_with_no_reply_to_read_is_refused(state: Any, error: str) -> None:
    """stop_condition names what is wrong with a state it cannot route."""
    with pytest.raises(ValueError, match=error):
        stop_condition(state)


def test_a_custom_messages_key_and_an_object_state_are_read() -> None:
    """As tools_condition: the messages under another key, or an object's attribute."""

    class State:
        def __init__(self) -> None:
            self.chat = [HumanMessage("Weather?"), DONE]

    assert stop_condition({"chat": State().chat}, messages_key="chat") == "completed"
    assert stop_condition(State(), "chat") == "completed"
    assert final_response(State(), "chat") == "Sunny in Paris."


def test_final_response_needs_a_reply_of_the_run() -> None:
    """A state whose last human message has no reply after it is refused, with why."""
    with pytest.raises(ValueError, match="no AI message after the last human message"):
        final_response([DONE, HumanMessage("And now?")])


@pytest.mark.parametrize("bad", ["", None, 3])
def test_a_route_to_no_node_is_refused(bad: Any) -> None:
    """stop_routes refuses a node name that is not a non-empty str, naming the parameter."""
    with pytest.raises(ValueError, match="escalate must name a node"):
        stop_routes(escalate=bad)
