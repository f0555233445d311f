"""The same agent conversation through three loops: stopkit, pydantic-ai and the OpenAI Agents SDK.

The conversation: 20 tool turns, each asking for 2 calls of an instant tool (`lookup`), then a
final text answer (21 model calls). The model is instant in each loop, so what is timed is the
loop's own overhead per turn:

- stopkit: `run_loop` with a `ScriptedModel` replaying Anthropic-shaped reply dicts; each turn
  includes normalizing the reply (stopkit's other peers get their replies pre-built);
- pydantic-ai: `Agent(FunctionModel(...)).run_sync(...)`, the function answering with
  `ToolCallPart`s and then a `TextPart`;
- OpenAI Agents SDK: `Runner.run_sync(Agent(model=<a fake Model>))`, the model answering with
  `ResponseFunctionToolCall` items and then an output message; tracing disabled.

`python -m benchmarks.loops` runs just these rows under pyperf (any pyperf option works,
e.g. `--fast`, `--processes 1`) and prints them with the ratios; `python -m benchmarks` runs them
with every other row.
"""

from __future__ import annotations

from typing import Any

from benchmarks.replies import REPLIES

__all__ = ["LOOP_TURNS", "agents_sdk_loop", "pydantic_ai_loop", "stopkit_loop", "tool_reply"]

Work = Any

LOOP_TURNS = 20
CALLS_PER_TURN = 2
PROMPT = "Look these up."


def _key(turn: int, index: int) -> str:
    return f"{turn}-{index}"


def lookup(key: str) -> str:
    """The instant tool every loop calls."""
    return key


async def alookup(key: str) -> str:
    """The same tool, async: the peers run a sync tool (and model function) in a thread."""
    return key


def tool_reply(turn: int, calls: int) -> dict[str, Any]:
    """An Anthropic tool request with narration and `calls` calls of `lookup`."""
    body = dict(REPLIES["anthropic"]["tool_request"].body)
    body["content"] = [
        {"type": "text", "text": "Checking."},
        *(
            {"type": "tool_use", "id": f"toolu_{turn:03d}_{i:02d}", "name": "lookup",
             "input": {"key": _key(turn, i)}}
            for i in range(calls)
        ),
    ]  # fmt: skip
    return body


def stopkit_loop() -> Work:
    """One run of the conversation through `stopkit.run_loop`."""
    import stopkit
    from stopkit.testing import ScriptedModel

    script = [tool_reply(turn, CALLS_PER_TURN) for turn in range(LOOP_TURNS)]
    script.append(REPLIES["anthropic"]["completed"].body)
    tools = {"lookup": lookup}
    messages = [{"role": "user", "content": PROMPT}]

    def run() -> Any:
        outcome = stopkit.run_loop(ScriptedModel(script), messages, tools=tools)
        assert outcome.turns == LOOP_TURNS + 1, outcome
        assert len(outcome.tool_runs) == LOOP_TURNS * CALLS_PER_TURN
        return outcome

    return run


def pydantic_ai_loop() -> Work:
    """One run of the conversation through pydantic-ai's `Agent` with a `FunctionModel`."""
    from pydantic_ai import Agent, Tool
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if turn == LOOP_TURNS:
            return ModelResponse(parts=[TextPart("All looked up.")])
        return ModelResponse(
            parts=[TextPart("Checking."), *(
                ToolCallPart("lookup", {"key": _key(turn, i)}, tool_call_id=f"c{turn}-{i}")
                for i in range(CALLS_PER_TURN)
            )]
        )  # fmt: skip

    agent = Agent(FunctionModel(model), tools=[Tool(alookup, name="lookup")])

    def run() -> Any:
        result = agent.run_sync(PROMPT)
        assert result.output == "All looked up.", result.output
        return result

    return run


def agents_sdk_loop() -> Work:
    """One run of the conversation through the OpenAI Agents SDK's `Runner` and a fake `Model`."""
    from agents import Agent, Runner, function_tool, set_tracing_disabled
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    set_tracing_disabled(True)  # no exporter thread, no network

    def text(value: str) -> ResponseOutputMessage:
        return ResponseOutputMessage(
            id="msg", type="message", role="assistant", status="completed",
            content=[ResponseOutputText(type="output_text", text=value, annotations=[])],
        )  # fmt: skip

    class FakeModel(Model):
        async def get_response(self, system_instructions: Any, input: Any, *a: Any,
                               **kw: Any) -> ModelResponse:  # fmt: skip
            items = input if isinstance(input, list) else []
            turn = sum(1 for item in items if _kind(item) == "function_call_output")
            turn //= CALLS_PER_TURN
            if turn == LOOP_TURNS:
                return ModelResponse(output=[text("All looked up.")], usage=Usage(),
                                     response_id=None)  # fmt: skip
            calls = [
                ResponseFunctionToolCall(
                    type="function_call", call_id=f"c{turn}-{i}", name="lookup",
                    arguments=f'{{"key": "{_key(turn, i)}"}}',
                )
                for i in range(CALLS_PER_TURN)
            ]  # fmt: skip
            return ModelResponse(output=[text("Checking."), *calls], usage=Usage(),
                                 response_id=None)  # fmt: skip

        def stream_response(self, *a: Any, **kw: Any) -> Any:
            raise NotImplementedError

    tool = function_tool(alookup, name_override="lookup")
    agent = Agent(name="bench", model=FakeModel(), tools=[tool])

    def run() -> Any:
        result = Runner.run_sync(agent, PROMPT, max_turns=LOOP_TURNS + 5)
        assert result.final_output == "All looked up.", result.final_output
        return result

    return run


def _kind(item: Any) -> Any:
    return item.get("type") if isinstance(item, dict) else getattr(item, "type", None)


def main() -> None:
    """Time the three loops under pyperf; print their per-turn overhead and the ratios."""
    import pyperf

    from benchmarks.__main__ import _time_func
    from benchmarks.cases import Case

    rows = [
        Case("loop", "stopkit run_loop", "stopkit.run_loop(ScriptedModel(script), ...)",
             stopkit_loop, "loop_overhead", inner=LOOP_TURNS + 1),
        Case("loop", "pydantic-ai Agent + FunctionModel", "Agent(FunctionModel(f)).run_sync(...)",
             pydantic_ai_loop, "loop_peer", case="pydantic-ai", inner=LOOP_TURNS + 1),
        Case("loop", "OpenAI Agents SDK Runner + fake Model",
             "Runner.run_sync(Agent(model=FakeModel()), ...)", agents_sdk_loop, "loop_peer",
             case="openai-agents", inner=LOOP_TURNS + 1),
    ]  # fmt: skip
    runner = pyperf.Runner(program_args=("-m", "benchmarks.loops"))
    args = runner.parse_args()
    benches = {
        case.name: runner.bench_time_func(case.name, _time_func(case), inner_loops=case.inner)
        for case in rows
    }
    if args.worker or None in benches.values():
        return
    medians = {name: bench.median() for name, bench in benches.items()}
    ours = medians[rows[0].name]
    print(f"\nper turn ({LOOP_TURNS} tool turns x {CALLS_PER_TURN} calls + a final answer):")
    for case in rows:
        value = medians[case.name]
        print(f"  {case.name}: {value * 1e6:.1f} us/turn ({value / ours:.1f}x stopkit)")


if __name__ == "__main__":
    main()
