"""Real SDK clients over a given httpx transport, and one reply-producing call per wire API.

Used by the wrap and transport tests: `client(folder, transport)` builds the official client
for a payload folder (`anthropic`, `openai_chat`, `openai_responses`, `gemini`), and
`call`/`acall` make the request that folder's recordings answer, reading streams to the end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
import httpx
import httpx2
import openai
from google import genai
from google.genai import types

RECORDINGS = Path(__file__).parent / "recordings"
FOLDERS = ("anthropic", "openai_chat", "openai_responses", "gemini")
ADAPTER = {
    "anthropic": "anthropic",
    "openai_chat": "openai.chat",
    "openai_responses": "openai.responses",
    "gemini": "gemini",
}
API_KEY = "sk-test"
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]


def client(
    folder: str, transport: Any = None, *, is_async: bool = False, base_url: str | None = None
) -> Any:
    """Return the official client for `folder`, sending through `transport` (or to `base_url`)."""
    if folder == "gemini":
        options: dict[str, Any] = {"base_url": base_url} if base_url else {}
        if transport is not None:
            key = "httpx_async_client" if is_async else "httpx_client"
            options[key] = (httpx.AsyncClient if is_async else httpx.Client)(transport=transport)
        options["retry_options"] = types.HttpRetryOptions(attempts=1)
        return genai.Client(api_key=API_KEY, http_options=types.HttpOptions(**options))
    http = None
    if transport is not None:
        http = (httpx2.AsyncClient if is_async else httpx2.Client)(transport=transport)
    if folder == "anthropic":
        cls: Any = anthropic.AsyncAnthropic if is_async else anthropic.Anthropic
    else:
        cls = openai.AsyncOpenAI if is_async else openai.OpenAI
    return cls(api_key=API_KEY, http_client=http, base_url=base_url, max_retries=0)


def request(folder: str, c: Any, stream: bool) -> Any:
    """Make the sync call whose reply the folder's recordings hold (streams left unread)."""
    if folder == "anthropic":
        return c.messages.create(
            model="claude-test-model", max_tokens=256, messages=MESSAGES, stream=stream
        )
    if folder == "openai_chat":
        return c.chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=stream)
    if folder == "openai_responses":
        return c.responses.create(model="gpt-4o", input="Weather in Paris?", stream=stream)
    if stream:
        return c.models.generate_content_stream(model="gemini-2.5-flash", contents="Weather?")
    return c.models.generate_content(model="gemini-2.5-flash", contents="Weather?")


async def arequest(folder: str, c: Any, stream: bool) -> Any:
    """Make the async call whose reply the folder's recordings hold (streams left unread)."""
    if folder == "anthropic":
        return await c.messages.create(
            model="claude-test-model", max_tokens=256, messages=MESSAGES, stream=stream
        )
    if folder == "openai_chat":
        return await c.chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=stream)
    if folder == "openai_responses":
        return await c.responses.create(model="gpt-4o", input="Weather in Paris?", stream=stream)
    models = c.aio.models
    if stream:
        return await models.generate_content_stream(model="gemini-2.5-flash", contents="Weather?")
    return await models.generate_content(model="gemini-2.5-flash", contents="Weather?")


def call(folder: str, c: Any, stream: bool) -> Any:
    """Make the call and return the reply, or the list of every streamed event."""
    result = request(folder, c, stream)
    return list(result) if stream else result


async def acall(folder: str, c: Any, stream: bool) -> Any:
    """Make the async call and return the reply, or the list of every streamed event."""
    result = await arequest(folder, c, stream)
    if stream:
        return [event async for event in result]
    return result


def dump(result: Any) -> Any:
    """Return a comparable JSON form of a reply or a list of events."""
    if isinstance(result, list):
        return [dump(item) for item in result]
    return result.model_dump(mode="json", warnings=False)
