"""Real pydantic-ai models answering with the recorded payload files, over mocked transports.

`response(folder, case)` runs pydantic-ai's own model class for a payload folder
(AnthropicModel, OpenAIChatModel, OpenAIResponsesModel, GoogleModel, CohereModel) against the
reply recorded in `tests/payloads/<folder>/<case>.json`, and returns the `ModelResponse` it
builds: how each model fills `provider_name`, `provider_details` and `finish_reason` is
pydantic-ai's own doing, not ours. AnthropicModel also streams: a streamed request is answered
with the case's `.stream.json` twin, sent as server-sent events.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import cohere
import httpx
import httpx2
import openai
from google import genai
from google.genai import types
from pydantic_ai.direct import model_request
from pydantic_ai.messages import ModelRequest, ModelResponse, UserPromptPart
from pydantic_ai.models import Model
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.cohere import CohereModel
from pydantic_ai.models.google import GoogleModel
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.cohere import CohereProvider
from pydantic_ai.providers.google import GoogleProvider
from pydantic_ai.providers.openai import OpenAIProvider

from tests._payloads import PAYLOADS

KEY = "sk-test"


def _case(folder: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PAYLOADS / folder / name).read_text())
    return data


def _sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def _anthropic(case: str) -> Model:
    """AnthropicModel: the recorded reply, or its `.stream.json` twin when it streams."""
    reply = _case("anthropic", f"{case}.json")["reply"]
    events = _case("anthropic", f"{case}.stream.json")["events"]

    def answer(request: httpx2.Request) -> httpx2.Response:
        if json.loads(request.content).get("stream"):
            headers = {"content-type": "text/event-stream"}
            return httpx2.Response(200, text=_sse(events), headers=headers)
        return httpx2.Response(200, json=reply)

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(answer))
    client = anthropic.AsyncAnthropic(api_key=KEY, http_client=http, max_retries=0)
    return AnthropicModel("claude-test-model", provider=AnthropicProvider(anthropic_client=client))


def model(folder: str, case: str) -> Model:
    """pydantic-ai's model class for `folder`, answering with the recorded `case`."""
    if folder == "anthropic":
        return _anthropic(case)
    body = _case(folder, f"{case}.json")["reply"]
    if folder in ("openai_chat", "openai_responses"):
        http2 = httpx2.AsyncClient(
            transport=httpx2.MockTransport(lambda request: httpx2.Response(200, json=body))
        )
        client = openai.AsyncOpenAI(api_key=KEY, http_client=http2, max_retries=0)
        cls = OpenAIChatModel if folder == "openai_chat" else OpenAIResponsesModel
        return cls("gpt-4o", provider=OpenAIProvider(openai_client=client))
    http = httpx.AsyncClient(
        transport=httpx.MockTransport(lambda request: httpx.Response(200, json=body))
    )
    if folder == "gemini":
        options = types.HttpOptions(
            httpx_async_client=http, retry_options=types.HttpRetryOptions(attempts=1)
        )
        google = genai.Client(api_key=KEY, http_options=options)
        return GoogleModel("gemini-2.5-flash", provider=GoogleProvider(client=google))
    if folder == "cohere":
        client_v2 = cohere.AsyncClientV2(api_key=KEY, httpx_client=http)
        return CohereModel("command-r", provider=CohereProvider(cohere_client=client_v2))
    raise ValueError(f"no pydantic-ai model for the payload folder {folder!r}")


async def response(folder: str, case: str) -> ModelResponse:
    """The `ModelResponse` pydantic-ai's model for `folder` builds from the recorded `case`.

    Async: pydantic-ai's sync API sets an event loop of its own and never closes it.
    """
    request = ModelRequest(parts=[UserPromptPart("Weather in Paris?")])
    return await model_request(model(folder, case), [request])
