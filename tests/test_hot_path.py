"""The one path of reading a reply gives exactly the answers of the plain code it stands for.

`wire()` reads a pydantic model's declared fields by attribute (by their own names or their
aliases, the wire names) and its extras from `model_extra`, never missing a `getattr`;
`parse_arguments()` decodes with `stopkit._json` (pydantic-core, then `json.loads` where
pydantic-core refuses). Each is checked against the
plain version: `getattr`, `json.loads`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, PrivateAttr
from pydantic.alias_generators import to_camel

from stopkit.adapters._calls import parse_arguments
from stopkit.adapters._wire import either, wire


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")

    kind: str = "message"
    content: Any = None
    _secret: str = PrivateAttr(default="hidden")

    @property
    def summary(self) -> str:
        return f"{self.kind}:{self.content}"

    def method(self) -> str:
        return "called"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str = "chunk"


class Aliased(BaseModel):
    """As google-genai declares its models: snake_case fields, camelCase aliases (the wire's)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    finish_reason: str | None = None
    kind: str = "candidate"


class Custom(BaseModel):
    kind: str = "x"

    def __getattr__(self, name: str) -> Any:
        return f"computed {name}"


NAMES = (
    "kind",
    "content",
    "finish_reason",
    "finishReason",
    "summary",
    "_secret",
    "extra_field",
    "absent",
    "model_config",
    "method",
    "__class__",
)


def _plain_field(obj: BaseModel, name: str, default: Any) -> Any:
    """A model's field or extra, read the plain way; anything else is not wire data.

    A model with its own attribute lookup (`__getattr__`) is read by attribute, whatever it says.
    """
    if isinstance(obj, Custom):
        return getattr(obj, name, default)
    fields = type(obj).model_fields
    if name in fields:
        return getattr(obj, name, default)
    aliased = [field for field, info in fields.items() if info.alias == name]
    if aliased:
        return getattr(obj, aliased[0], default)
    return (obj.model_extra or {}).get(name, default)


@pytest.mark.parametrize(
    "obj",
    [
        Loose(content=[1]),
        Loose(content=None, extra_field="kept"),
        Loose.model_construct(kind="raw"),
        Strict(),
        Aliased(finishReason="STOP"),
        Aliased(finish_reason=None, extra_field="kept"),
        Custom(),
    ],
    ids=[
        "loose",
        "loose-extra",
        "constructed",
        "strict",
        "aliased",
        "aliased-none",
        "custom-getattr",
    ],
)
@pytest.mark.parametrize("name", NAMES)
def test_wire_matches_getattr_on_fields_and_extras(obj: BaseModel, name: str) -> None:
    """Fields and extras read as getattr reads them; properties, methods, privates are no data."""
    sentinel = object()
    for _ in range(2):  # the first call decides the class's way and caches it; then the cache
        got, want = wire(obj).get(name, sentinel), _plain_field(obj, name, sentinel)
        if callable(want) and not isinstance(want, type):
            assert got.__name__ == want.__name__
        else:
            assert got == want


def test_wire_same_class_different_extras() -> None:
    """The cached way is per class: an extra present on one instance only is still found."""
    assert wire(Loose()).get("extra_field", "d") == "d"
    assert wire(Loose(extra_field=3)).get("extra_field", "d") == 3
    assert wire(Loose()).get("extra_field", "d") == "d"


@pytest.mark.parametrize(
    ("fields", "want"),
    [
        ({"finishReason": "STOP"}, "STOP"),
        ({"finish_reason": "STOP"}, "STOP"),
        ({"finishReason": None, "finish_reason": "STOP"}, "STOP"),
        ({}, None),
        (Aliased(finishReason="STOP"), "STOP"),
        (Aliased(), None),
        (Loose(finish_reason="STOP"), "STOP"),
    ],
    ids=["camel", "snake", "camel-null", "neither", "model", "model-none", "extra-snake"],
)
def test_either_reads_the_spelling_the_reply_holds(fields: Any, want: Any) -> None:
    """A JSON body's snake_case spelling is read where camelCase is missing or null; a model too."""
    assert either(wire(fields), "finishReason", "finish_reason") == want


@pytest.mark.parametrize("obj", [None, "text", 3, 2.5, True, [1], (1,)])
def test_wire_on_scalars_gives_the_default(obj: Any) -> None:
    """None, strings, numbers, lists and tuples have no fields."""
    assert wire(obj).get("index", "d") == "d"


def test_wire_on_mappings() -> None:
    """A dict and a dict subclass are read by key."""

    class Sub(dict[str, int]):
        pass

    assert wire({"a": 1}).get("a") == 1
    assert wire(Sub(a=2)).get("a") == 2
    assert wire(Sub()).get("a", "d") == "d"


def _plain_parse(raw: str) -> tuple[dict[str, Any], str | None, bool, str | None]:
    """parse_arguments for a string, written with json.loads (a leading byte order mark skipped)."""
    if raw.strip() == "":
        return {}, raw, True, None
    try:
        value = json.loads(raw.removeprefix("\ufeff"))
    except (ValueError, RecursionError) as exc:
        return {}, raw, False, f"arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return {}, raw, False, f"arguments are a JSON {type(value).__name__}, not an object"
    return value, raw, True, None


def _same(got: Any, want: Any) -> bool:
    """Equal, with NaN equal to NaN and int/float kept apart (1 is not 1.0 here)."""
    if isinstance(want, float) and want != want:
        return isinstance(got, float) and got != got
    if type(got) is not type(want):
        return False
    if isinstance(want, dict):
        return list(got) == list(want) and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return len(got) == len(want) and all(map(_same, got, want))
    return bool(got == want)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
_EDGES = [
    "",
    "   ",
    "\n",
    "{}",
    "[]",
    "null",
    "1",
    '"x"',
    '{"a": NaN}',
    '{"a": Infinity}',
    '{"a": 1e400}',
    '{"a": "\\ud800"}',
    '{"a": "x\ty"}',
    '{"a": 1, "a": 2}',
    '{"a": 123456789012345678901234567890}',
    ' {"a": 1} ',
    '{"a": 1} x',
    '{"a": 01}',
    '{"a": 1.0000000000000002}',
    '{"a": -0}',
    '{"a": -0.0}',
    '{"é": "\\u00e9"}',
    "[" * 300 + "]" * 300,
    '{"a":' * 300 + "1" + "}" * 300,
    "{'a': 1}",
    '{"a": 1,}',
]


@pytest.mark.parametrize("text", _EDGES)
def test_parse_arguments_matches_json_loads_on_edges(text: str) -> None:
    """NaN, big numbers, lone surrogates, control characters, deep nesting, trailing data."""
    got, want = parse_arguments(text), _plain_parse(text)
    assert got[1:] == want[1:]
    assert _same(got[0], want[0])


@given(value=_JSON, spaced=st.booleans())
def test_parse_arguments_matches_json_loads(value: Any, spaced: bool) -> None:
    """Any JSON text (objects or not) parses to what json.loads gives, the same verdict too."""
    text = json.dumps(value, indent=1 if spaced else None)
    got, want = parse_arguments(text), _plain_parse(text)
    assert got[1:] == want[1:]
    assert _same(got[0], want[0])


@given(text=st.text(max_size=40))
def test_parse_arguments_matches_json_loads_on_any_text(text: str) -> None:
    """Arbitrary text (mostly invalid JSON) gets json.loads' verdict and error words."""
    got, want = parse_arguments(text), _plain_parse(text)
    assert got[1:] == want[1:]
    assert _same(got[0], want[0])


def _anthropic_message() -> Any:
    from anthropic.types import Message

    return Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Hi"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )


class _ClaimsEverything:
    name = "claims-everything"

    def detects(self, reply: Any) -> bool:
        return True

    def normalize(self, reply: Any) -> Any:
        from stopkit.adapters import Reading, Rules, decide

        return decide(Reading(reply), Rules(self.name, "stop", {}))


def test_detection_cache_yields_to_a_user_adapter_registered_later() -> None:
    """An SDK class seen before is still offered to a user adapter registered since, first."""
    import stopkit

    message = _anthropic_message()
    assert stopkit.detect(message).name == "anthropic"
    assert stopkit.detect(message).name == "anthropic"  # now from the per-class cache
    stopkit.register_adapter(_ClaimsEverything())
    try:
        assert stopkit.detect(message).name == "claims-everything"
        assert stopkit.normalize(message).provider == "claims-everything"
    finally:
        stopkit.unregister_adapter("claims-everything")
    assert stopkit.normalize(message).provider == "anthropic"


def test_detection_cache_checks_the_object_at_hand() -> None:
    """An object of a cached class that its adapter does not claim is detected afresh."""
    from anthropic.types import Message

    import stopkit

    assert stopkit.detect(_anthropic_message()).name == "anthropic"
    odd = Message.model_construct(type="not-a-message", role="assistant", content=[])
    with pytest.raises(stopkit.UnsupportedReply) as raised:
        stopkit.detect(odd)
    assert "anthropic" in str(raised.value)


def _plain_reader(obj: Any) -> Any:
    """A pydantic object read field by field with `getattr`, extras from `model_extra`."""
    declared = type(obj).model_fields
    extra = obj.model_extra or {}

    def get(name: str, default: Any = None) -> Any:
        if name in declared:
            return getattr(obj, name, default)
        return extra.get(name, default)

    return get


_CHAT_NAMES = (
    "id",
    "choices",
    "usage",
    "error",
    "x_groq",
    "moderation",
    "message",
    "delta",
    "content",
    "refusal",
    "tool_calls",
    "function_call",
    "finish_reason",
    "stop_reason",
    "native_finish_reason",
    "content_filter_results",
    "index",
    "function",
    "name",
    "arguments",
    "type",
    "absent",
    "model_config",
    "copy",
)


@pytest.mark.parametrize("with_extras", [False, True])
def test_chat_reader_matches_getattr_reading(with_extras: bool) -> None:
    """The wire reader gives Chat objects' fields, dialect extras and absent names as getattr."""
    from openai._models import construct_type
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    from stopkit.adapters._wire import wire

    extras = {"x_groq": {"id": "req_1"}, "native_finish_reason": "end_turn"} if with_extras else {}
    body = {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        **extras,
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                **extras,
                "message": {
                    "role": "assistant",
                    "content": None,
                    **extras,
                    "tool_calls": [
                        {
                            "id": "t1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
            }
        ],
    }
    chunk = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "Hi", **extras}, **extras}],
    }
    completion = construct_type(type_=ChatCompletion, value=body)
    streamed = construct_type(type_=ChatCompletionChunk, value=chunk)
    objects = [
        completion,
        completion.choices[0],
        completion.choices[0].message,
        completion.choices[0].message.tool_calls[0],
        streamed,
        streamed.choices[0],
        streamed.choices[0].delta,
    ]
    for obj in objects:
        for _ in range(2):
            got, want = wire(obj).get, _plain_reader(obj)
            for name in _CHAT_NAMES:
                assert got(name, "d") == want(name, "d"), (type(obj).__name__, name)


