"""The loop under faults and hostile input (issue 7): nothing crashes, nothing is lost.

Tool arguments written by a hostile model; tools that raise, hang or return the unprintable;
model calls that fail (with and without a retry policy); cancelled runs; 1,000 runs at once on
one event loop; adapter registration from many threads; and what the loop logs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import stopkit
import stopkit.loop
from stopkit import ModelCallError, StopReason, Termination
from stopkit.loop import DEFAULT_HANDLERS, RetryPolicy
from stopkit.loop._arguments import argument_problem
from stopkit.loop._retry import is_transient
from stopkit.loop._runner import CANCELLED, MAX_ERROR_CHARS
from stopkit.loop.events import LoopEnded, ModelCallFailed
from stopkit.testing import ScriptedModel
from tests.loop._fake import FAKE, USER, add, call, reply, results_of
from tests.loop._shapes import (
    PROVIDERS,
    Shapes,
    assert_every_call_answered_once,
    paris,
    tokyo,
)
from tests.loop._validate import assert_valid_transcript


def run(script: list[Any], **settings: Any) -> tuple[stopkit.Outcome, ScriptedModel]:
    model = ScriptedModel(script)
    settings.setdefault("adapter", FAKE)
    settings.setdefault("tools", {"add": add})
    return stopkit.run_loop(model, [USER], **settings), model


def answered(outcome: stopkit.Outcome) -> dict[str, list[str]]:
    """Map each call id in the transcript to the contents of the results answering it."""
    return {k: [m["content"] for m in v] for k, v in results_of(outcome.messages).items()}


def one_call(args: Any, name: str = "echo", **settings: Any) -> tuple[str, list[Any]]:
    """Run one tool call with `args` against an `echo` tool; return its result and what ran."""
    seen: list[Any] = []

    def echo(**kwargs: Any) -> str:
        seen.append(kwargs)
        return "ran"

    script = [reply("tool_request", calls=[{"id": "c", "name": name, "args": args}]),
              reply("completed", "done")]  # fmt: skip
    outcome, _ = run(script, tools={"echo": echo}, **settings)
    assert outcome.termination is Termination.COMPLETED
    return answered(outcome)["c"][0], seen


# --- untrusted tool arguments ---------------------------------------------------------------


def test_arguments_are_passed_never_evaluated() -> None:
    """Code-like argument strings reach the tool as the very strings the model wrote."""
    payload = {"expr": "__import__('os').system('echo pwned')", "fmt": "{0.__class__}", "n": "1+1"}
    content, seen = one_call(payload)
    assert (content, seen) == ("ran", [payload])


@pytest.mark.parametrize(
    "name",
    ["__class__", "__init__", "__getitem__", "get", "keys", "secret", "eval", "os.system", "",
     "echo ", "ECHO", "x" * 10_000],
)  # fmt: skip
def test_unknown_names_are_error_results_never_attributes(name: str) -> None:
    """A name not in the tools mapping is an error result, even when an attribute has that name."""

    class Tools(dict[str, Any]):
        def secret(self) -> str:  # an attribute a getattr() lookup would find
            raise AssertionError("looked up by attribute")

    seen: list[Any] = []
    tools = Tools(echo=lambda **kw: seen.append(kw))
    script = [reply("tool_request", calls=[{"id": "c", "name": name, "args": {}}]),
              reply("completed", "done")]  # fmt: skip
    outcome, _ = run(script, tools=tools)
    content = answered(outcome)["c"][0]
    assert content.startswith("unknown tool ")
    assert content.endswith("the available tools are: echo")
    assert len(content) < 200  # a 10,000-character name is clipped
    assert seen == []


def test_oversized_arguments_are_refused() -> None:
    """Arguments over max_argument_bytes of JSON get an error result; the tool is not called."""
    content, seen = one_call({"blob": "x" * 1_000_001})  # the default bound: 1 MB
    assert (content, seen) == ("not run: the arguments are over 1000000 bytes of JSON", [])
    content, seen = one_call({"blob": "x" * 200}, max_argument_bytes=100)
    assert (content, seen) == ("not run: the arguments are over 100 bytes of JSON", [])
    content, seen = one_call({"blob": "x" * 50}, max_argument_bytes=100)
    assert (content, seen) == ("ran", [{"blob": "x" * 50}])
    content, _ = one_call({"blob": "é" * 60}, max_argument_bytes=100)  # 120 bytes in UTF-8
    assert content == "not run: the arguments are over 100 bytes of JSON"
    many = {f"k{i}": i for i in range(200_000)}  # a million bytes in small pieces
    assert one_call(many)[0] == "not run: the arguments are over 1000000 bytes of JSON"


def nested(depth: int) -> dict[str, Any]:
    value: Any = 1
    for _ in range(depth - 1):
        value = [value]
    return {"a": value}


def test_deeply_nested_arguments_are_refused() -> None:
    """Arguments nested past max_argument_depth get an error result; at the bound they run."""
    assert one_call(nested(64))[0] == "ran"
    assert one_call(nested(65))[0] == "not run: the arguments are nested deeper than 64 levels"
    assert one_call(nested(5), max_argument_depth=4)[0].endswith("deeper than 4 levels")
    deep = one_call(nested(100_000))  # past Python's recursion limit: no RecursionError
    assert deep == ("not run: the arguments are nested deeper than 64 levels", [])


def test_cyclic_and_exponential_arguments_neither_hang_nor_crash() -> None:
    """A cycle, and lists sharing themselves (2**60 items as JSON), are refused at once."""
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    assert one_call(cyclic)[0].endswith("deeper than 64 levels")
    wide: Any = ["leaf"]
    for _ in range(60):
        wide = [wide, wide]
    assert one_call({"tree": wide})[0].endswith("over 1000000 bytes of JSON")
    deep: Any = ["leaf"]
    for _ in range(70):
        deep = [deep, deep]
    assert one_call({"tree": deep}, max_argument_bytes=10**30)[0].endswith("than 64 levels")


def test_argument_size_is_read_from_arguments_json() -> None:
    """When the provider sent a string, its UTF-8 length is the size (a real adapter's call)."""
    adapter = stopkit.get_adapter("openai.chat")
    args = json.dumps({"city": "Paris", "pad": " " * 500})
    completion = {
        "id": "c", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [{
                "id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": args}}]}}],
    }  # fmt: skip
    stop = adapter.normalize(completion)
    assert stop.tool_calls[0].arguments_json == args
    assert argument_problem(stop.tool_calls[0], 400, 64) == (
        "not run: the arguments are over 400 bytes of JSON"
    )
    assert argument_problem(stop.tool_calls[0], 1000, 64) is None


