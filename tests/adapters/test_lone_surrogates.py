r"""Text cut inside an emoji: a lone UTF-16 surrogate anywhere in a reply never breaks a reader.

A server that cuts text inside an emoji and writes it as JSON sends a lone surrogate escape
(`"\ud83d"`): JSON's grammar allows it, `json.loads` (hence httpx and the SDKs) reads it into
the string. Inside a Chat `function.arguments` string, the arguments text then holds a lone
surrogate, which is no Unicode text (UTF-8 cannot encode it): such a call is `complete=False`,
with an error saying so, and never runs. Every recorded case of every adapter is read with a
surrogate written into each of its strings (inside the JSON objects that strings hold too), as a
dict, as JSON text (escaped, and raw), as bytes, and as a stream of events or raw stream text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import stopkit
from stopkit import Stop, StopReason, UnsupportedReply
from stopkit.adapters._calls import parse_arguments, tool_call
from tests._adapters import NAMES as ADAPTERS
from tests._payloads import Case, load_cases
from tests.adapters.test_properties_adapters import _SETTINGS

CASES = {a: [c for c in load_cases() if c.adapter == a] for a in ADAPTERS}
_AVAILABLE = {adapter.name for adapter in stopkit.registered_adapters()}

surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)


def _holds_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


class _Cutter:
    """Writes `surrogate` into chosen strings of a value, at the fraction `at` of their length.

    The strings are numbered in the order a walk meets them; those in `chosen` are cut. A JSON
    object held in a string (tool-call arguments) is always cut, inside its own strings.
    """

    def __init__(self, surrogate: str, at: float, chosen: set[int]) -> None:
        self.surrogate, self.at, self.chosen, self.seen = surrogate, at, chosen, 0

    def __call__(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {key: self(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self(item) for item in value]
        if not isinstance(value, str):
            return value
        try:
            inner = json.loads(value)
        except ValueError:
            inner = None
        if isinstance(inner, dict) and inner:
            every = _Cutter(self.surrogate, self.at, set(range(_count(inner))))
            return json.dumps(every(inner), ensure_ascii=False)
        self.seen += 1
        if self.seen - 1 not in self.chosen:
            return value
        i = round(len(value) * self.at)
        return value[:i] + self.surrogate + value[i:]


def _count(value: Any) -> int:
    """How many strings a walk of `value` meets (JSON objects held in strings not counted)."""
    if isinstance(value, dict):
        return sum(_count(item) for item in value.values())
    if isinstance(value, list):
        return sum(_count(item) for item in value)
    return 1 if isinstance(value, str) else 0


@st.composite
def cut_cases(draw: st.DrawFn, adapter: str) -> tuple[Case, Any]:
    """A recorded case of `adapter`, its body cut inside an emoji in some of its strings."""
    case = draw(st.sampled_from(CASES[adapter]))
    body = case.data["events"] if case.is_stream else case.data["reply"]
    strings = _count(body)
    chosen = draw(st.sets(st.integers(0, max(strings - 1, 0)), max_size=4))
    cutter = _Cutter(draw(surrogates), draw(st.floats(0, 1)), chosen)
    return case, cutter(body)


def _sse(events: list[Any]) -> str:
    return "".join(f"data: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events)


# The forms a reply is given in: the dict, its JSON text with the surrogates escaped (as a
# server writes them) and raw (a str no UTF-8 can hold), and the escaped bytes.
REPLY_FORMS: dict[str, Callable[[Any], Any]] = {
    "dict": lambda reply: reply,
    "escaped text": json.dumps,
    "raw text": lambda reply: json.dumps(reply, ensure_ascii=False),
    "bytes": lambda reply: json.dumps(reply).encode(),
}
STREAM_FORMS: dict[str, Callable[[list[Any]], Any]] = {
    "events": lambda events: events,
    "raw sse text": _sse,
    "sse bytes": lambda events: "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode(),
}


def _read(case: Case, body: Any, form: str) -> Stop | None:
    """Read the cut body in `form`: its `Stop`, or None when it is refused as no reply."""
    if case.is_stream:
        if not body:
            return None
        given_body, read = STREAM_FORMS[form](body), stopkit.normalize_stream
    else:
        given_body, read = REPLY_FORMS[form](body), stopkit.normalize
    try:
        return read(given_body)
    except UnsupportedReply:
        return None


def _check(stop: Stop) -> None:
    """The invariants of a reply holding lone surrogates."""
    assert isinstance(stop.reason, StopReason)
    for call in stop.tool_calls:
        assert call.complete or isinstance(call.error, str), call
        if call.arguments_json is not None and _holds_surrogate(call.arguments_json):
            assert not call.complete, call  # its error says why (a cut call says it was cut)
    if stop.reason is not StopReason.TOOL_REQUEST:
        assert stop.runnable_tool_calls == ()


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_lone_surrogate_anywhere_never_breaks_normalize(adapter: str) -> None:
    """Every form of every case cut inside an emoji reads to a Stop (or UnsupportedReply)."""
    if adapter not in _AVAILABLE or not CASES[adapter]:
        pytest.skip(f"adapter {adapter} (or its payload cases) is not in this checkout")

    @_SETTINGS
    @given(cut_cases(adapter))
    def run(generated: tuple[Case, Any]) -> None:
        case, body = generated
        forms = STREAM_FORMS if case.is_stream else REPLY_FORMS
        stops = {form: _read(case, body, form) for form in forms}
        for stop in stops.values():
            if stop is not None:
                _check(stop)
        if not case.is_stream and stops["dict"] is not None:
            want = stops["dict"]
            for form, stop in stops.items():
                assert stop is not None, form
                assert (stop.reason, stop.text, stop.tool_calls) == (
                    want.reason,
                    want.text,
                    want.tool_calls,
                ), form

    run()


@pytest.mark.parametrize(
    ("arguments", "complete"),
    [
        ('{"q": "caf\ud83d"}', False),  # the text holds the surrogate itself: not Unicode
        ('{"q": "caf\ud83d', False),  # ... also when cut
        ("\udc00", False),
        ('{"q": "caf\\ud83d"}', True),  # an escape in the JSON text: JSON's grammar allows it
    ],
)
def test_arguments_text_holding_a_lone_surrogate_is_not_a_runnable_call(
    arguments: str, complete: bool
) -> None:
    """Arguments text holding a lone surrogate gives an incomplete call naming it, not a crash."""
    call = tool_call("call_1", "f", arguments)
    assert call.complete is complete
    assert call.arguments_json == arguments
    assert parse_arguments(arguments)[2] is complete
    if not complete:
        assert call.arguments == {}
        assert "lone UTF-16 surrogate at character" in (call.error or ""), call.error


def test_a_run_whose_call_holds_a_lone_surrogate_gives_the_call_an_error_result() -> None:
    """run_loop: a call whose arguments hold a lone surrogate is answered with an error, not run."""
    ran: list[Any] = []
    call = {"id": "call_1", "type": "function",
            "function": {"name": "f", "arguments": '{"q": "caf\ud83d"}'}}  # fmt: skip
    replies = iter(
        [
            {"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
             "message": {"role": "assistant", "content": None, "tool_calls": [call]}}]},
            {"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop",
             "message": {"role": "assistant", "content": "done"}}]},
        ]
    )  # fmt: skip
    outcome = stopkit.run_loop(
        lambda messages, **overrides: next(replies), "Hi", tools={"f": lambda **a: ran.append(a)}
    )
    assert outcome.text == "done"
    assert ran == []
    result = outcome.messages[2]
    assert result["role"] == "tool"
    assert "surrogate" in result["content"]
