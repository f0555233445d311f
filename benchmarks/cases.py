"""What each row of the table times: a name, the exact call, and a factory for the callable.

A factory does the setup (parsing the body into the SDK object, building the peer's model
object, ...) and returns a zero-argument callable doing one unit of work; only the callable is
timed. Peers and SDKs are imported inside the factories, so a pyperf worker only imports what
its own row needs.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks.loops import (
    LOOP_TURNS,
    agents_sdk_loop,
    pydantic_ai_loop,
    stopkit_loop,
    tool_reply,
)
from benchmarks.replies import ADAPTERS, CASES, REPLIES
from benchmarks.streams import EVENTS, STREAMS

# LiteLLM fetches its model price map over the network at import unless told not to; offline,
# that is several seconds of retries per process. Set before any worker imports litellm.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__all__ = ["Case", "all_cases", "needs", "runnable", "skipped"]

Work = Callable[[], Any]
Check = Callable[[], "str | None"]
"""Says what a row needs and is missing, in words (None: nothing is)."""


def needs(*modules: str) -> Check:
    """Return the check of a row that imports these optional modules (import names)."""

    def check() -> str | None:
        for module in modules:
            try:
                found = importlib.util.find_spec(module)
            except (ImportError, ValueError):  # a parent package missing, or set to None
                found = None
            if found is None:
                return f"{module} is not installed"
        return None

    return check


#: The SDK each core adapter's SDK-object rows import.
SDK_MODULE = {"anthropic": "anthropic", "openai.chat": "openai", "openai.responses": "openai",
              "gemini": "google.genai"}  # fmt: skip


@dataclass(frozen=True)
class Case:
    """One timed row: `factory()` returns the callable doing one unit of work.

    `inner` is how many units one call of the callable does (1,000 events for a stream row,
    the turns of a loop run): the row reports the time per unit. `kind` says what the row
    measures, `adapter`/`case` which reply. `check` says what optional part (a package, a
    server) the row needs and is missing: such a row is skipped, saying why.
    """

    group: str
    name: str
    call: str
    factory: Callable[[], Work]
    kind: str
    adapter: str = ""
    case: str = ""
    inner: int = 1
    check: Check | None = None


# --- the floor ---------------------------------------------------------------------------------
# The least any reader must do: read the stop field, look it up, check for a tool-call key.

_FLOOR_TABLE = {
    "tool_use": "tool_request", "end_turn": "completed", "max_tokens": "output_limit",
    "refusal": "filtered", "pause_turn": "paused", "tool_calls": "tool_request",
    "stop": "completed", "length": "output_limit", "completed": "completed",
    "incomplete": "output_limit", "in_progress": "paused", "STOP": "completed",
    "MAX_TOKENS": "output_limit", "SAFETY": "filtered", "CONTINUATION": "paused",
}


def _floor_anthropic(reply: dict[str, Any]) -> tuple[Any, bool]:
    content = reply["content"]
    return _FLOOR_TABLE.get(reply["stop_reason"]), bool(content) and (
        content[-1].get("type") == "tool_use"
    )


def _floor_chat(reply: dict[str, Any]) -> tuple[Any, bool]:
    choice = reply["choices"][0]
    return _FLOOR_TABLE.get(choice["finish_reason"]), "tool_calls" in choice["message"]


def _floor_responses(reply: dict[str, Any]) -> tuple[Any, bool]:
    output = reply["output"]
    return _FLOOR_TABLE.get(reply["status"]), bool(output) and (
        output[-1].get("type") == "function_call"
    )


def _floor_gemini(reply: dict[str, Any]) -> tuple[Any, bool]:
    candidate = reply["candidates"][0]
    parts = candidate.get("content", {}).get("parts") or ({},)
    return _FLOOR_TABLE.get(candidate.get("finishReason")), "functionCall" in parts[-1]


FLOORS: dict[str, Callable[[dict[str, Any]], tuple[Any, bool]]] = {
    "anthropic": _floor_anthropic,
    "openai.chat": _floor_chat,
    "openai.responses": _floor_responses,
    "gemini": _floor_gemini,
}


def _bind(fn: Callable[..., Any], *args: Any) -> Work:
    """Return a zero-argument callable; `functools.partial` is the cheapest in CPython."""
    from functools import partial

    return partial(fn, *args)


# --- SDK objects, built the way each SDK's client builds them from the wire -----------------------

SDK_PARSE = {
    "anthropic": "anthropic._models.construct_type(type_=anthropic.types.Message, value=body)",
    "openai.chat": "openai._models.construct_type(type_=openai.types.chat.ChatCompletion, "
    "value=body)",
    "openai.responses": "openai._models.construct_type(type_=openai.types.responses.Response, "
    "value=body)",
    "gemini": "google.genai.types.GenerateContentResponse._from_response(response="
    "google.genai.models._GenerateContentResponse_from_mldev(body), kwargs={})",
}


def sdk_parser(adapter: str) -> Callable[[dict[str, Any]], Any]:
    """Return the function the adapter's SDK client uses to turn a body into its object."""
    if adapter == "anthropic":
        from anthropic._models import construct_type
        from anthropic.types import Message

        return lambda body: construct_type(type_=Message, value=body)
    if adapter in ("openai.chat", "openai.responses"):
        from openai._models import construct_type as openai_construct
        from openai.types.chat import ChatCompletion
        from openai.types.responses import Response

        model = ChatCompletion if adapter == "openai.chat" else Response
        return lambda body: openai_construct(type_=model, value=body)
    import warnings

    from google.genai import models
    from google.genai.types import GenerateContentResponse

    def parse(body: dict[str, Any]) -> Any:
        with warnings.catch_warnings():  # unknown enum strings warn; the SDK's users see it once
            warnings.simplefilter("ignore")
            return GenerateContentResponse._from_response(
                response=models._GenerateContentResponse_from_mldev(body, None, None),
                kwargs={"config": {}},
            )

    return parse


