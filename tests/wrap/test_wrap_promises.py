"""What `stopkit.wrap` promises beyond one reply per call, on the real SDK clients.

SDK parse errors, `n > 1`, a failing `on_stop`, a mistyped `raise_on`, over recorded replies.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import openai
import pydantic
import pytest

import stopkit
import stopkit.record
from stopkit.record._payloads import Payload, load_payload
from tests import _wrap_clients as sdk

CHAT = sdk.RECORDINGS / "openai_chat"


class Answer(pydantic.BaseModel):
    city: str


def _wrapped(folder: str, source: Any, *, is_async: bool = False, **settings: Any) -> Any:
    seen: list[stopkit.Stop] = []
    client = sdk.client(folder, stopkit.record.ReplayTransport(source), is_async=is_async)
    return stopkit.wrap(client, on_stop=seen.append, **settings), seen


def _parse_sync(client: Any) -> Any:
    return client.chat.completions.parse(model="m", messages=sdk.MESSAGES)


def _parse_async(client: Any) -> Any:
    return asyncio.run(client.chat.completions.parse(model="m", messages=sdk.MESSAGES))


def _parse_raw(client: Any) -> Any:
    return client.chat.completions.with_raw_response.parse(model="m", messages=sdk.MESSAGES).parse()


def _parse_beta(client: Any) -> Any:
    return client.beta.chat.completions.parse(model="m", messages=sdk.MESSAGES)


def _stream_parsed(client: Any) -> Any:
    with client.chat.completions.stream(
        model="m", messages=sdk.MESSAGES, response_format=Answer
    ) as stream:
        return list(stream)


def _source(form: str, cut: str) -> list[Any]:
    """The recording cut by `cut`.

    For the streamed form, its text is made the start of a JSON object: the SDK parses
    structured output as it streams.
    """
    if "stream" not in form:
        return [CHAT / f"{cut}.json"]
    payload = load_payload(CHAT / f"{cut}.stream.json")
    events = copy.deepcopy(payload.events) or []
    for event in events:
        for choice in event["choices"]:
            if choice["delta"].get("content"):
                choice["delta"]["content"] = '{"city": "Par'
    return [Payload(None, events=events, response=payload.response)]


PARSE_FORMS = {
    "parse": (_parse_sync, False),
    "parse-async": (_parse_async, True),
    "with_raw_response.parse": (_parse_raw, False),
    "beta.parse": (_parse_beta, False),
    "stream(response_format)": (_stream_parsed, False),
}
CUT = {
    "length": ("output_limit", openai.LengthFinishReasonError, stopkit.TruncatedReply),
    "content_filter": ("filtered", openai.ContentFilterFinishReasonError, stopkit.FilteredReply),
}


@pytest.mark.parametrize("cut", sorted(CUT))
@pytest.mark.parametrize("form", sorted(PARSE_FORMS))
def test_parse_reports_a_cut_reply_before_the_sdk_raises(form: str, cut: str) -> None:
    """A parse form cut by `length`/`content_filter` reaches `on_stop`; the SDK's error stays."""
    make, is_async = PARSE_FORMS[form]
    reason, sdk_error, _ = CUT[cut]
    client, seen = _wrapped("openai_chat", _source(form, cut), is_async=is_async)
    with pytest.raises(sdk_error):
        make(client)
    assert [s.reason.value for s in seen] == [reason]
    assert seen[0].raw_reason == cut


@pytest.mark.parametrize("cut", sorted(CUT))
@pytest.mark.parametrize("form", sorted(PARSE_FORMS))
def test_parse_raises_the_stopkit_error_from_the_sdk_error(form: str, cut: str) -> None:
    """With the reason in `raise_on`, the stopkit error is raised, the SDK's as its cause."""
    make, is_async = PARSE_FORMS[form]
    reason, sdk_error, stopkit_error = CUT[cut]
    client, seen = _wrapped("openai_chat", _source(form, cut), is_async=is_async, raise_on={reason})
    with pytest.raises(stopkit_error) as caught:
        make(client)
    assert isinstance(caught.value.__cause__, sdk_error)
    assert caught.value.stop is seen[0]


