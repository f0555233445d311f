"""The result models: what the engine builds (by validation, the one way) and what they dump."""

from __future__ import annotations

import json
import pickle
import warnings
from enum import Enum

import pytest
from pydantic import Field, ValidationError

import stopkit
from stopkit import Stop, StopReason, ToolCall, Usage
from stopkit.adapters import Reading, Rules, decide, tool_call
from stopkit.adapters._calls import parse_arguments

_RULES = Rules("p", "stop", {"tool_use": (StopReason.TOOL_REQUEST, None),
                             "end": (StopReason.COMPLETED, None)})  # fmt: skip


def make_stop(raw: object = None, raw_reason: object = "end", calls: tuple[ToolCall, ...] = (),
              notes: tuple[str, ...] = ()) -> Stop:  # fmt: skip
    """A Stop as the engine builds one (the one builder)."""
    reading = Reading(raw, raw_reason)
    reading.calls = calls
    reading.notes.extend(notes)
    return decide(reading, _RULES)


def test_the_engine_builds_what_validation_would() -> None:
    """A Stop the engine builds equals one built by hand through validation, field for field."""
    raw = {"any": "reply"}
    fast = make_stop(raw, "tool_use", (tool_call("c1", "f", '{"x": 1}'),), ("a note",))
    slow = Stop(
        reason="tool_request", provider="p", raw=raw, raw_reason="tool_use",
        tool_calls=(ToolCall(id="c1", name="f", arguments={"x": 1}, arguments_json='{"x": 1}'),),
        notes=("a note",),
    )  # fmt: skip
    assert fast == slow
    assert fast.model_dump() == slow.model_dump()
    assert fast.raw is raw


def test_built_models_copy_pickle_and_print_like_validated_ones() -> None:
    """Calls and stops the adapters build repr, pickle and copy as ones built by hand."""
    fast = tool_call("c1", "f", '{"x": 1}')
    slow = ToolCall(id="c1", name="f", arguments={"x": 1}, arguments_json='{"x": 1}')
    assert repr(fast) == repr(slow)
    assert pickle.loads(pickle.dumps(fast)) == slow
    cut = {"complete": False}
    assert fast.model_copy(update=cut) == slow.model_copy(update=cut)
    assert fast.model_extra is None
    stop = make_stop(calls=(fast,))
    assert pickle.loads(pickle.dumps(stop)) == stop


def test_stop_is_immutable() -> None:
    """Assigning to a Stop field raises: a Stop is a value."""
    stop = make_stop()
    with pytest.raises(ValidationError):
        stop.reason = StopReason.UNKNOWN  # type: ignore[misc]


def test_raw_reason_keeps_ints_and_enum_values() -> None:
    """An int raw value stays an int; an SDK enum member becomes its wire value."""

    class Finish(str, Enum):  # noqa: UP042 - the shape of google-genai's enums
        STOP = "STOP"

    assert make_stop(raw_reason=1).raw_reason == 1
    assert make_stop(raw_reason=Finish.STOP).raw_reason == "STOP"


def test_raw_reason_of_a_wrong_type_is_kept_in_details() -> None:
    """A stop value that is neither str nor int is not lost: it moves to details['raw_reason']."""
    stop = make_stop(raw_reason=["odd"])
    assert stop.raw_reason is None
    assert stop.details["raw_reason"] == ["odd"]


@pytest.mark.parametrize(
    ("raw", "complete", "error_fragment"),
    [
        ('{"a": 1}', True, None),
        ("", True, None),
        ('{"a": ', False, "not valid JSON"),
        ("[1, 2]", False, "not an object"),
        (42, False, "int"),
        ("[" * 100_000, False, "not valid JSON"),
        ({"city": "Paris"}, True, None),
        ({1: "Paris"}, False, "key 1 is not a string"),  # a dict no JSON text decodes to
    ],
)
def test_parse_arguments(raw: object, complete: bool, error_fragment: str | None) -> None:
    """Tool arguments parse to a dict, or mark the call incomplete with a reason."""
    _, _, got_complete, error = parse_arguments(raw)
    assert got_complete is complete
    if error_fragment is None:
        assert error is None
    else:
        assert error is not None
        assert error_fragment in error


def test_a_call_whose_arguments_have_a_key_that_is_no_string_is_incomplete() -> None:
    """Arguments given as a dict with a key no JSON object has make an incomplete call."""
    call = tool_call("c1", "f", {1: "Paris"})
    assert (call.complete, call.arguments) == (False, {})


def test_tool_call_without_name_is_incomplete() -> None:
    """A call with no tool name can never be run."""
    call = tool_call("c1", None, "{}")
    assert (call.complete, call.name) == (False, "")
    assert call.error is not None


