"""The call forms `stopkit.wrap` watches: one row per (SDK, call form, sync/async, stream).

Each row names the form as the wrap page (docs/wrap.md) lists it, where it lives on the client,
the arguments, how its result is read (`read`), and the recordings that answer it.
`tests/wrap/test_forms.py` runs every row on the real SDK client, wrapped and unwrapped, over
`ReplayTransport`; the wrap page's list of watched forms is checked against `FORMS`. A new form
is one row here.

Reads:
    reply       the call returns the reply
    events      the call returns an SDK stream, read to its end
    helper      the call returns a helper's stream manager: enter it, read every event, then
                the helper's `final` method
    raw         `with_raw_response`: the response's `parse()` (a reply, or a stream read to
                its end)
    raw-cm      `with_streaming_response`: enter the manager, then as `raw`
    runner      anthropic's tool runner: every item it yields (a message, or a stream read to
                its end), then `until_done()`
    chat        genai `chats.create(...)`, then the chat's method named by `final`
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from anthropic import beta_async_tool, beta_tool

from tests._wrap_clients import MESSAGES

ANTHROPIC = {"model": "claude-test-model", "max_tokens": 256, "messages": MESSAGES}
CHAT = {"model": "gpt-4o", "messages": MESSAGES}
RESPONSES = {"model": "gpt-4o", "input": "Weather in Paris?"}
GEMINI = {"model": "gemini-2.5-flash", "contents": "Weather?"}


@beta_tool
def get_weather(city: str) -> str:
    """Say what the weather is in a city (the recorded tool_use asks for Paris)."""
    return f"Sunny in {city}"


@beta_async_tool(name="get_weather")
async def aget_weather(city: str) -> str:
    """The async tool runner's tool."""
    return f"Sunny in {city}"


@dataclass(frozen=True)
class Form:
    """One watched call form on one SDK, sync or async."""

    sdk: str  # the recordings folder: anthropic, openai_chat, openai_responses, gemini
    name: str  # the form as docs/wrap.md lists it
    path: str  # where the method lives on the client
    args: dict[str, Any]
    read: str = "reply"
    stream: bool = False  # pass stream=True
    final: str | None = None  # helper: its final method; chat: the chat's method
    recordings: tuple[str, ...] = ()  # default: the SDK's REPLY (or STREAM) recording
    is_async: bool = False

    @property
    def id(self) -> str:
        """The test id: sdk:name[:stream]:sync|async."""
        return f"{self.sdk}:{self.name}{':stream' if self.stream else ''}:" + (
            "async" if self.is_async else "sync"
        )

    @property
    def streamed(self) -> bool:
        """Whether the reply arrives as a stream of events."""
        streams = ("events", "helper")
        return self.stream or self.read in streams or self.final == "send_message_stream"


# The recording each SDK's forms are served by default (a reason worth raising on), streamed.
REPLY = {"anthropic": "max_tokens", "openai_chat": "stop", "openai_responses":
         "max_output_tokens", "gemini": "max_tokens"}  # fmt: skip

