"""`Stop`'s fields, pinned: a field added without its fact, its engine line and its readers fails.

Adding a field to `Stop` is four steps (CONTRIBUTING's checklist): the field in
`stopkit/_stop.py`, its fact on `Reading`, its line in the engine's builder, and every reader
filling it. These tests fail until the first three agree; the tables below say, per adapter,
what its replies and streams name.
"""

from __future__ import annotations

from typing import Any

import pytest

import stopkit
from stopkit import Stop
from stopkit.adapters import Reading
from tests._adapters import BY_FOLDER
from tests._payloads import case_part, load_cases

#: The Stop fields the engine decides (no reader sets them): every other one is a fact.
DECIDED = {"reason", "detail", "provider", "tool_calls"}


def test_stop_fields_are_pinned() -> None:
    """`Stop` holds exactly these fields, in this order (DESIGN section 2)."""
    assert list(Stop.model_fields) == [
        "reason", "raw_reason", "provider", "detail", "text", "tool_calls", "refusal",
        "stop_sequence", "notes", "model", "response_id", "usage", "details", "raw",
    ]  # fmt: skip


def test_every_field_a_reader_fills_is_a_fact_of_the_reading() -> None:
    """Each Stop field the engine does not decide is a `Reading` fact of the same name."""
    facts = set(Reading.__slots__)
    assert set(Stop.model_fields) - DECIDED <= facts, set(Stop.model_fields) - DECIDED - facts


def test_a_reading_s_facts_reach_the_stop() -> None:
    """The engine copies every fact it does not decide onto the Stop, as read."""
    from stopkit.adapters import Rules, decide

    reading = Reading(raw={"any": 1}, raw_reason="done")
    values: dict[str, Any] = {
        "text": "Hi", "refusal": None, "stop_sequence": "END", "model": "m-1",
        "response_id": "r-1", "usage": stopkit.Usage(input_tokens=1),
    }  # fmt: skip
    for name, value in values.items():
        setattr(reading, name, value)
    stop = decide(reading, Rules("demo", "finish", {"done": (stopkit.StopReason.COMPLETED, None)}))
    assert {name: getattr(stop, name) for name in values} == values


REPLIES = [c for c in load_cases() if not c.is_stream and c.folder in BY_FOLDER]


def _said(value: Any) -> str | None:
    return value if type(value) is str and value else None


@pytest.mark.parametrize("case", REPLIES, ids=[c.id for c in REPLIES])
def test_every_reply_gives_the_model_and_id_it_names(case: Any) -> None:
    """A reply's `Stop.model` and `.response_id` are what its wire's own fields say (or None)."""
    model, reply_id = BY_FOLDER[case.folder].names(case.data["reply"])
    stop = stopkit.normalize(case.data["reply"])
    assert (stop.model, stop.response_id) == (_said(model), _said(reply_id))


#: One recorded stream per adapter, and the model and id its events name.
STREAMS = [
    ("anthropic", "end_turn_text.stream.json", "claude-sonnet-4-5", "msg_01XFDUDYJgAACzvnptvVoYEL"),
    ("openai_chat", "stream_text.stream.json", "gpt-4o-2024-08-06", "chatcmpl-s1"),
    ("openai_responses", "completed_text.stream.json", "gpt-5.4", "resp_001"),
    ("gemini", "stream_parallel_calls.stream.json", "gemini-2.5-flash", "resp-1"),
    ("bedrock", "end_turn.stream.json", None, None),
    ("bedrock_invoke", "titan_length.stream.json", None, None),
    ("cohere", "complete.stream.json", None, "c0a8e7f2-0001"),
    ("cohere_v1", "complete.stream.json", None, "d4e7b1c0-3a5f-4e2b-8c9d-1f0a6b7e2c33"),
    ("ollama", "cut.stream.json", "qwen3:14b", None),
    ("openai_completions", "azure_late_filter.stream.json", "gpt-3.5-turbo-instruct",
     "cmpl-9xK2bQy7ZcTnLq0rW1aVd3sF"),
]  # fmt: skip


@pytest.mark.parametrize(("folder", "name", "model", "reply_id"), STREAMS)
def test_a_stream_gives_the_model_and_id_its_events_name(
    folder: str, name: str, model: str | None, reply_id: str | None
) -> None:
    """A streamed reply names its model and id as its whole twin would (read from the events)."""
    stop = stopkit.normalize_stream(case_part(folder, name, "events"))
    assert (stop.model, stop.response_id) == (model, reply_id)


def _langchain() -> Any:
    from langchain_core.messages import AIMessage

    # langchain-openai's `llm_output`, merged into the message's response_metadata.
    metadata = {"model_provider": "openai", "finish_reason": "stop",
                "model_name": "gpt-4o-2024-08-06", "id": "chatcmpl-lc1"}  # fmt: skip
    return AIMessage("Hi", response_metadata=metadata, id="lc_run-1")


def _litellm() -> Any:
    from litellm.types.utils import ModelResponse

    return ModelResponse(id="chatcmpl-ll1", model="gpt-4o-mini", choices=[
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi"}}
    ])  # fmt: skip


def _pydantic_ai() -> Any:
    from pydantic_ai.messages import ModelResponse, TextPart

    return ModelResponse(parts=[TextPart("Hi")], model_name="claude-sonnet-4-5",
                         provider_name="anthropic", provider_response_id="msg_pa1",
                         provider_details={"finish_reason": "end_turn"})  # fmt: skip


def _agents() -> Any:
    from agents.items import ModelResponse
    from agents.usage import Usage

    return ModelResponse(output=[], usage=Usage(), response_id="resp_ag1")


#: Framework objects (no payload file holds one): the model and id each framework kept.
FRAMEWORK_CASES = [
    ("langchain", _langchain, "gpt-4o-2024-08-06", "chatcmpl-lc1"),
    ("litellm", _litellm, "gpt-4o-mini", "chatcmpl-ll1"),
    ("pydantic_ai", _pydantic_ai, "claude-sonnet-4-5", "msg_pa1"),
    ("openai.agents", _agents, None, "resp_ag1"),  # agents/items.py: no model in a response
]


@pytest.mark.filterwarnings("ignore:Items? .* using the `ReadOnly` qualifier:UserWarning")
@pytest.mark.parametrize(("name", "build", "model", "reply_id"), FRAMEWORK_CASES)
def test_a_framework_object_gives_the_model_and_id_it_kept(
    name: str, build: Any, model: str | None, reply_id: str | None
) -> None:
    """A framework's reply names the provider's model and id where the framework kept them."""
    stop = stopkit.normalize(build())
    assert (stop.provider, stop.model, stop.response_id) == (name, model, reply_id)