def test_import_stopkit_defers_the_loop_driver_and_wrap() -> None:
    """`import stopkit` loads the normalizing core only; the loop and `wrap` load on first use."""
    import subprocess
    import sys

    code = (
        "import sys, json, stopkit\n"
        "before = sorted(m for m in sys.modules if m.startswith('stopkit.'))\n"
        "stopkit.run_loop, stopkit.wrap, stopkit.Outcome\n"
        "import stopkit.loop; stopkit.loop.RetryPolicy\n"
        "after = sorted(m for m in sys.modules if m.startswith('stopkit.'))\n"
        "print(json.dumps([before, after]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    before, after = json.loads(out)
    assert not {"stopkit.loop", "stopkit.loop._handlers", "stopkit._wrap"} & set(before)
    loop = {"stopkit.loop._driver", "stopkit.loop._handlers", "stopkit.loop._retry"}
    assert {*loop, "stopkit._wrap"} <= set(after)


def _tool_call_by_the_steps(call_id: Any, name: Any, raw: Any) -> Any:
    """`tool_call` as the spec words it: the parse, then the name and id checks."""
    from stopkit import ToolCall

    arguments, arguments_json, complete, error = parse_arguments(raw)
    if not isinstance(name, str) or not name:
        complete, error = False, error or "the call has no tool name"
        name = name if isinstance(name, str) else ""
    if not isinstance(call_id, str):
        if call_id is not None:
            complete = False
            error = error or f"the call's id is a {type(call_id).__name__}, not a string"
        call_id = "" if call_id is None else str(call_id)
    return ToolCall(id=call_id, name=name, arguments=arguments, arguments_json=arguments_json,
                    complete=complete, error=error)  # fmt: skip


@given(
    st.one_of(st.none(), st.text(max_size=5), st.integers()),
    st.one_of(st.none(), st.text(max_size=5)),
    st.one_of(
        st.none(),
        st.text(max_size=30),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=3).map(json.dumps),
        st.lists(st.integers(), max_size=3).map(json.dumps),
    ),
)
def test_tool_call_gives_the_steps_answer(call_id: Any, name: Any, raw: Any) -> None:
    """Any id, name and arguments build exactly the call the spec's steps build."""
    from stopkit.adapters._calls import tool_call

    assert tool_call(call_id, name, raw) == _tool_call_by_the_steps(call_id, name, raw)