def sdk_event_parser(adapter: str) -> Callable[[dict[str, Any]], Any]:
    """Return the function the adapter's SDK stream uses to turn one event into its object."""
    if adapter == "anthropic":
        from anthropic._models import construct_type
        from anthropic.types import RawMessageStreamEvent

        return lambda event: construct_type(type_=RawMessageStreamEvent, value=event)
    if adapter in ("openai.chat", "openai.responses"):
        from openai._models import construct_type as openai_construct
        from openai.types.chat import ChatCompletionChunk
        from openai.types.responses import ResponseStreamEvent

        kind: Any = ChatCompletionChunk if adapter == "openai.chat" else ResponseStreamEvent
        return lambda event: openai_construct(type_=kind, value=event)
    return sdk_parser(adapter)


# --- the peers ---------------------------------------------------------------------------------

LITELLM_CALL = {
    "anthropic": "litellm.llms.anthropic.chat.transformation.AnthropicConfig()"
    ".transform_parsed_response(completion_response=body, raw_response, "
    "model_response=ModelResponse())",
    "openai.chat": "litellm.litellm_core_utils.llm_response_utils.convert_dict_to_response"
    ".convert_to_model_response_object(response_object=body, "
    "model_response_object=ModelResponse())",
    "openai.responses": "litellm.types.llms.openai.ResponsesAPIResponse.model_validate(body) + "
    "litellm.completion_extras.litellm_responses_transformation.transformation"
    ".LiteLLMResponsesTransformationHandler().transform_response(...)",
    "gemini": "litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini"
    ".VertexGeminiConfig()._transform_google_generate_content_to_openai_model_response("
    "completion_response=body, model_response=ModelResponse(), ...)",
}

PYDANTIC_AI_CALL = {
    "anthropic": "pydantic_ai.models.anthropic.AnthropicModel._process_response("
    "BetaMessage, ModelRequestParameters(), {})",
    "openai.chat": "pydantic_ai.models.openai.OpenAIChatModel._process_response(ChatCompletion)",
    "openai.responses": "pydantic_ai.models.openai.OpenAIResponsesModel._process_response("
    "Response, {}, ModelRequestParameters())",
    "gemini": "pydantic_ai.models.google.GoogleModel._process_response("
    "GenerateContentResponse, ModelRequestParameters())",
}


class _LoggingStub:
    """Stands in for litellm's per-call `Logging` object (only its no-op hooks are reached)."""

    model_call_details: dict[str, Any] = {}  # noqa: RUF012
    optional_params: dict[str, Any] = {}  # noqa: RUF012
    litellm_params: dict[str, Any] = {}  # noqa: RUF012

    def post_call(self, *args: Any, **kwargs: Any) -> None:
        return None


def _guard(fn: Callable[[], Any]) -> Work:
    """Time a peer call that may raise on this reply as it is: the raise is its answer."""

    def call() -> Any:
        try:
            return fn()
        except Exception as exc:
            return exc

    return call