def test_tool_exceptions_are_one_line_without_traceback_or_cause() -> None:
    """A failing tool is answered with `Type: message`: no traceback, no chained cause, clipped."""

    def leaky(**_: Any) -> None:
        api_key = "sk-live-SECRET"  # a local: never shown to the model
        try:
            raise KeyError(api_key)
        except KeyError as exc:
            raise RuntimeError("upstream failed") from exc

    class Unprintable(Exception):
        def __str__(self) -> str:
            raise ValueError("no")

    def unprintable(**_: Any) -> None:
        raise Unprintable

    def huge(**_: Any) -> None:
        raise ValueError("x" * 100_000)

    def unserializable(**_: Any) -> Any:
        value: Any = []
        for _ in range(100_000):
            value = [value]
        return value

    tools = {"leaky": leaky, "unprintable": unprintable, "huge": huge, "add": add,
             "unserializable": unserializable}  # fmt: skip
    names = ["leaky", "unprintable", "huge", "add", "unserializable"]
    script = [reply("tool_request", calls=[call(n, n, a=1, b=2) for n in names]),
              reply("completed", "done")]  # fmt: skip
    outcome, _ = run(script, tools=tools)
    got = {k: v[0] for k, v in answered(outcome).items()}
    assert got["leaky"] == "RuntimeError: upstream failed"
    assert got["unprintable"] == "Unprintable: <its message cannot be shown>"
    assert got["huge"].startswith("ValueError: xxx")
    assert len(got["huge"]) == MAX_ERROR_CHARS
    assert got["add"] == "3"  # the others still ran
    assert got["unserializable"].startswith("the tool returned a list that cannot be sent as")
    everything = json.dumps(outcome.messages)
    assert "SECRET" not in everything
    assert "Traceback" not in everything


