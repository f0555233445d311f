"""The loop driver against the four real adapters: every path of issue 8, per provider.

The replies come from `tests/loop/_shapes.py`; one parametrized test per path runs for every
provider, with the adapter auto-detected from the first reply, as a user's loop would run.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

import stopkit
import stopkit.loop
import stopkit.loop.events
import stopkit.record
from stopkit import StopReason, Termination
from stopkit.loop import DEFAULT_HANDLERS
from stopkit.loop._ending import SYNTHESIZE_PROMPT
from stopkit.testing import ScriptedModel
from tests.loop._shapes import (
    TOOLS,
    Gemini,
    OpenAIChat,
    OpenAIResponses,
    Shapes,
    assert_every_call_answered_once,
    get_weather,
    paris,
    tokyo,
)


def run(p: Shapes, script: Sequence[Any], **settings: Any) -> tuple[stopkit.Outcome, ScriptedModel]:
    model = ScriptedModel(script)
    settings.setdefault("tools", TOOLS)
    outcome = stopkit.run_loop(model, [p.user], **settings)
    return outcome, model


def test_tools_then_answer(p: Shapes) -> None:
    """Two tool turns then an answer, in the provider's own message format."""
    outcome, model = run(
        p,
        [
            p.tools([paris()], "Let me check Paris."),
            p.tools([tokyo()]),
            p.text("Paris: 18 °C; Tokyo: 24 °C."),
        ],
    )
    assert outcome.termination is Termination.COMPLETED
    assert outcome.text == "Paris: 18 °C; Tokyo: 24 °C."
    assert outcome.stop is not None
    assert outcome.stop.provider == p.name
    assert [r.result.content for r in outcome.tool_runs] == [
        json.dumps(get_weather("Paris"), ensure_ascii=False),
        json.dumps(get_weather("Tokyo"), ensure_ascii=False),
    ]
    assert p.pairs(model.calls[1].messages) == (["call_p"], ["call_p"])
    assert_every_call_answered_once(p, outcome)
    assert outcome.messages[0] == p.user


def test_parallel_calls_one_failing(p: Shapes) -> None:
    """Parallel calls: a raising tool and an unknown tool give error results, the rest runs."""
    outcome, _ = run(
        p,
        [
            p.tools(
                [
                    paris("c1"),
                    ("c2", "get_weather", {"city": "Atlantis"}),
                    ("c3", "get_time", {}),
                    tokyo("c4"),
                ]
            ),
            p.text("Two of four."),
        ],
    )
    assert outcome.text == "Two of four."
    by_id = {r.call.id: r.result for r in outcome.tool_runs}
    assert [by_id[i].is_error for i in ("c1", "c2", "c3", "c4")] == [False, True, True, False]
    errors = p.error_results(outcome.messages)
    assert errors["c2"] == "LookupError: no weather station for Atlantis"
    assert "unknown tool 'get_time'" in errors["c3"]
    assert_every_call_answered_once(p, outcome)


def test_truncation_then_raised_limit(p: Shapes) -> None:
    """A cut reply is dropped, retried with max_tokens doubled, and the retry's answer kept."""
    outcome, model = run(
        p, [p.truncated("Paris is"), p.text("Paris is 18 °C.")], overrides={"max_tokens": 512}
    )
    assert outcome.termination is Termination.COMPLETED
    assert outcome.text == "Paris is 18 °C."
    assert [c.overrides for c in model.calls] == [{"max_tokens": 512}, {"max_tokens": 1024}]
    assert model.calls[1].messages == (p.user,)
    assert len(outcome.messages) == 2


def test_truncation_with_no_known_ceiling_doubles_what_the_reply_spent(p: Shapes) -> None:
    """With no max_tokens known, the retry asks twice the output tokens the cut reply reports."""
    outcome, model = run(p, [p.truncated("Paris is"), p.text("Paris is 18 °C.")])
    assert outcome.termination is Termination.COMPLETED
    assert [c.overrides for c in model.calls] == [{}, {"max_tokens": 10}]  # it reported 5


def test_truncation_counts_gemini_thinking_into_the_ceiling() -> None:
    """Gemini counts thinking apart from its output: both were spent under the ceiling."""
    p = Gemini()
    cut = p.truncated("Paris is")
    cut["usageMetadata"] |= {"candidatesTokenCount": 100, "thoughtsTokenCount": 900}
    outcome, model = run(p, [cut, p.text("Paris is 18 °C.")])
    assert outcome.termination is Termination.COMPLETED
    assert [c.overrides for c in model.calls] == [{}, {"max_tokens": 2000}]