def litellm_work(adapter: str, body: dict[str, Any]) -> Work:
    """Return LiteLLM's transform of `body` into its `ModelResponse` (with `finish_reason`)."""
    import httpx
    from litellm.types.utils import ModelResponse

    raw = httpx.Response(200, json=body, headers={"content-type": "application/json"})
    log = _LoggingStub()
    if adapter == "anthropic":
        from litellm.llms.anthropic.chat.transformation import AnthropicConfig

        config = AnthropicConfig()
        return _guard(
            lambda: config.transform_parsed_response(
                completion_response=body, raw_response=raw, model_response=ModelResponse(),
                json_mode=False,
            )
        )
    if adapter == "openai.chat":
        from litellm.litellm_core_utils.llm_response_utils.convert_dict_to_response import (
            convert_to_model_response_object,
        )

        return _guard(
            lambda: convert_to_model_response_object(
                response_object=body, model_response_object=ModelResponse()
            )
        )
    if adapter == "openai.responses":
        from litellm.completion_extras.litellm_responses_transformation.transformation import (
            LiteLLMResponsesTransformationHandler,
        )
        from litellm.types.llms.openai import ResponsesAPIResponse

        handler = LiteLLMResponsesTransformationHandler()
        return _guard(
            lambda: handler.transform_response(
                model="gpt-5", raw_response=ResponsesAPIResponse.model_validate(body),
                model_response=ModelResponse(), logging_obj=log, request_data={}, messages=[],
                optional_params={}, litellm_params={}, encoding=None,
            )
        )
    from litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini import (
        VertexGeminiConfig,
    )

    gemini = VertexGeminiConfig()
    return _guard(
        lambda: gemini._transform_google_generate_content_to_openai_model_response(
            completion_response=body, model_response=ModelResponse(),
            model="gemini-2.5-flash", logging_obj=log, raw_response=raw,
        )
    )


def pydantic_ai_work(adapter: str, body: dict[str, Any]) -> Work:
    """Return pydantic-ai's `_process_response` of the SDK object its model receives."""
    from pydantic_ai.models import ModelRequestParameters

    params = ModelRequestParameters()
    if adapter == "anthropic":
        from anthropic._models import construct_type
        from anthropic.types.beta import BetaMessage
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        model = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(api_key="offline"))
        reply = construct_type(type_=BetaMessage, value=body)  # what client.beta.messages gives
        return _guard(lambda: model._process_response(reply, params, {}))
    if adapter in ("openai.chat", "openai.responses"):
        from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        provider = OpenAIProvider(api_key="offline")
        sdk_object = sdk_parser(adapter)(body)
        if adapter == "openai.chat":
            chat = OpenAIChatModel("gpt-4.1", provider=provider)
            return _guard(lambda: chat._process_response(sdk_object))
        responses = OpenAIResponsesModel("gpt-5", provider=provider)
        return _guard(lambda: responses._process_response(sdk_object, {}, params))
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    google = GoogleModel("gemini-2.5-flash", provider=GoogleProvider(api_key="offline"))
    sdk_object = sdk_parser(adapter)(body)
    return _guard(lambda: google._process_response(sdk_object, params))


# --- the rows ------------------------------------------------------------------------------------


def _normalize_dict(body: dict[str, Any]) -> Work:
    import stopkit

    return _bind(stopkit.normalize, body)


def _normalize_sdk(adapter: str, body: dict[str, Any]) -> Work:
    import stopkit

    return _bind(stopkit.normalize, sdk_parser(adapter)(body))


def _reference_cases() -> list[Case]:
    """What building any result object costs: the part of normalize no reader can skip."""

    def slots_object() -> Work:
        class Result:
            __slots__ = ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k")

            def __init__(self, a: Any, b: Any, c: Any, d: Any, e: Any, f: Any, g: Any,
                         h: Any, i: Any, j: Any, k: Any) -> None:
                self.a, self.b, self.c, self.d, self.e, self.f = a, b, c, d, e, f
                self.g, self.h, self.i, self.j, self.k = g, h, i, j, k

        return lambda: Result("completed", "end_turn", "anthropic", None, "", (), None, None,
                              (), {}, None)

    def bare_stop() -> Work:
        from stopkit import Stop, StopReason, _stop

        # Before issue 28 adapters built a Stop with `_fast_stop`, which wrote pydantic's
        # private slots; since, by validation. The row times whichever the checkout has.
        validate = getattr(_stop, "_fast_stop", None) or Stop.model_validate

        def build() -> Any:
            return validate({
                "reason": StopReason.COMPLETED, "raw_reason": "end_turn", "provider": "anthropic",
                "detail": None, "text": "", "tool_calls": (), "refusal": None,
                "stop_sequence": None, "notes": (), "usage": None, "details": {}, "raw": {},
            })

        return build

    def model_construct() -> Work:
        from stopkit._stop import Stop, StopReason

        return lambda: Stop.model_construct(reason=StopReason.COMPLETED, provider="anthropic",
                                            raw_reason="end_turn", raw={})

    return [
        Case("reference", "a plain 11-slot object", "Result(...11 fields) with __slots__",
             slots_object, "reference"),
        Case("reference", "stopkit Stop, as adapters build it",
             "stopkit.Stop.model_validate({...every field}) (before issue 28: _fast_stop)",
             bare_stop, "reference_stop"),
        Case("reference", "pydantic Stop.model_construct", "Stop.model_construct(...)",
             model_construct, "reference"),
    ]