async def test_tool_exceptions_are_contained_in_arun() -> None:
    """In arun_loop too, each call's failure is its own error result; the others run."""

    async def fails(**_: Any) -> None:
        raise ConnectionResetError("peer reset")

    script = [reply("tool_request", calls=[call("1", "fails"), call("2", a=1, b=1)]),
              reply("completed", "done")]  # fmt: skip
    outcome = await stopkit.arun_loop(
        ScriptedModel(script).acall, [USER], adapter=FAKE, tools={"fails": fails, "add": add}
    )
    assert answered(outcome) == {"1": ["ConnectionResetError: peer reset"], "2": ["2"]}


def test_loop_detection_survives_unserializable_arguments() -> None:
    """Loop detection keys calls whose arguments cannot be serialized without crashing."""
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    script = [reply("tool_request", calls=[{"id": f"c{i}", "name": "add", "args": cyclic}])
              for i in range(3)]  # fmt: skip
    outcome, _ = run(script)
    assert outcome.termination is Termination.LOOP_DETECTED


# --- model-call failures ----------------------------------------------------------------------


def _response(status: int) -> httpx.Response:
    return httpx.Response(status, request=httpx.Request("POST", "https://api.example/v1"))


def sdk_errors() -> Iterator[tuple[BaseException, bool]]:
    """Real SDK and transport exceptions, with whether each is worth a retry."""
    import anthropic
    import openai
    from google.genai import errors as genai_errors

    yield anthropic.RateLimitError("rate", response=_response(429), body=None), True
    yield anthropic.InternalServerError("overloaded", response=_response(529), body=None), True
    yield anthropic.APIConnectionError(request=httpx.Request("POST", "https://a")), True
    yield anthropic.APITimeoutError(request=httpx.Request("POST", "https://a")), True
    yield anthropic.BadRequestError("bad", response=_response(400), body=None), False
    yield anthropic.AuthenticationError("key", response=_response(401), body=None), False
    yield openai.RateLimitError("rate", response=_response(429), body=None), True
    yield openai.InternalServerError("down", response=_response(503), body=None), True
    yield openai.APITimeoutError(request=httpx.Request("POST", "https://o")), True
    yield openai.BadRequestError("bad", response=_response(400), body=None), False
    yield genai_errors.ServerError(503, {"error": {"message": "unavailable"}}), True
    yield genai_errors.ClientError(429, {"error": {"message": "exhausted"}}), True
    yield genai_errors.ClientError(400, {"error": {"message": "bad"}}), False
    yield httpx.ReadTimeout("read timed out"), True
    yield httpx.ConnectError("refused"), True
    yield httpx.RemoteProtocolError("peer closed"), True
    yield ConnectionResetError(104, "Connection reset by peer"), True
    yield TimeoutError(), True
    yield ValueError("a bug in call_model"), False
    yield KeyError("model"), False


def test_is_transient_reads_the_sdks_errors() -> None:
    """The default retry_on retries rate limits, overload, timeouts and resets, not the rest."""
    for exc, transient in sdk_errors():
        assert is_transient(exc) is transient, exc


def tool_turns(n: int) -> list[dict[str, Any]]:
    return [reply("tool_request", f"step {i}", calls=[call(f"c{i}", a=i, b=1)]) for i in range(n)]


@pytest.mark.parametrize("fault", [exc for exc, _ in sdk_errors()], ids=lambda e: type(e).__name__)
def test_model_call_error_keeps_everything(fault: BaseException) -> None:
    """Without a retry policy, a failing call raises ModelCallError with the run so far."""
    events: list[Any] = []
    messages = [USER]
    model = ScriptedModel([*tool_turns(2), fault])
    with pytest.raises(ModelCallError) as caught:
        stopkit.run_loop(model, messages, adapter=FAKE, tools={"add": add}, on_event=events.append)
    error = caught.value
    assert error.__cause__ is fault
    assert error.attempts == 1
    outcome = error.outcome
    assert outcome.termination is Termination.MODEL_ERROR
    assert outcome.turns == 3
    assert outcome.text == "step 1"  # the last reply's text, salvaged
    assert list(outcome.messages) == list(model.calls[-1].messages)  # what the model was sent
    assert answered(outcome) == {"c0": ["1"], "c1": ["2"]}
    assert [r.result.content for r in outcome.tool_runs] == ["1", "2"]
    assert error.messages is outcome.messages
    assert messages == [USER]  # the caller's list is never changed
    assert events[-2] == ModelCallFailed(3, fault, 1, None)
    assert events[-1] == LoopEnded(Termination.MODEL_ERROR, 3, 2, False)
    assert events[-1].outcome is outcome