def test_truncation_twice(p: Shapes) -> None:
    """Cut twice: finish with output_limit, the partial text on the outcome, not the transcript."""
    outcome, model = run(
        p, [p.truncated("Paris"), p.truncated("Paris is"), p.text("never")], max_tokens=100
    )
    assert outcome.termination is Termination.OUTPUT_LIMIT
    assert outcome.text == "Paris is"
    assert outcome.messages == [p.user]
    assert model.remaining == 1


def test_cut_call_is_never_run(p: Shapes) -> None:
    """A tool call cut off by the limit (complete=False) is never run; the reply is retried."""
    ran: list[str] = []
    outcome, _ = run(
        p,
        [p.truncated("Checking.", paris("cut")), p.tools([paris()]), p.text("18 °C.")],
        tools={"get_weather": lambda city: ran.append(city) or "18 °C"},
        max_tokens=64,
    )
    assert ran == ["Paris"]
    assert [r.call.id for r in outcome.tool_runs] == ["call_p"]
    assert outcome.text == "18 °C."
    assert "cut" not in p.pairs(outcome.messages)[0]


@pytest.mark.parametrize("p", [OpenAIChat(), OpenAIResponses()], ids=lambda p: p.name)
def test_unparseable_call_is_never_run(p: OpenAIChat | OpenAIResponses) -> None:
    """A call whose arguments do not parse gets an error result; the tool is not called."""
    ran: list[str] = []
    outcome, _ = run(
        p,
        [p.bad_arguments(paris("good"), "bad"), p.text("ok")],
        tools={"get_weather": lambda city: ran.append(city) or "18 °C"},
    )
    assert ran == ["Paris"]
    assert p.error_results(outcome.messages)["bad"].startswith("not run:")
    assert_every_call_answered_once(p, outcome)


def test_refusal_never_calls_again(p: Shapes) -> None:
    """A filtered reply is escalated with the original input; the model is not called again."""
    escalations: list[stopkit.loop.events.Escalation] = []
    outcome, model = run(
        p, [p.tools([paris()]), p.refusal(), p.text("never")], on_escalate=escalations.append
    )
    assert outcome.termination is Termination.FILTERED
    assert model.remaining == 1
    assert escalations == [outcome.escalation]
    assert outcome.escalation is not None
    assert outcome.escalation.input == (p.user,)
    assert outcome.escalation.stop.reason is StopReason.FILTERED
    assert_every_call_answered_once(p, outcome)
    assert len(outcome.messages) == 3  # the refusal is not appended


def test_pause_then_resume(p: Shapes) -> None:
    """A paused reply is resumed as the provider requires, then the answer ends the run."""
    if not p.can_pause:
        pytest.skip(f"{p.name} has no paused stop")
    outcome, model = run(p, [p.paused("Searching."), p.text("Found it.")], overrides={"seed": 1})
    assert outcome.termination is Termination.COMPLETED
    assert outcome.text == "Found it."
    expected_overrides = {
        "anthropic": {"seed": 1},
        "openai.responses": {"seed": 1, "poll_response_id": "resp_1"},
        "gemini": {"seed": 1, "continuation_token": "dG9rZW4="},
    }[p.name]
    assert model.calls[1].overrides == expected_overrides
    # Anthropic sends the paused content back; background polling and Gemini's token do not.
    assert len(model.calls[1].messages) == (2 if p.name == "anthropic" else 1)


def test_pause_limit(p: Shapes) -> None:
    """Endless pauses end the run with pause_limit after max_pauses resumes."""
    if not p.can_pause:
        pytest.skip(f"{p.name} has no paused stop")
    outcome, model = run(p, [p.paused(f"step {i}") for i in range(6)], max_pauses=2)
    assert outcome.termination is Termination.PAUSE_LIMIT
    assert len(model.calls) == 3


def test_unknown_value(p: Shapes, caplog: pytest.LogCaptureFixture) -> None:
    """An unrecognized stop value is logged at WARNING, escalated, and its call never run."""
    ran: list[str] = []
    with caplog.at_level(logging.WARNING, logger="stopkit.loop"):
        outcome, model = run(
            p,
            [p.unknown(paris()), p.text("never")],
            tools={"get_weather": lambda city: ran.append(city)},
        )
    assert outcome.termination is Termination.UNKNOWN
    assert outcome.escalation is not None
    assert ran == []
    assert model.remaining == 1
    assert outcome.messages == [p.user]
    assert outcome.stop is not None
    assert repr(outcome.stop.raw_reason) in caplog.text