def _two_choices() -> Payload:
    """The recorded chat completion with a second choice, cut by `length`."""
    reply = copy.deepcopy(load_payload(CHAT / "stop.json").reply)
    second = copy.deepcopy(reply["choices"][0])
    second.update(index=1, finish_reason="length")
    reply["choices"].append(second)
    return Payload(None, reply=reply)


def _two_choice_stream() -> Payload:
    """The recorded chat stream with each chunk's choice repeated as index 1, cut by `length`."""
    events = copy.deepcopy(load_payload(CHAT / "stop.stream.json").events) or []
    for event in events:
        for choice in list(event.get("choices", [])):
            twin = {**copy.deepcopy(choice), "index": 1}
            if twin.get("finish_reason"):
                twin["finish_reason"] = "length"
            event["choices"].append(twin)
    return Payload(None, events=events, response={"sse_done": True})


@pytest.mark.parametrize("stream", [False, True], ids=["reply", "stream"])
def test_n_choices_give_one_on_stop_each(stream: bool) -> None:
    """With `n=2`, `on_stop` hears of each choice in order; `raise_on` names the cut one."""
    payload = _two_choice_stream() if stream else _two_choices()
    client, seen = _wrapped("openai_chat", [payload])
    sdk.call("openai_chat", client, stream)
    assert [(s.reason.value, s.raw_reason) for s in seen] == [
        ("completed", "stop"), ("output_limit", "length"),
    ]  # fmt: skip
    client, seen = _wrapped("openai_chat", [payload], raise_on={"output_limit"})
    with pytest.raises(stopkit.TruncatedReply) as caught:
        sdk.call("openai_chat", client, stream)
    assert caught.value.stop is seen[1]


class Boom(Exception):
    pass


def _explode(stop: stopkit.Stop) -> None:
    raise Boom(f"cannot handle {stop.reason.value}")


@pytest.mark.parametrize(
    ("folder", "name", "stream"),
    [("anthropic", "max_tokens", False), ("anthropic", "max_tokens", True),
     ("gemini", "safety", False), ("openai_responses", "refusal", True)],
)  # fmt: skip
def test_an_on_stop_that_raises_keeps_the_reply(folder: str, name: str, stream: bool) -> None:
    """An exception from `on_stop` propagates as it is, the reply on `.stopkit_reply`."""
    path = sdk.RECORDINGS / folder / f"{name}{'.stream' if stream else ''}.json"
    client = stopkit.wrap(
        sdk.client(folder, stopkit.record.ReplayTransport([path])), on_stop=_explode
    )
    with pytest.raises(Boom) as caught:
        sdk.call(folder, client, stream)
    error: Any = caught.value
    assert error.stopkit_stop.reason.value == load_payload(path).expect["reason"]  # type: ignore[index]
    if stream:
        assert error.stopkit_reply.stop is error.stopkit_stop  # the watched stream itself
    else:
        assert error.stopkit_stop.raw is error.stopkit_reply  # the SDK's own reply object
    assert any("stopkit_reply" in note for note in error.__notes__)


def test_an_on_stop_that_raises_on_a_parse_error_keeps_the_completion() -> None:
    """Under openai's parse error, a failing `on_stop` gets the completion the SDK carried."""
    client = stopkit.wrap(
        sdk.client("openai_chat", stopkit.record.ReplayTransport([CHAT / "length.json"])),
        on_stop=_explode,
    )
    with pytest.raises(Boom) as caught:
        _parse_sync(client)
    error: Any = caught.value
    assert error.stopkit_reply.choices[0].finish_reason == "length"
    assert isinstance(error.__context__, openai.LengthFinishReasonError)


def test_a_mistyped_raise_on_names_the_valid_values() -> None:
    """A value of `raise_on` that is no stop reason fails at `wrap()`, listing every reason."""
    with pytest.raises(ValueError, match="'output_limt' is not a stop reason") as caught:
        stopkit.wrap(sdk.client("anthropic"), raise_on={"output_limt", "filtered"})
    for reason in stopkit.StopReason:
        assert repr(reason.value) in str(caught.value)