def _reply_cases() -> list[Case]:
    cases: list[Case] = []
    for adapter in ADAPTERS:
        for case in CASES:
            reply = REPLIES[adapter].get(case)
            if reply is None:
                continue
            body = reply.body
            prefix = f"{adapter} {case}"
            rows = [
                ("floor", "floor: read stop field, dict lookup, tool-call key check",
                 f"benchmarks.cases.FLOORS[{adapter!r}](body)",
                 lambda a=adapter, b=body: _bind(FLOORS[a], b)),
                ("stopkit_dict", "stopkit.normalize(dict)", "stopkit.normalize(body)",
                 lambda b=body: _normalize_dict(b)),
                ("stopkit_sdk", "stopkit.normalize(SDK object)", "stopkit.normalize(sdk_object)",
                 lambda a=adapter, b=body: _normalize_sdk(a, b)),
                ("sdk_parse", "SDK's own parse of the body", SDK_PARSE[adapter],
                 lambda a=adapter, b=body: _bind(sdk_parser(a), b)),
                ("litellm", "LiteLLM transform to ModelResponse", LITELLM_CALL[adapter],
                 lambda a=adapter, b=body: litellm_work(a, b)),
                ("pydantic_ai", "pydantic-ai _process_response", PYDANTIC_AI_CALL[adapter],
                 lambda a=adapter, b=body: pydantic_ai_work(a, b)),
            ]
            sdk = SDK_MODULE[adapter]
            checks = {"stopkit_sdk": needs(sdk), "sdk_parse": needs(sdk),
                      "litellm": needs("litellm"), "pydantic_ai": needs("pydantic_ai", sdk)}
            cases += [
                Case("replies", f"{prefix}: {label}", call, factory, kind, adapter, case,
                     check=checks.get(kind))
                for kind, label, call, factory in rows
            ]  # fmt: skip
    return cases


# --- streams -------------------------------------------------------------------------------------

SDK_ACCUMULATOR = {
    "anthropic": "anthropic.lib.streaming._messages.accumulate_event(event=..., "
    "current_snapshot=..., json_bufs=...) (what MessageStream does per event)",
    "openai.chat": "openai.lib.streaming.chat._completions.ChatCompletionStreamState()"
    ".handle_chunk(chunk) ... .get_final_completion()",
    "openai.responses": "openai.lib.streaming.responses._responses.ResponseStreamState("
    "input_tools=omit, text_format=omit).handle_event(event)",
}


def _stream_stopkit(adapter: str, events: list[Any]) -> Work:
    from stopkit import get_adapter

    reader = get_adapter(adapter)

    def run() -> Any:
        accumulator = reader.stream()
        feed = accumulator.feed
        for event in events:
            feed(event)
        return accumulator.result()

    return run


def _sdk_events(adapter: str) -> list[Any]:
    parse = sdk_event_parser(adapter)
    return [parse(event) for event in STREAMS[adapter]]


def _stream_sdk(adapter: str) -> Work:
    events = _sdk_events(adapter)
    if adapter == "anthropic":
        from anthropic.lib.streaming._messages import accumulate_event

        def run_anthropic() -> Any:
            snapshot: Any = None
            buffers: dict[int, bytes] = {}
            for event in events:
                snapshot = accumulate_event(
                    event=event, current_snapshot=snapshot, json_bufs=buffers
                )
            return snapshot

        return run_anthropic
    if adapter == "openai.chat":
        from openai.lib.streaming.chat._completions import ChatCompletionStreamState

        def run_chat() -> Any:
            state: Any = ChatCompletionStreamState()
            for event in events:
                state.handle_chunk(event)
            return state.get_final_completion()

        return run_chat
    from openai import omit
    from openai.lib.streaming.responses._responses import ResponseStreamState

    def run_responses() -> Any:
        state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
        for event in events:
            state.handle_event(event)
        return events[-1].response

    return run_responses