_ROWS = [
    # anthropic
    Form("anthropic", "messages.create", "messages.create", ANTHROPIC),
    Form("anthropic", "messages.create", "messages.create", ANTHROPIC, "events", stream=True),
    Form("anthropic", "messages.parse", "messages.parse", ANTHROPIC),
    Form("anthropic", "messages.stream", "messages.stream", ANTHROPIC, "helper",
         final="get_final_message"),
    Form("anthropic", "messages.with_raw_response.create", "messages.with_raw_response.create",
         ANTHROPIC, "raw"),
    Form("anthropic", "messages.with_raw_response.create", "messages.with_raw_response.create",
         ANTHROPIC, "raw", stream=True),
    Form("anthropic", "messages.with_streaming_response.create",
         "messages.with_streaming_response.create", ANTHROPIC, "raw-cm"),
    Form("anthropic", "beta.messages.create", "beta.messages.create", ANTHROPIC),
    Form("anthropic", "beta.messages.create", "beta.messages.create", ANTHROPIC, "events",
         stream=True),
    Form("anthropic", "beta.messages.parse", "beta.messages.parse", ANTHROPIC),
    Form("anthropic", "beta.messages.stream", "beta.messages.stream", ANTHROPIC, "helper",
         final="get_final_text"),
    Form("anthropic", "beta.messages.tool_runner", "beta.messages.tool_runner", ANTHROPIC,
         "runner", recordings=("tool_use.json", "end_turn.json")),
    Form("anthropic", "beta.messages.tool_runner", "beta.messages.tool_runner", ANTHROPIC,
         "runner", stream=True, recordings=("tool_use.stream.json", "end_turn.stream.json")),
    # openai chat completions
    Form("openai_chat", "chat.completions.create", "chat.completions.create", CHAT),
    Form("openai_chat", "chat.completions.create", "chat.completions.create", CHAT, "events",
         stream=True),
    Form("openai_chat", "chat.completions.parse", "chat.completions.parse", CHAT),
    Form("openai_chat", "chat.completions.stream", "chat.completions.stream", CHAT, "helper",
         final="get_final_completion"),
    Form("openai_chat", "chat.completions.retrieve", "chat.completions.retrieve",
         {"completion_id": "chatcmpl-1"}),
    Form("openai_chat", "chat.completions.with_raw_response.create",
         "chat.completions.with_raw_response.create", CHAT, "raw"),
    Form("openai_chat", "chat.completions.with_raw_response.create",
         "chat.completions.with_raw_response.create", CHAT, "raw", stream=True),
    Form("openai_chat", "chat.completions.with_raw_response.parse",
         "chat.completions.with_raw_response.parse", CHAT, "raw"),
    Form("openai_chat", "chat.completions.with_streaming_response.create",
         "chat.completions.with_streaming_response.create", CHAT, "raw-cm", stream=True),
    Form("openai_chat", "beta.chat.completions.create", "beta.chat.completions.create", CHAT),
    Form("openai_chat", "beta.chat.completions.parse", "beta.chat.completions.parse", CHAT),
    Form("openai_chat", "beta.chat.completions.stream", "beta.chat.completions.stream", CHAT,
         "helper", final="get_final_completion"),
    # openai responses
    Form("openai_responses", "responses.create", "responses.create", RESPONSES),
    Form("openai_responses", "responses.create", "responses.create", RESPONSES, "events",
         stream=True),
    Form("openai_responses", "responses.parse", "responses.parse", RESPONSES),
    Form("openai_responses", "responses.stream", "responses.stream", RESPONSES, "helper",
         final="get_final_response",  # which raises on a stream without response.completed
         recordings=("completed.stream.json",)),
    Form("openai_responses", "responses.retrieve", "responses.retrieve",
         {"response_id": "resp_1"}),
    Form("openai_responses", "responses.retrieve", "responses.retrieve",
         {"response_id": "resp_1"}, "events", stream=True),
    Form("openai_responses", "responses.with_raw_response.create",
         "responses.with_raw_response.create", RESPONSES, "raw"),
    Form("openai_responses", "responses.with_streaming_response.create",
         "responses.with_streaming_response.create", RESPONSES, "raw-cm", stream=True),
    Form("openai_responses", "beta.responses.create", "beta.responses.create", RESPONSES),
    Form("openai_responses", "beta.responses.create", "beta.responses.create", RESPONSES,
         "events", stream=True),
    Form("openai_responses", "beta.responses.retrieve", "beta.responses.retrieve",
         {"response_id": "resp_1"}),
    # google-genai (the async forms live under client.aio)
    Form("gemini", "models.generate_content", "models.generate_content", GEMINI),
    Form("gemini", "models.generate_content_stream", "models.generate_content_stream", GEMINI,
         "events"),
    Form("gemini", "chats.create().send_message", "chats.create", {"model": GEMINI["model"]},
         "chat", final="send_message"),
    Form("gemini", "chats.create().send_message_stream", "chats.create",
         {"model": GEMINI["model"]}, "chat", final="send_message_stream"),
]  # fmt: skip


def _async(form: Form) -> Form:
    path = f"aio.{form.path}" if form.sdk == "gemini" else form.path
    return Form(**{**form.__dict__, "path": path, "is_async": True})


FORMS: list[Form] = [form for row in _ROWS for form in (row, _async(row))]


def recordings(form: Form) -> list[str]:
    """The recording files (in the SDK's folder) that answer the form, in order."""
    if form.recordings:
        return list(form.recordings)
    return [f"{REPLY[form.sdk]}{'.stream' if form.streamed else ''}.json"]


def _resolve(client: Any, path: str) -> Any:
    target = client
    for part in path.split("."):
        target = getattr(target, part)
    return target


async def _settle(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def _events(stream: Any) -> list[Any]:
    if hasattr(type(stream), "__aiter__"):
        return [event async for event in stream]
    return list(stream)


async def _read_parsed(parsed: Any, form: Form) -> Any:
    return await _events(parsed) if form.stream else parsed


def _args(form: Form) -> dict[str, Any]:
    args = dict(form.args)
    if form.stream:
        args["stream"] = True
    if form.read == "runner":
        args["tools"] = [aget_weather if form.is_async else get_weather]
    return args


async def _read(form: Form, client: Any) -> Any:
    method = _resolve(client, form.path)
    if form.read == "helper":
        manager = method(**_args(form))
        if form.is_async:
            async with manager as stream:
                return [*(await _events(stream)), await getattr(stream, form.final or "")()]
        with manager as stream:
            return [*list(stream), getattr(stream, form.final or "")()]
    if form.read == "raw-cm":
        manager = method(**_args(form))
        if form.is_async:
            async with manager as response:
                return await _read_parsed(await response.parse(), form)
        with manager as response:
            return await _read_parsed(response.parse(), form)
    if form.read == "chat":
        chat = method(**form.args)
        reply = await _settle(getattr(chat, form.final or "")("Weather?"))
        return await _events(reply) if form.streamed else reply
    result = await _settle(method(**_args(form)))
    if form.read == "events":
        return await _events(result)
    if form.read == "raw":
        return await _read_parsed(await _settle(result.parse()), form)
    if form.read == "runner":
        items = []  # each turn's stream is read as it comes: the runner moves on after it
        if form.is_async:
            async for item in result:
                items.append(await _events(item) if form.stream else item)
        else:
            items = [list(item) if form.stream else item for item in result]
        return [*items, await _settle(result.until_done())]
    return result


def call(form: Form, client: Any) -> Any:
    """Make the form's call on `client` and return what it gave, streams read to their end."""
    import asyncio

    return asyncio.run(_read(form, client))