def test_max_turns(p: Shapes) -> None:
    """max_turns ends an endless tool loop; the last reply's calls are not run nor appended."""
    script = [
        p.tools([(f"c{i}", "get_weather", {"city": "Paris", "n": i})], f"turn {i}")
        for i in range(10)
    ]
    outcome, model = run(p, script, max_turns=3, tools={"get_weather": lambda **kw: "ok"})
    assert outcome.termination is Termination.MAX_TURNS
    assert len(model.calls) == 3
    assert outcome.text == "turn 2"
    assert_every_call_answered_once(p, outcome)
    assert p.pairs(outcome.messages)[0] == ["c0", "c1"]


def test_deadline(p: Shapes) -> None:
    """A tool outliving the deadline gets a timeout result and the run ends with deadline."""
    outcome, model = run(
        p,
        [p.tools([paris()], "Checking."), p.text("late")],
        tools={"get_weather": lambda city: time.sleep(2)},
        deadline=0.15,
    )
    assert outcome.termination is Termination.DEADLINE
    assert model.remaining == 1
    assert outcome.text == "Checking."
    assert p.error_results(outcome.messages)["call_p"].startswith("timed out after")
    assert_every_call_answered_once(p, outcome)


def test_loop_detection(p: Shapes) -> None:
    """The same call with the same arguments a third time ends the run with loop_detected."""
    script = [p.tools([paris(f"c{i}")], f"again {i}") for i in range(5)]
    outcome, model = run(p, script)
    assert outcome.termination is Termination.LOOP_DETECTED
    assert len(model.calls) == 3
    assert len(outcome.tool_runs) == 2
    assert_every_call_answered_once(p, outcome)


def test_empty_final_answer(p: Shapes, caplog: pytest.LogCaptureFixture) -> None:
    """An empty final answer is logged at INFO and reported in LoopEnded."""
    events: list[Any] = []
    with caplog.at_level(logging.INFO, logger="stopkit.loop"):
        outcome, _ = run(p, [p.tools([paris()]), p.text("")], on_event=events.append)
    assert outcome.text == ""
    assert outcome.termination is Termination.COMPLETED
    assert events[-1] == stopkit.loop.events.LoopEnded(Termination.COMPLETED, 2, 1, True)
    assert "empty final answer" in caplog.text


def test_empty_final_answer_synthesized(p: Shapes) -> None:
    """With synthesize_on_empty_final, one tool-less call sums up and its text is the answer."""
    outcome, model = run(
        p,
        [p.tools([paris()]), p.text(""), p.text("Paris is 18 °C and cloudy.")],
        synthesize_on_empty_final=True,
    )
    assert outcome.text == "Paris is 18 °C and cloudy."
    assert outcome.turns == 3
    assert model.calls[2].overrides == {"tool_choice": "none"}
    prompt = model.calls[2].messages[-1]
    assert SYNTHESIZE_PROMPT in json.dumps(prompt)
    assert_every_call_answered_once(p, outcome)


async def test_arun_parallel_calls(p: Shapes) -> None:
    """arun_loop runs a turn's calls concurrently and answers each in the provider's format."""
    # Both calls wait at a barrier that opens only when both have started: run one after the
    # other, the first would time out (an error result) instead of the test timing anything.
    barrier = threading.Barrier(2, timeout=5)

    def slow_weather(city: str) -> dict[str, Any]:
        barrier.wait()
        return get_weather(city)

    model = ScriptedModel([p.tools([paris(), tokyo()]), p.text("Both done.")])
    outcome = await stopkit.arun_loop(model.acall, [p.user], tools={"get_weather": slow_weather})
    assert [run.result.is_error for run in outcome.tool_runs] == [False, False]
    assert outcome.text == "Both done."
    assert p.pairs(outcome.messages) == (["call_p", "call_t"], ["call_p", "call_t"])


def test_handler_override(p: Shapes) -> None:
    """A user handler replaces one default: here, a refusal gets a canned answer."""

    def canned(ctx: stopkit.loop.LoopContext) -> stopkit.loop.Action:
        return stopkit.loop.Finish(text="Sorry, I can't help with that.")

    outcome, model = run(
        p,
        [p.refusal(), p.text("never")],
        handlers={**DEFAULT_HANDLERS, StopReason.FILTERED: canned},
    )
    assert outcome.text == "Sorry, I can't help with that."
    assert outcome.termination is Termination.FILTERED
    assert model.remaining == 1