SHAPE_HINT = 'adapter="gemini"'
TOOL_USE = {"type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [
    {"type": "tool_use", "id": "c", "name": "add", "input": {"a": 1, "b": 1}}]}  # fmt: skip


@pytest.mark.parametrize(
    ("script", "prompt", "settings", "hinted"),
    [
        ([ValueError("17 validation errors\n...")], "Hi", {}, True),
        ([ValueError("bad")], "Hi", {"adapter": FAKE}, False),
        ([ValueError("bad")], [USER], {}, False),
        ([TOOL_USE, ValueError("bad")], "Hi", {}, False),
    ],
    ids=["str-prompt-no-adapter", "adapter-given", "messages-given", "after-a-reply"],
)
def test_a_first_call_failing_on_the_default_shape_says_what_went_out(
    script: list[Any], prompt: Any, settings: dict[str, Any], hinted: bool
) -> None:
    """A str prompt sent in the default shape before any adapter is known: the error says so."""
    settings.setdefault("tools", {"add": add})
    with pytest.raises(ModelCallError) as caught:
        stopkit.run_loop(ScriptedModel(script), prompt, **settings)
    message = str(caught.value)
    assert "\n" not in message
    assert (SHAPE_HINT in message) is hinted
    assert ("went out as {'role': 'user', 'content': 'Hi'}" in message) is hinted


def test_retry_policy_retries_then_succeeds() -> None:
    """With a policy, transient failures are retried (same messages, same overrides)."""
    events: list[Any] = []
    script = [*tool_turns(1), TimeoutError(), ConnectionResetError(), reply("completed", "ok")]
    outcome, model = run(
        script,
        retry=RetryPolicy(attempts=3, backoff=0.001, jitter=False),
        on_event=events.append,
        overrides={"temperature": 0},
    )
    assert (outcome.text, outcome.termination, outcome.turns) == ("ok", "completed", 2)
    assert [len(c.messages) for c in model.calls] == [1, 3, 3, 3]
    assert [c.overrides for c in model.calls[1:]] == [{"temperature": 0}] * 3
    failed = [e for e in events if isinstance(e, ModelCallFailed)]
    assert [(e.turn, e.attempt, e.retry_in) for e in failed] == [(2, 1, 0.001), (2, 2, 0.002)]


def test_retry_policy_is_bounded() -> None:
    """A call failing every time is tried `attempts` times, then ModelCallError."""
    model = ScriptedModel([ConnectionResetError()] * 10)
    with pytest.raises(ModelCallError, match="all 4 attempts used") as caught:
        stopkit.run_loop(model, [USER], adapter=FAKE, retry=RetryPolicy(attempts=4, backoff=0))
    assert (len(model.calls), caught.value.attempts) == (4, 4)
    assert isinstance(caught.value.__cause__, ConnectionResetError)


def test_retry_policy_chooses_what_to_retry() -> None:
    """retry_on takes exception classes or a predicate; anything else fails at once."""
    by_class = RetryPolicy(backoff=0, retry_on=(KeyError,))
    with pytest.raises(ModelCallError, match="not retried by the policy"):
        run([ValueError("bug"), reply("completed")], retry=by_class)
    outcome, _ = run([KeyError("x"), reply("completed", "ok")], retry=by_class)
    assert outcome.text == "ok"
    by_predicate = RetryPolicy(backoff=0, retry_on=lambda e: "retry me" in str(e))
    outcome, _ = run([RuntimeError("retry me"), reply("completed", "ok")], retry=by_predicate)
    assert outcome.text == "ok"
    with pytest.raises(ModelCallError):  # the default: only transient errors
        run([ValueError("bug"), reply("completed")], retry=RetryPolicy(backoff=0))