def test_a_field_the_builder_does_not_set_keeps_its_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A throwaway field added to Stop reaches every built Stop and its model_dump().

    The engine's builder names every field it knows; one it does not know (added to `Stop`
    and not yet to the builder) gets its declared default instead of vanishing.
    """
    from stopkit.adapters import _engine

    class StopWithMore(Stop):
        throwaway: str = "kept"
        throwaway_list: list[int] = Field(default_factory=lambda: [1])

    monkeypatch.setattr(_engine, "Stop", StopWithMore)
    stop = stopkit.normalize({"type": "message", "role": "assistant", "content": [],
                              "stop_reason": "end_turn"})  # fmt: skip
    assert type(stop) is StopWithMore
    dumped = stop.model_dump()
    assert (dumped["throwaway"], dumped["throwaway_list"], dumped["reason"]) == (
        "kept", [1], StopReason.COMPLETED
    )  # fmt: skip


def test_the_builder_refuses_a_name_the_model_does_not_declare() -> None:
    """A value for a field Stop does not have is an error, not a silent extra attribute."""
    with pytest.raises(ValidationError, match="typo"):
        Stop.model_validate({"reason": StopReason.COMPLETED, "provider": "p", "typo": 1})
    with pytest.raises(ValidationError, match="provider"):
        Stop.model_validate({"reason": StopReason.COMPLETED})


def test_cut_gives_what_model_copy_would() -> None:
    """A call marked incomplete equals the validated copy with the same update."""
    from stopkit.adapters._calls import cut

    call = tool_call("c1", "f", '{"x": 1}')
    update = {"complete": False, "error": "cut"}
    assert cut(call, "cut") == call.model_copy(update=update)
    assert cut(cut(call, "first"), "second").error == "first"
    assert cut(cut(call, "first"), "second", overrule=True).error == "second"


@pytest.mark.parametrize(
    ("a", "b", "total"),
    [
        (Usage(input_tokens=3, output_tokens=4), Usage(input_tokens=5, output_tokens=6),
         Usage(input_tokens=8, output_tokens=10)),
        (Usage(input_tokens=3), Usage(output_tokens=6), Usage(input_tokens=3, output_tokens=6)),
        (Usage(cache_read_tokens=0), Usage(), Usage(cache_read_tokens=0)),
        (Usage(), Usage(), Usage()),
    ],
)  # fmt: skip
def test_usage_adds_up_field_by_field(a: Usage, b: Usage, total: Usage) -> None:
    """Adding usages sums each count either side said; a count neither said stays None."""
    assert a + b == total
    assert b + a == total


def test_usage_adds_only_usage() -> None:
    """Adding anything but a `Usage` is a TypeError, as for any type that does not support it."""
    with pytest.raises(TypeError):
        Usage(input_tokens=1) + 1  # type: ignore[operator]


def test_a_stop_holding_lone_surrogates_still_dumps_to_json() -> None:
    """Text and call arguments cut inside an emoji dump to JSON that loads back to model_dump."""
    call = tool_call("call_1", "f", '{"q": "\\udc00"}')
    stop = make_stop(raw_reason="tool_use", calls=(call,), notes=("caf\ud83d",))
    for dumped in (stop.model_dump_json(), stop.model_dump_json(indent=2), call.model_dump_json()):
        assert "\\ud83d" in dumped or "\\udc00" in dumped
    assert json.loads(stop.model_dump_json()) == stop.model_dump(mode="json")
    assert json.loads(stop.model_dump_json(exclude={"notes"})) == stop.model_dump(
        mode="json", exclude={"notes"}
    )


class _Opaque:
    """A value pydantic has no JSON form for (a function holder, a client, a lock ...)."""

    def __repr__(self) -> str:
        return "<opaque>"


def test_details_pydantic_cannot_serialize_dump_as_their_repr() -> None:
    """A raw value of a type with no JSON form stays in details and dumps as its repr."""
    reading = Reading(None, "end")
    reading.details["kept"] = {"value": _Opaque(), "n": 1}
    stop = decide(reading, _RULES)
    want = {"value": "<opaque>", "n": 1}
    assert json.loads(stop.model_dump_json())["details"]["kept"] == want
    assert stop.model_dump(mode="json")["details"]["kept"] == want
    assert isinstance(stop.model_dump()["details"]["kept"]["value"], _Opaque)
    assert isinstance(stop.details["kept"]["value"], _Opaque)


def _nested(depth: int) -> object:
    value: object = "bottom"
    for _ in range(depth):
        value = {"a": [value]}
    return value


def test_details_nested_deeper_than_pydantic_dumps_still_dump() -> None:
    """A raw value nested past pydantic's depth dumps cut, with a marker, and stays kept whole."""
    reading = Reading(None, "end")
    reading.details["deep"] = _nested(400)
    reading.details["odd"] = [_Opaque(), "caf\ud83d"]
    stop = decide(reading, _RULES)
    dumped = json.loads(stop.model_dump_json())
    assert dumped == stop.model_dump(mode="json")
    assert dumped["details"]["odd"] == ["<opaque>", "caf\ud83d"]
    assert "nested deeper than" in json.dumps(dumped["details"]["deep"])
    assert stop.details["deep"] == _nested(400)


def test_sdk_values_of_the_wrong_type_in_details_dump_without_warnings() -> None:
    """An SDK object built leniently with off-spec values dumps silently (no warning raised)."""
    from openai.types import CompletionUsage

    reading = Reading(None, "end")
    reading.details["usage"] = CompletionUsage.model_construct(prompt_tokens="12")
    stop = decide(reading, _RULES)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert json.loads(stop.model_dump_json())["details"]["usage"]["prompt_tokens"] == "12"
        assert stop.model_dump(mode="json")["details"]["usage"]["prompt_tokens"] == "12"
