"""What `normalize` accepts, and the errors it gives for what it cannot read."""

from __future__ import annotations

import json
import tracemalloc

import pytest

import stopkit


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        (42, "int"),
        ({"foo": 1, "bar": 2}, "'foo'"),
        ({"error": {"type": "overloaded_error", "message": "Overloaded"}}, "HTTP error envelope"),
        ("not json at all", "not valid JSON"),
        (b"data: {}\n\n", "normalize_stream"),
        ([], "list"),
    ],
)
def test_unsupported_input_names_what_was_received(reply: object, fragment: str) -> None:
    """A non-reply raises UnsupportedReply whose message names the input and the adapters tried."""
    with pytest.raises(stopkit.UnsupportedReply) as info:
        stopkit.normalize(reply)
    assert fragment in str(info.value)
    assert isinstance(info.value, stopkit.StopkitError)


def test_unknown_adapter_name_is_a_clear_error() -> None:
    """Asking for an adapter that does not exist names the known ones."""
    with pytest.raises(stopkit.AdapterNotFound, match="no adapter named 'nope'"):
        stopkit.normalize({"x": 1}, adapter="nope")


class _EchoAdapter:
    """A user adapter: replies shaped {"echo_stop": ...}."""

    name = "echo"

    def detects(self, reply: object) -> bool:
        return isinstance(reply, dict) and "echo_stop" in reply

    def normalize(self, reply: dict[str, str]) -> stopkit.Stop:
        return stopkit.Stop(
            reason=stopkit.StopReason.COMPLETED,
            raw_reason=reply["echo_stop"],
            provider=self.name,
            raw=reply,
        )


def test_registered_user_adapter_joins_detection() -> None:
    """A registered adapter is found by auto-detection, and unregistering removes it."""
    stopkit.register_adapter(_EchoAdapter())
    try:
        stop = stopkit.normalize('{"echo_stop": "done"}')
        assert (stop.provider, stop.raw_reason) == ("echo", "done")
        assert stopkit.normalize_all({"echo_stop": "x"})[0].provider == "echo"
        with pytest.raises(ValueError, match="already registered"):
            stopkit.register_adapter(_EchoAdapter())
    finally:
        stopkit.unregister_adapter("echo")
    with pytest.raises(stopkit.UnsupportedReply):
        stopkit.normalize({"echo_stop": "done"})


def test_adapter_that_is_not_one_is_refused() -> None:
    """Registering an object without the adapter attributes is a TypeError naming the gap."""
    with pytest.raises(TypeError, match="'detects'"):
        stopkit.register_adapter(type("X", (), {"name": "x"})())


def _deep_chat_reply(depth: int) -> dict[str, object]:
    """A chat tool request whose arguments and an extra field are nested `depth` levels deep."""
    nested: object = {"leaf": 1}
    for _ in range(depth):
        nested = {"a": nested}
    function = {"name": "f", "arguments": json.dumps(nested)}
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": function}
    ]}  # fmt: skip
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return {"object": "chat.completion", "choices": [choice], "extra": nested}


@pytest.mark.parametrize("form", ["dict", "str", "bytes", "bom bytes", "bom str"])
def test_a_deeply_nested_reply_gives_the_same_answer_in_every_form(form: str) -> None:
    """A reply nested ~300 levels deep reads the same as a dict, as text, as bytes, with a BOM."""
    reply = _deep_chat_reply(300)
    text = json.dumps(reply)
    given = {
        "dict": reply,
        "str": text,
        "bytes": text.encode(),
        "bom bytes": b"\xef\xbb\xbf" + text.encode(),
        "bom str": "\ufeff" + text,
    }[form]
    assert stopkit.normalize(given).reason is stopkit.StopReason.TOOL_REQUEST


# A reply cut inside an emoji: a lone UTF-16 surrogate escape, which JSON's grammar allows and
# json.loads (hence httpx's `response.json()` and the SDKs) reads into the string.
_CUT_EMOJI = (
    '{"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls", '
    '"message": {"role": "assistant", "content": "caf\\ud83d", "tool_calls": [{"id": "call_1", '
    '"type": "function", "function": {"name": "f", "arguments": "{\\"q\\": \\"\\\\udc00\\"}"}}]}}]}'
)


@pytest.mark.parametrize("form", ["str", "bytes", "sse"])
def test_a_lone_surrogate_escape_gives_the_same_answer_as_the_dict(form: str) -> None:
    """A body holding a lone surrogate escape reads as text, bytes and SSE as its dict does."""
    want = stopkit.normalize(json.loads(_CUT_EMOJI))
    if form == "sse":
        chunk = json.loads(_CUT_EMOJI)
        chunk["object"] = "chat.completion.chunk"
        chunk["choices"][0]["delta"] = chunk["choices"][0].pop("message")
        got = stopkit.normalize_stream(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n")
    else:
        got = stopkit.normalize(_CUT_EMOJI if form == "str" else _CUT_EMOJI.encode())
    assert (got.reason, got.text, got.tool_calls) == (want.reason, want.text, want.tool_calls)
    assert want.text == "caf\ud83d"


def test_a_stream_body_with_a_byte_order_mark_is_read() -> None:
    """Raw SSE text that starts with a UTF-8 BOM is read like the same text without it."""
    body = (
        'data: {"object": "chat.completion.chunk", "choices": [{"index": 0, '
        '"delta": {"content": "Hi"}, "finish_reason": "stop"}]}\n\n'
    )
    stop = stopkit.normalize_stream(b"\xef\xbb\xbf" + body.encode())
    assert (stop.reason, stop.text) == (stopkit.StopReason.COMPLETED, "Hi")


@pytest.mark.parametrize("events", [None, 42, 3.5, {"choices": []}, object()])
def test_normalize_stream_refuses_what_is_not_a_stream(events: object) -> None:
    """Anything that is not an iterable of events or a raw body is an UnsupportedReply."""
    with pytest.raises(stopkit.UnsupportedReply, match="a stream is an iterable of events"):
        stopkit.normalize_stream(events)  # type: ignore[arg-type]


async def test_anormalize_stream_refuses_what_is_not_an_async_stream() -> None:
    """The async twin refuses a value that is not an async iterable, naming the problem."""
    with pytest.raises(stopkit.UnsupportedReply, match="not an async iterable"):
        await stopkit.anormalize_stream([])  # type: ignore[arg-type]


@pytest.mark.parametrize("events", [[], [{"done": True}]])
def test_a_stream_for_an_adapter_without_stream_names_the_adapter(events: list[object]) -> None:
    """Asking an adapter that reads no streams for one is a StopkitError naming it."""
    with pytest.raises(stopkit.UnsupportedReply, match="'echo' does not read streams"):
        stopkit.normalize_stream(events, adapter=_EchoAdapter())


def test_the_error_for_a_huge_input_is_bounded() -> None:
    """An UnsupportedReply for a 50 MB input looks at a bounded prefix: short, and no big copy."""
    for big in ("x" * 50_000_000, b"x" * 50_000_000, ["x" * 1_000_000] * 50):
        tracemalloc.start()
        try:
            with pytest.raises(stopkit.UnsupportedReply) as info:
                stopkit.normalize(big)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert len(str(info.value)) < 1_000
        assert peak < 5_000_000, f"{peak:,} bytes allocated to refuse a {type(big).__name__}"