def test_retry_backoff_doubles_is_capped_and_jittered() -> None:
    """Waits double from `backoff` up to `max_backoff`; jitter scales them into [0.5, 1]."""
    policy = RetryPolicy(attempts=10, backoff=1, max_backoff=5, jitter=False)
    assert [policy.delay(TimeoutError(), n) for n in range(1, 11)] == [1, 2, 4, 5, 5, 5, 5, 5, 5,
                                                                        None]  # fmt: skip
    jittered = RetryPolicy(attempts=3, backoff=2)
    waits = [jittered.delay(TimeoutError(), 2) for _ in range(200)]
    assert all(w is not None and 2 <= w <= 4 for w in waits)
    with pytest.raises(ValueError, match="attempts"):
        RetryPolicy(attempts=0)
    with pytest.raises(TypeError, match="RetryPolicy"):
        stopkit.Loop(ScriptedModel([]), retry=3)  # type: ignore[arg-type]


def test_deadline_bounds_retries() -> None:
    """A retry whose backoff would pass the deadline is not made: ModelCallError at once."""
    model = ScriptedModel([TimeoutError()] * 5)
    with pytest.raises(ModelCallError, match="deadline leaves no time"):
        stopkit.run_loop(model, [USER], adapter=FAKE, deadline=30,
                         retry=RetryPolicy(attempts=5, backoff=60, jitter=False))  # fmt: skip
    assert len(model.calls) == 1


async def test_arun_retries_and_raises_model_call_error() -> None:
    """arun_loop retries with an async wait, and raises ModelCallError like run_loop."""
    model = ScriptedModel([*tool_turns(1), TimeoutError(), reply("completed", "ok")])
    outcome = await stopkit.arun_loop(model.acall, [USER], adapter=FAKE, tools={"add": add},
                                      retry=RetryPolicy(backoff=0.001))  # fmt: skip
    assert outcome.text == "ok"
    model = ScriptedModel([*tool_turns(1), ConnectionResetError("reset")])
    with pytest.raises(ModelCallError) as caught:
        await stopkit.arun_loop(model.acall, [USER], adapter=FAKE, tools={"add": add})
    assert answered(caught.value.outcome) == {"c0": ["1"]}


def test_summing_up_call_failure_keeps_the_run() -> None:
    """A failing summing-up call raises ModelCallError with the finished transcript."""
    with pytest.raises(ModelCallError) as caught:
        run([*tool_turns(1), reply("completed", ""), TimeoutError()],
            synthesize_on_empty_final=True)  # fmt: skip
    assert answered(caught.value.outcome) == {"c0": ["1"]}
    assert caught.value.outcome.turns == 3


FAULTS = st.sampled_from([TimeoutError("t"), ConnectionResetError("r"), ValueError("bug")])
SCRIPT_ITEMS = st.one_of(
    FAULTS,
    st.builds(lambda i: reply("tool_request", calls=[call(f"h{i}", a=i, b=0)]), st.integers(0, 9)),
    st.just(reply("completed", "fin")),
)


@given(st.lists(SCRIPT_ITEMS, min_size=1, max_size=12), st.integers(1, 3))
def test_faults_anywhere_lose_nothing(script: list[Any], attempts: int) -> None:
    """For any mix of replies and failures: the run completes, or ModelCallError holds it all."""
    script = [*script, reply("completed", "end")]
    model = ScriptedModel(script)
    policy = RetryPolicy(attempts=attempts, backoff=0, retry_on=(TimeoutError, ConnectionError))
    error: ModelCallError | None = None
    try:
        outcome = stopkit.run_loop(model, [USER], adapter=FAKE, tools={"add": add}, retry=policy,
                                   max_turns=50, loop_threshold=50)  # fmt: skip
    except ModelCallError as exc:
        error = exc
        outcome = exc.outcome
    if error is None:
        assert outcome.termination is Termination.COMPLETED
    else:
        assert error.__cause__ is script[len(model.calls) - 1]
        assert outcome.termination is Termination.MODEL_ERROR
        assert list(outcome.messages) == list(model.calls[-1].messages)
    calls = [m["reply"]["calls"] for m in outcome.messages if m.get("role") == "assistant"]
    ids = [c["id"] for cs in calls for c in cs]
    assert Counter(ids) == Counter({k: len(v) for k, v in results_of(outcome.messages).items()})
    assert len(outcome.tool_runs) == len(ids)


# --- cancellation -----------------------------------------------------------------------------


