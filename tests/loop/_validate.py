"""Check a loop transcript against the provider SDK's own request type for its messages.

Where an SDK has a type for the messages of a request, the transcript must validate as a list
of it: anthropic `MessageParam`, openai `ChatCompletionMessageParam` and
`ResponseInputItemParam`, google-genai `Content`, cohere `ChatMessageV2` (v1: its `Message`
union, the `chat_history` entries), ollama `Message`, xai_sdk's proto `chat_pb2.Message`, and
for Bedrock botocore's own validator over the Converse `messages` shape. The prompt-string
APIs (Bedrock InvokeModel's families, legacy Completions) have no message type: their
transcripts are `PromptMessage`s. TypedDicts are checked with `extra="forbid"`, so a key the
API does not know fails too.

Each adapter's row in `tests/_adapters.py` names its validator (`Builtin.transcript`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import ConfigDict, TypeAdapter
from typing_extensions import TypedDict

Validator = Callable[[Sequence[Any]], None]

FORBID = ConfigDict(extra="forbid")


def _typed(make: Callable[[], Any], *, strict_keys: bool = True) -> Validator:
    @functools.cache
    def adapter() -> TypeAdapter[Any]:
        item = make()
        return TypeAdapter(list[item], config=FORBID) if strict_keys else TypeAdapter(list[item])

    def validate(messages: Sequence[Any]) -> None:
        adapter().validate_python(list(messages))

    return validate


def _anthropic() -> Any:
    from anthropic.types import MessageParam

    return MessageParam


def _chat() -> Any:
    from openai.types.chat import ChatCompletionMessageParam

    return ChatCompletionMessageParam


def _responses() -> Any:
    from openai.types.responses import ResponseInputItemParam

    return ResponseInputItemParam


def _gemini() -> Any:
    from google.genai.types import Content

    return Content


def _cohere() -> Any:
    import cohere

    return cohere.ChatMessageV2


def _cohere_v1() -> Any:
    import cohere

    return cohere.Message


def _ollama() -> Any:
    import ollama

    return ollama.Message


def _xai(messages: Sequence[Any]) -> None:
    """xai_sdk's request message is the proto `chat_pb2.Message`: each must parse into it."""
    from google.protobuf.json_format import ParseDict
    from xai_sdk.proto import chat_pb2

    for message in messages:
        ParseDict(message, chat_pb2.Message())  # an unknown key or value raises ParseError


def _bedrock(messages: Sequence[Any]) -> None:
    import botocore.session
    from botocore.validate import ParamValidator

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model("Converse").input_shape
    report = ParamValidator().validate({"modelId": "m", "messages": list(messages)}, shape)
    assert not report.has_errors(), report.generate_report()


class PromptMessage(TypedDict):
    """A message of the transcript a prompt-string API's caller renders into its prompt.

    Bedrock InvokeModel's Titan, Llama, Mistral and Cohere Command bodies, and OpenAI's legacy
    Completions, take one prompt string (no SDK has a request-message type for them):
    `bedrock.invoke` and `openai.completions` write plain role/content messages, and their
    transcripts must be exactly that.
    """

    role: Literal["user", "assistant"]
    content: str


ANTHROPIC = _typed(_anthropic)
CHAT = _typed(_chat)
RESPONSES = _typed(_responses)
# pydantic models carry their own config (google-genai forbids unknown keys itself)
GEMINI = _typed(_gemini, strict_keys=False)
COHERE = _typed(_cohere, strict_keys=False)
COHERE_V1 = _typed(_cohere_v1, strict_keys=False)
OLLAMA = _typed(_ollama, strict_keys=False)
BEDROCK: Validator = _bedrock
XAI: Validator = _xai
PROMPT = _typed(lambda: PromptMessage)


def assert_valid_transcript(adapter: str, messages: Sequence[Any]) -> None:
    """Fail unless `messages` validate as the request messages of `adapter`'s SDK."""
    from tests._adapters import BY_NAME  # the registry names each adapter's validator

    BY_NAME[adapter].transcript(messages)