def _stream_cases() -> list[Case]:
    cases: list[Case] = []
    for adapter in ADAPTERS:
        prefix = f"{adapter} stream"
        cases.append(
            Case("streams", f"{prefix}: stopkit accumulator, dict events",
                 f"get_adapter({adapter!r}).stream(): feed(event) x{EVENTS}, result()",
                 lambda a=adapter: _stream_stopkit(a, STREAMS[a]), "stream_stopkit_dict",
                 adapter, "stream", EVENTS)
        )
        cases.append(
            Case("streams", f"{prefix}: stopkit accumulator, SDK events",
                 f"get_adapter({adapter!r}).stream(): feed(sdk_event) x{EVENTS}, result()",
                 lambda a=adapter: _stream_stopkit(a, _sdk_events(a)), "stream_stopkit_sdk",
                 adapter, "stream", EVENTS, needs(SDK_MODULE[adapter]))
        )
        if adapter in SDK_ACCUMULATOR:
            cases.append(
                Case("streams", f"{prefix}: SDK's own accumulator, SDK events",
                     SDK_ACCUMULATOR[adapter], lambda a=adapter: _stream_sdk(a), "stream_sdk",
                     adapter, "stream", EVENTS, needs(SDK_MODULE[adapter]))
            )
    return cases


# --- the loop ------------------------------------------------------------------------------------
# The conversation and the three loops timed on it are in benchmarks/loops.py.


def _loop_parallel() -> Work:
    import asyncio

    import stopkit
    from stopkit.testing import ScriptedModel

    script = [tool_reply(0, 10), REPLIES["anthropic"]["completed"].body]
    messages = [{"role": "user", "content": "Look these up."}]

    async def lookup(key: str) -> str:
        await asyncio.sleep(0.1)
        return key

    event_loop = asyncio.new_event_loop()

    def run() -> Any:
        model = ScriptedModel(script)
        outcome = event_loop.run_until_complete(
            stopkit.arun_loop(model.acall, messages, tools={"lookup": lookup})
        )
        assert outcome.turns == 2, outcome
        return outcome

    return run


def _loop_cases() -> list[Case]:
    conversation = f"{LOOP_TURNS} tool turns x 2 instant tools + final, instant model"
    return [
        Case("loop", f"loop: stopkit driver time per turn ({conversation}, ScriptedModel)",
             "stopkit.run_loop(ScriptedModel(script), messages, tools={'lookup': ...})",
             stopkit_loop, "loop_overhead", inner=LOOP_TURNS + 1),
        Case("loop", f"loop: pydantic-ai Agent time per turn ({conversation}, FunctionModel)",
             "pydantic_ai.Agent(FunctionModel(f), tools=[lookup]).run_sync(prompt)",
             pydantic_ai_loop, "loop_peer", case="pydantic-ai", inner=LOOP_TURNS + 1,
             check=needs("pydantic_ai")),
        Case("loop", f"loop: OpenAI Agents SDK Runner time per turn ({conversation}, fake Model)",
             "agents.Runner.run_sync(Agent(model=FakeModel(), tools=[function_tool(lookup)]), "
             "prompt)",
             agents_sdk_loop, "loop_peer", case="openai-agents", inner=LOOP_TURNS + 1,
             check=needs("agents")),
        Case("loop", "loop: one turn with 10 async tools each sleeping 100 ms (wall)",
             "await stopkit.arun_loop(ScriptedModel(script).acall, messages, "
             "tools={'lookup': async sleep(0.1)})",
             _loop_parallel, "loop_parallel"),
    ]  # fmt: skip


def all_cases(*, loop: bool = True) -> list[Case]:
    """Return every timed row, in table order (the same order in every pyperf worker)."""
    from benchmarks import journal

    cases = _reference_cases() + _reply_cases() + _stream_cases()
    return cases + _loop_cases() + journal.cases() if loop else cases


def runnable(cases: list[Case], *, say: bool = True) -> list[Case]:
    """Return the cases whose optional parts are there; say why each other one is skipped.

    The same in every pyperf worker (the checks only look), so the rows keep their order;
    `say=False` in the workers, so that each line is printed once, to stderr.
    """
    kept = []
    for case in cases:
        why = None if case.check is None else case.check()
        if why is None:
            kept.append(case)
        elif say:
            skipped(case.name, why)
    return kept


def skipped(row: str, why: str) -> None:
    """Say on stderr that a row is left out of the table, and why."""
    print(f"benchmarks: skipped {row}: {why}", file=sys.stderr)