class Hang:
    """Async and sync tools that wait until released, recording start, cancellation, finish."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.cancelled: list[str] = []
        self.finished: list[str] = []
        self.release = threading.Event()

    async def async_tool(self, tag: str) -> str:
        self.started.append(tag)
        try:
            await asyncio.Event().wait()  # forever
        except asyncio.CancelledError:
            self.cancelled.append(tag)
            raise
        return "never"

    def sync_tool(self, tag: str) -> str:
        self.started.append(tag)
        self.release.wait(5)
        self.finished.append(tag)
        return "late"

    async def quick(self, tag: str) -> str:
        return f"quick {tag}"


async def until(predicate: Any, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out waiting"
        await asyncio.sleep(0.001)


async def test_cancel_during_tools_answers_every_call() -> None:
    """Cancelling a run mid-turn cancels its tools; every call gets its result or `cancelled`."""
    hang = Hang()
    events: list[Any] = []
    messages = [USER]
    script = [
        reply("tool_request", calls=[call("ok", "add", a=1, b=1)]),
        reply("tool_request", "working", calls=[
            call("a1", "hang", tag="a1"), call("q", "quick", tag="q"),
            call("a2", "hang", tag="a2"), call("s", "sync", tag="s")]),
        reply("completed", "never"),
    ]  # fmt: skip
    task = asyncio.create_task(
        stopkit.arun_loop(
            ScriptedModel(script).acall, messages, adapter=FAKE, on_event=events.append,
            tools={"add": add, "hang": hang.async_tool, "quick": hang.quick,
                   "sync": hang.sync_tool},
        )
    )  # fmt: skip
    await until(lambda: len(hang.started) == 3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(hang.cancelled) == ["a1", "a2"]  # the async tools saw their cancellation
    end = events[-1]
    assert isinstance(end, LoopEnded)
    assert end.termination is Termination.CANCELLED
    outcome = end.outcome
    assert outcome is not None
    assert answered(outcome) == {
        "ok": ["2"], "a1": [CANCELLED], "q": ["quick q"], "a2": [CANCELLED], "s": [CANCELLED],
    }  # fmt: skip
    assert [r.call.id for r in outcome.tool_runs] == ["ok", "a1", "q", "a2", "s"]
    assert outcome.text == "working"
    assert messages == [USER]
    hang.release.set()  # the sync tool, not interruptible, finishes in its thread
    await until(lambda: hang.finished == ["s"])


async def test_cancel_during_model_call_or_backoff_keeps_the_transcript() -> None:
    """Cancelled while waiting for the model or a retry, the transcript is the one last sent."""
    for fault_first in (False, True):
        started = asyncio.Event()
        calls: list[int] = []

        async def model(
            messages: list[Any],
            started: asyncio.Event = started,
            fault: bool = fault_first,
            calls: list[int] = calls,
            **_: Any,
        ) -> Any:
            calls.append(1)
            if len(calls) == 1:
                return tool_turns(1)[0]
            started.set()
            if fault and len(calls) == 2:
                raise TimeoutError
            await asyncio.Event().wait()

        events: list[Any] = []
        task = asyncio.create_task(
            stopkit.arun_loop(
                model,
                [USER],
                adapter=FAKE,
                tools={"add": add},
                on_event=events.append,
                retry=RetryPolicy(backoff=60),
            )
        )
        await started.wait()
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        outcome = events[-1].outcome
        assert outcome.termination is Termination.CANCELLED
        assert answered(outcome) == {"c0": ["1"]}


@pytest.mark.parametrize("p", PROVIDERS, ids=lambda p: p.name)
async def test_cancel_single_call_with_a_real_adapter(p: Shapes) -> None:
    """With each provider's format, a cancelled call is answered so the transcript stays valid."""
    hang = Hang()
    events: list[Any] = []
    model = ScriptedModel([p.tools([paris()]), p.tools([tokyo()]), p.text("never")])
    tools = {"get_weather": lambda city: {"city": city, "forecast": "sunny"}}

    async def second_hangs(city: str) -> Any:
        if city == "Tokyo":
            await hang.async_tool("t")
        return tools["get_weather"](city)

    task = asyncio.create_task(
        stopkit.arun_loop(
            model.acall, [p.user], tools={"get_weather": second_hangs}, on_event=events.append
        )
    )
    await until(lambda: hang.started == ["t"])
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert hang.cancelled == ["t"]
    outcome = events[-1].outcome
    assert_every_call_answered_once(p, outcome)
    assert p.pairs(outcome.messages)[0] == ["call_p", "call_t"]
    assert CANCELLED in json.dumps(outcome.messages)
    assert_valid_transcript(p.name, outcome.messages)