SDK_FORMS = {
    "anthropic": "tests.sdk_forms.anthropic",
    "openai.chat": "tests.sdk_forms.openai_chat",
    "openai.responses": "tests.sdk_forms.openai_responses",
    "gemini": "tests.sdk_forms.gemini",
}


def test_sdk_objects_through_the_loop(p: Shapes) -> None:
    """The official SDK objects drive the loop like the JSON: tools, a cut reply, an answer."""
    import importlib

    to_sdk = importlib.import_module(SDK_FORMS[p.name]).to_sdk
    script = [p.tools([paris(), tokyo()], "Checking."), p.truncated("Both are"),
              p.text("Paris 18 °C, Tokyo 24 °C.")]  # fmt: skip
    sdk_script = [to_sdk(item) for item in script]
    assert all(item is not None and not isinstance(item, dict) for item in sdk_script)
    outcome, model = run(p, sdk_script, max_tokens=256)
    assert outcome.termination is Termination.COMPLETED
    assert outcome.text == "Paris 18 °C, Tokyo 24 °C."
    assert [c.overrides for c in model.calls] == [
        {"max_tokens": 256}, {"max_tokens": 256}, {"max_tokens": 512}
    ]  # fmt: skip
    # The transcript is plain JSON, whatever the replies were.
    json.dumps(outcome.messages)
    assert_every_call_answered_once(p, outcome)


def test_streaming_loop_with_the_anthropic_client(capsys: pytest.CaptureFixture[str]) -> None:
    """A streaming loop runs against the real anthropic client, reading recorded streams."""
    import anthropic
    import httpx2 as httpx  # the anthropic SDK installed here speaks httpx2

    from tests._wrap_clients import RECORDINGS

    replay = stopkit.record.ReplayTransport(
        [RECORDINGS / "anthropic" / f"{name}.stream.json" for name in ("tool_use", "end_turn")]
    )
    sent: list[dict[str, Any]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        response: httpx.Response = replay.handle_request(request)
        return response

    client = anthropic.Anthropic(
        api_key="test", http_client=httpx.Client(transport=httpx.MockTransport(handle))
    )
    TOOLS = [
        {
            "name": "get_weather",
            "description": "Current weather in a city.",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ]

    # --- as a user writes it ---
    def call_model(messages: list[Any], **overrides: Any) -> Any:
        return client.messages.stream(
            model="claude-sonnet-4-6",
            tools=TOOLS,
            messages=messages,
            max_tokens=overrides.get("max_tokens", 1024),
        )

    def show(event: Any) -> None:  # the text, as it arrives
        if isinstance(event, stopkit.loop.events.TextDelta):
            print(event.text, end="", flush=True)

    outcome = stopkit.run_loop(
        call_model,
        "Weather in Paris?",
        tools={"get_weather": get_weather},
        max_tokens=1024,
        on_event=show,
    )
    print()
    print(outcome.termination, outcome.text)
    # ---
    assert outcome.ok
    assert capsys.readouterr().out.endswith("Paris is sunny.\ncompleted Paris is sunny.\n")
    assert sent[0]["messages"] == [{"role": "user", "content": "Weather in Paris?"}]
    assert sent[1]["messages"][1]["content"][-1]["type"] == "tool_use"
    assert sent[1]["messages"][2]["content"][0] == {
        "type": "tool_result", "tool_use_id": "toolu_01",
        "content": json.dumps(get_weather("Paris"), ensure_ascii=False),
    }  # fmt: skip


def test_a_str_prompt_to_google_genai_without_an_adapter_names_the_fix() -> None:
    """google-genai refuses the default shape of a str prompt: one line says to pass the adapter."""
    from tests import _wrap_clients as sdk

    transport = stopkit.record.ReplayTransport(sdk.RECORDINGS / "gemini" / "stop.json")
    client = sdk.client("gemini", transport)

    def call_model(messages: list[Any], **overrides: Any) -> Any:
        return client.models.generate_content(model="gemini-2.5-flash", contents=messages)

    with pytest.raises(stopkit.ModelCallError) as caught:
        stopkit.run_loop(call_model, "Weather in Paris?")
    message = str(caught.value)
    assert "\n" not in message
    assert "went out as {'role': 'user', 'content': 'Weather in Paris?'}" in message
    assert 'pass adapter="gemini"' in message
    assert transport.served == []  # refused before it was sent
    outcome = stopkit.run_loop(call_model, "Weather in Paris?", adapter="gemini")
    assert outcome.termination is Termination.COMPLETED