async def test_cancel_at_every_step_leaves_a_consistent_transcript() -> None:
    """Cancelled after any number of event-loop steps, every call in the transcript is answered."""

    async def tool(a: int, b: int) -> int:
        for _ in range(a):
            await asyncio.sleep(0)
        return a + b

    script = [
        reply("tool_request", calls=[call("x1", a=3, b=0), call("x2", a=1, b=0)]),
        reply("tool_request", calls=[call("y1", a=5, b=0), call("y2", a=0, b=0),
                                     call("y3", a=2, b=0)]),
        reply("completed", "done"),
    ]  # fmt: skip
    cancelled = mid_turn = 0
    for steps in range(60):  # 0: before it starts; ~18 and up: after it completed
        events: list[Any] = []
        model = ScriptedModel(script)

        async def slow_model(messages: list[Any], model: ScriptedModel = model, **kw: Any) -> Any:
            await asyncio.sleep(0)  # a point where the model call can be cancelled
            return model(messages, **kw)

        task = asyncio.create_task(
            stopkit.arun_loop(
                slow_model, [USER], adapter=FAKE, tools={"add": tool}, on_event=events.append
            )
        )
        for _ in range(steps):
            await asyncio.sleep(0)
        task.cancel()
        try:
            outcome = await task
        except asyncio.CancelledError:
            cancelled += 1
            if not events:  # cancelled before it started: nothing was sent
                assert model.calls == []
                continue
            outcome = events[-1].outcome
            assert outcome.termination is Termination.CANCELLED
            mid_turn += CANCELLED in json.dumps(outcome.messages)
        calls = [c["id"] for m in outcome.messages if m.get("role") == "assistant"
                 for c in m["reply"]["calls"]]  # fmt: skip
        assert Counter(calls) == Counter({k: len(v) for k, v in answered(outcome).items()})
        if model.calls:  # nothing the model was sent is lost
            sent = list(model.calls[-1].messages)
            assert list(outcome.messages[: len(sent)]) == sent
    print(f"\ncancelled at {cancelled} of 60 steps, {mid_turn} while tools ran")
    assert cancelled >= 15  # every step until the run completes
    assert mid_turn >= 5  # some cancellations hit running tools


async def test_cancellation_survives_a_raising_on_event() -> None:
    """An on_event that raises while the cancelled run is reported does not swallow the cancel."""
    hang = Hang()

    def on_event(event: Any) -> None:
        if isinstance(event, LoopEnded):
            raise RuntimeError("broken callback")

    script = [reply("tool_request", calls=[call("a", "hang", tag="a")])]
    task = asyncio.create_task(
        stopkit.arun_loop(
            ScriptedModel(script).acall, [USER], adapter=FAKE, tools={"hang": hang.async_tool},
            on_event=on_event,
        )
    )  # fmt: skip
    await until(lambda: hang.started == ["a"])
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert hang.cancelled == ["a"]


# --- concurrency ------------------------------------------------------------------------------


def script_for(n: int) -> list[Any]:
    """Run n's own script: two tool turns (one call fails), a retried fault, then its answer."""
    return [
        reply("tool_request", f"run {n} step 1",
              calls=[call(f"r{n}-a", "echo", tag=f"r{n}-a"), call(f"r{n}-b", "fail", tag=n)]),
        TimeoutError(f"run {n} flaked"),
        reply("tool_request", calls=[call(f"r{n}-c", "echo", tag=f"r{n}-c")]),
        reply("completed", f"answer {n}"),
    ]  # fmt: skip


async def echo(tag: str) -> str:
    await asyncio.sleep(0)
    return f"echo {tag}"


def fail(tag: int) -> None:
    raise ValueError(f"run {tag} tool failed")


RUN_ID = re.compile(r"\br(\d+)-|\brun (\d+)\b")


async def test_a_thousand_concurrent_runs_do_not_cross_talk() -> None:
    """1,000 arun_loop runs at once on one event loop: each transcript holds only its own run."""
    runs = 1000
    models = [ScriptedModel(script_for(n)) for n in range(runs)]
    shared = stopkit.Loop(  # one Loop for every run: it holds no per-run state
        lambda messages, **kw: models[int(messages[0]["content"])].acall(messages, **kw),
        adapter=FAKE, tools={"echo": echo, "fail": fail},
        retry=RetryPolicy(attempts=2, backoff=0.001),
    )  # fmt: skip
    start = time.perf_counter()
    outcomes = await asyncio.gather(
        *(shared.arun([{"role": "user", "content": str(n)}]) for n in range(runs))
    )
    elapsed = time.perf_counter() - start
    for n, outcome in enumerate(outcomes):
        assert outcome.text == f"answer {n}"
        assert answered(outcome) == {
            f"r{n}-a": [f"echo r{n}-a"],
            f"r{n}-b": [f"ValueError: run {n} tool failed"],
            f"r{n}-c": [f"echo r{n}-c"],
        }
        mentioned = {int(a or b) for a, b in RUN_ID.findall(json.dumps(outcome.messages))}
        assert mentioned == {n}
        assert len(models[n].calls) == 4
    print(f"\n{runs} concurrent runs: {elapsed:.2f} s")  # shown with -s; not asserted


class Named:
    """A minimal adapter registered and unregistered by the threads below."""

    def __init__(self, name: str) -> None:
        self.name = name

    def detects(self, reply: Any) -> bool:
        return isinstance(reply, dict) and reply.get("named") == self.name

    def normalize(self, reply: Any) -> stopkit.Stop:
        return stopkit.Stop(reason=StopReason.COMPLETED, provider=self.name, raw=reply)


def test_registration_is_thread_safe_while_others_normalize() -> None:
    """Threads registering and unregistering adapters never disturb threads normalizing."""
    before = [a.name for a in stopkit.registered_adapters()]
    errors: list[BaseException] = []
    done = threading.Event()
    samples = [(p.text("hi"), p.name) for p in PROVIDERS]

    def churn(k: int) -> None:
        try:
            for i in range(200):
                adapter = Named(f"named-{k}-{i}")
                stopkit.register_adapter(adapter)
                assert stopkit.normalize({"named": adapter.name}).provider == adapter.name
                stopkit.unregister_adapter(adapter.name)
        except BaseException as exc:
            errors.append(exc)

    def read() -> None:
        try:
            while not done.is_set():
                for sample, name in samples:
                    assert stopkit.normalize(sample).provider == name
                    assert stopkit.get_adapter(name).name == name
        except BaseException as exc:
            errors.append(exc)

    writers = [threading.Thread(target=churn, args=(k,)) for k in range(6)]
    readers = [threading.Thread(target=read) for _ in range(6)]
    for thread in [*readers, *writers]:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    for thread in readers:
        thread.join()
    assert errors == []
    assert [a.name for a in stopkit.registered_adapters()] == before


# --- logging ----------------------------------------------------------------------------------


SECRET = "sk-ant-api03-SECRET"


def test_loop_logs_are_bounded_and_credential_free(caplog: pytest.LogCaptureFixture) -> None:
    """Huge or deep raw values, failing calls and secret overrides leave short, clean log lines."""
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    overrides: Mapping[str, Any] = {"api_key": SECRET, "extra_headers": {"Authorization": SECRET}}
    with caplog.at_level(logging.DEBUG, logger="stopkit"):
        run([reply("unknown", raw="y" * 1_000_000)], overrides=overrides)
        run([reply("unknown", raw=deep)], overrides=overrides)
        run([TimeoutError("z" * 1_000_000), reply("completed", "")], overrides=overrides,
            retry=RetryPolicy(backoff=0))  # fmt: skip
        always = {**DEFAULT_HANDLERS, StopReason.OUTPUT_LIMIT: lambda ctx: stopkit.loop.Retry({})}
        run([reply("output_limit")], overrides=overrides, handlers=always)
        run([reply("tool_request", calls=[{"id": "c", "name": "add", "args": {"a": "q" * 10**6}}]),
             reply("completed", "ok")], overrides=overrides)  # fmt: skip
    assert len(caplog.records) >= 6
    for record in caplog.records:
        line = record.getMessage()
        assert len(line) < 1000, line[:300]
        assert "SECRET" not in line
