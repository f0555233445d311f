"""Property-based tests: every adapter holds under replies no test author wrote.

Replies are generated from the recorded cases in tests/payloads/<adapter>/ (valid shapes), then
damaged: arbitrary values substituted anywhere, fields removed, values of the wrong type,
unknown keys and strings, huge strings and containers, deeply nested values. For every one:

- `normalize` never raises anything but `UnsupportedReply`, and the adapter that claims a reply
  (`detects`) never raises at all on it;
- the reason is one of the seven, `raw` is the very object passed in, and `raw_reason` is the
  stop value exactly as it sat in the reply (a value that is neither a string nor an int is kept
  in `details["raw_reason"]`, `raw_reason` being None);
- the same reply given as JSON bytes or text gives the same decision, and the SDK object its
  SDK builds from the damaged body (leniently, as the SDKs do: `construct_type`) reads too;
- an unknown string in the stop field gives `UNKNOWN` (never `COMPLETED`, `TOOL_REQUEST` or
  `STOP_SEQUENCE`), except where another field decides first (a refusal, a filter, a cut-off),
  which then gives `FILTERED`, `OUTPUT_LIMIT` or `PAUSED`.

The number of examples is the hypothesis profile's (tests/conftest.py: `ci` = 150 per test,
derandomized; `HYPOTHESIS_PROFILE=dev` explores 1,000). Run with `-s` to see the counts.
"""

from __future__ import annotations

import copy
import importlib
import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import stopkit
from stopkit import Stop, StopReason, UnsupportedReply
from tests._adapters import BY_NAME, MISSING, NAMES, Path, value_at
from tests._payloads import Case, load_cases

ADAPTERS = NAMES
_AVAILABLE = {adapter.name for adapter in stopkit.registered_adapters()}
_CASES = [c for c in load_cases() if not c.is_stream and isinstance(c.data.get("reply"), dict)]
CASES: dict[str, list[Case]] = {a: [c for c in _CASES if c.adapter == a] for a in ADAPTERS}


def _known_values(adapter: str) -> set[str]:
    """Every raw value the adapter's tables know (what an "unknown string" must avoid)."""
    tables = stopkit.get_adapter(adapter).tables  # type: ignore[attr-defined]
    return {key for table in tables.values() for key in table}


def _is_unknown(adapter: str, text: str) -> bool:
    known = _known_values(adapter)
    if not text.strip() or text in known:
        return False
    # Gemini reads its enums case-insensitively, as google-genai does.
    return not (adapter == "gemini" and text.upper() in known)


# --- generating damaged replies -----------------------------------------------------------------


def _deep(depth: int, as_dict: bool) -> Any:
    node: Any = "bottom"
    for _ in range(depth):
        node = {"a": node} if as_dict else [node]
    return node


_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
json_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
# Big values are built once (lists and dicts are copied per example, and must stay cheap).
_HUGE_TEXT = "x" * 2_000_000
_DEEP_DEPTH = 980  # about the deepest json.loads accepts at the default recursion limit (1000)
hostile_values = st.sampled_from(["huge_text", "huge_list", "huge_dict", "deep_list", "deep_dict"])


def _hostile(kind: str) -> Any:
    if kind == "huge_text":
        return _HUGE_TEXT
    if kind == "huge_list":
        return [{"type": "text", "text": "y"}] * 50_000
    if kind == "huge_dict":
        return {f"k{i}": i for i in range(20_000)}
    return _deep(_DEEP_DEPTH, as_dict=kind == "deep_dict")


def _paths(node: Any, prefix: Path = (), limit: int = 400) -> Iterator[Path]:
    """Every path below the root (breadth-first, at most `limit`)."""
    queue: list[tuple[Path, Any]] = [(prefix, node)]
    count = 0
    while queue and count < limit:
        path, value = queue.pop(0)
        if not isinstance(value, dict | list) or len(value) > 64:
            continue
        children: Any = value.items() if isinstance(value, dict) else enumerate(value)
        for key, child in children:
            count += 1
            yield (*path, key)
            queue.append(((*path, key), child))


def _parent(reply: Any, path: Path) -> Any:
    return value_at(reply, path[:-1]) if len(path) > 1 else reply


OPS = ("replace", "remove", "wrong_type", "unknown_key", "hostile", "unknown_string")


@st.composite
def damaged(draw: st.DrawFn, adapter: str) -> tuple[Case, dict[str, Any]]:
    """A recorded reply of `adapter`, damaged by one to three random edits."""
    case = draw(st.sampled_from(CASES[adapter]))
    reply: dict[str, Any] = copy.deepcopy(case.data["reply"])
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(reply))
        stop_path = BY_NAME[adapter].stop_path(reply)
        if stop_path is not None:
            paths.extend([stop_path] * max(1, len(paths) // 4))  # the stop field, often
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = _parent(reply, path)
        key = path[-1]
        if isinstance(parent, list):
            if not isinstance(key, int) or key >= len(parent):
                continue  # the stop path through a list that an earlier edit put there
        elif not isinstance(parent, dict):
            continue
        op = draw(st.sampled_from(OPS))
        old = parent[key] if isinstance(parent, list) or key in parent else None
        new: Any
        if op == "remove":
            if isinstance(parent, list):
                del parent[key]
            else:
                parent.pop(key, None)
            continue
        if op == "replace":
            new = draw(json_values)
        elif op == "wrong_type":
            new = draw(st.sampled_from([[old], {"value": old}, str(old)[:40], 0, True, 1.5, None]))
        elif op == "unknown_key":
            if isinstance(old, dict):
                old[draw(st.text(min_size=1, max_size=12))] = draw(json_values)
            continue
        elif op == "hostile":
            new = _hostile(draw(hostile_values))
        else:
            new = draw(st.text(max_size=30))
        parent[key] = new
    return case, reply


# --- the invariants ------------------------------------------------------------------------------


def _check_raw_reason(adapter: str, reply: Any, stop: Stop) -> None:
    path = BY_NAME[adapter].stop_path(reply)
    value = MISSING if path is None else value_at(reply, path)
    if type(value) is str or type(value) is int:
        if adapter == "openai.chat" and value == "" and stop.raw_reason != "":
            # An empty finish_reason lets the legacy finish_details.type speak.
            assert stop.raw_reason == value_at(reply, (*path[:-1], "finish_details", "type"))  # type: ignore[index]
            return
        assert type(stop.raw_reason) is type(value), (path, value, stop.raw_reason, stop.notes)
        assert stop.raw_reason == value, (path, value, stop.raw_reason, stop.notes)
    elif value is MISSING or value is None:
        if adapter == "openai.chat" and stop.raw_reason is not None:
            assert stop.raw_reason == value_at(reply, (*path[:-1], "finish_details", "type"))  # type: ignore[index]
            return
        assert stop.raw_reason is None, (path, stop.raw_reason, stop.notes)
    else:
        assert stop.raw_reason is None, (path, stop.raw_reason)
        assert stop.details.get("raw_reason") is value, (path, stop.details.keys(), stop.notes)


def _check_stop(adapter: str, reply: Any, stop: Stop) -> None:
    assert isinstance(stop, Stop)
    assert isinstance(stop.reason, StopReason)
    assert stop.provider == adapter
    assert stop.raw is reply
    assert isinstance(stop.text, str)
    assert all(isinstance(note, str) for note in stop.notes)
    for call in stop.tool_calls:
        assert isinstance(call, stopkit.ToolCall)
        assert call.complete or isinstance(call.error, str), call
    if stop.reason is not StopReason.TOOL_REQUEST:
        assert stop.runnable_tool_calls == ()


def _as_json(reply: Any) -> bytes | None:
    try:
        return json.dumps(reply, allow_nan=False).encode()
    except (TypeError, ValueError, RecursionError):
        return None  # NaN, an int too long to print, nesting deeper than json.dumps goes


def _same_decision(a: Stop, b: Stop) -> bool:
    return (a.reason, a.detail, a.raw_reason, len(a.tool_calls)) == (
        b.reason,
        b.detail,
        b.raw_reason,
        len(b.tool_calls),
    )


def _sdk_form(adapter: str, reply: dict[str, Any]) -> Any:
    """The SDK object its SDK builds from the damaged body (None: no SDK, or it refuses)."""
    folder = BY_NAME[adapter].folder
    try:
        form = importlib.import_module(f"tests.sdk_forms.{folder}")
    except ImportError:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return form.to_sdk(reply)
    except BaseException:  # the SDK itself refuses the body (or is not installed: a skip)
        return None


_SETTINGS = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _needs(adapter: str) -> None:
    if adapter not in _AVAILABLE or not CASES[adapter]:
        pytest.skip(f"adapter {adapter} (or its payload cases) is not in this checkout")


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_damaged_replies_never_break_the_adapter(adapter: str) -> None:
    """Damaged replies: nothing but UnsupportedReply is raised; raw and raw_reason are kept."""
    _needs(adapter)
    reader = stopkit.get_adapter(adapter)

    @_SETTINGS
    @given(damaged(adapter))
    def run(generated: tuple[Case, dict[str, Any]]) -> None:
        _, reply = generated
        try:
            auto = stopkit.normalize(reply)
        except UnsupportedReply:
            auto = None
        if auto is not None:
            _check_stop(auto.provider, reply, auto)
        if not reader.detects(reply):
            return
        stop = reader.normalize(reply)
        _check_stop(adapter, reply, stop)
        _check_raw_reason(adapter, reply, stop)
        every = reader.normalize_all(reply)  # type: ignore[attr-defined]
        assert every, "normalize_all gave no Stop"
        for one in every:
            _check_stop(adapter, reply, one)
        assert _same_decision(stopkit.normalize_all(reply, adapter=adapter)[0], every[0])
        data = _as_json(reply)
        # The SDK form of bodies under 100 kB (building SDK objects of huge ones is slow).
        sdk_object = _sdk_form(adapter, reply) if data and len(data) < 100_000 else None
        if sdk_object is not None and reader.detects(sdk_object):
            _check_stop(adapter, sdk_object, reader.normalize(sdk_object))
        if data is not None:
            for body in (data, data.decode()):
                try:
                    again = stopkit.normalize(body, adapter=adapter)
                except UnsupportedReply:
                    continue  # JSON nested beyond the parser's depth limit: refused, not crashed
                assert isinstance(again.raw, dict)
                assert _same_decision(again, stop), (again.notes, stop.notes)

    run()


def test_non_replies_raise_unsupported_reply_only() -> None:
    """Values that are no reply at all raise UnsupportedReply, never anything else."""

    @_SETTINGS
    @given(json_values | st.binary(max_size=40) | st.text(max_size=40))
    def run(value: Any) -> None:
        for given_value in (value, _as_json(value)):
            if given_value is None:
                continue
            try:
                stop = stopkit.normalize(given_value)
            except UnsupportedReply:
                continue
            assert isinstance(stop.reason, StopReason)  # some small dicts are replies

    run()


# --- unknown stop values -------------------------------------------------------------------------


def _with(reply: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(reply)
    parent = _parent(out, path)
    parent[path[-1]] = value
    return out


def _stop_cases(adapter: str) -> list[tuple[Case, Path]]:
    """The cases with a string stop value, and where it sits."""
    out = []
    for case in CASES[adapter]:
        reply = case.data["reply"]
        path = BY_NAME[adapter].stop_path(reply)
        if path is not None and type(value_at(reply, path)) is str:
            out.append((case, path))
    return out


_SENTINEL = "zz-not-a-stop-value"
_FINE = {StopReason.COMPLETED, StopReason.TOOL_REQUEST, StopReason.STOP_SEQUENCE}
_DECIDED_ELSEWHERE = {StopReason.FILTERED, StopReason.OUTPUT_LIMIT, StopReason.PAUSED}


def _decided_elsewhere(adapter: str) -> dict[str, StopReason]:
    """Cases whose reason does not come from the stop field: with an unknown one, not UNKNOWN."""
    out = {}
    for case, path in _stop_cases(adapter):
        stop = stopkit.get_adapter(adapter).normalize(_with(case.data["reply"], path, _SENTINEL))
        if stop.reason is not StopReason.UNKNOWN:
            out[case.id] = stop.reason
    return out


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_only_other_fields_decide_when_the_stop_value_is_unknown(adapter: str) -> None:
    """With an unknown stop value, only a refusal, a filter or a cut-off elsewhere decides."""
    _needs(adapter)
    elsewhere = _decided_elsewhere(adapter)
    assert set(elsewhere.values()) <= _DECIDED_ELSEWHERE, elsewhere
    assert len(elsewhere) < len(_stop_cases(adapter)) / 2, elsewhere


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_unknown_stop_strings_are_unknown(adapter: str) -> None:
    """Any unknown string as the stop value gives UNKNOWN, raw kept, calls never runnable."""
    _needs(adapter)
    cases = _stop_cases(adapter)
    elsewhere = _decided_elsewhere(adapter)
    reader = stopkit.get_adapter(adapter)

    @_SETTINGS
    @given(st.sampled_from(cases), st.text(max_size=40))
    def run(picked: tuple[Case, Path], text: str) -> None:
        assume(_is_unknown(adapter, text))
        case, path = picked
        reply = _with(case.data["reply"], path, text)
        stop = reader.normalize(reply)
        assert stop.raw_reason == text
        assert stop.raw is reply
        assert stop.reason not in _FINE, (text, stop.reason, stop.notes)
        assert stop.runnable_tool_calls == ()
        if case.id not in elsewhere:
            assert stop.reason is StopReason.UNKNOWN, (text, stop.notes)
            if reader.normalize(case.data["reply"]).detail != "malformed":
                assert stop.detail == "unrecognized", (text, stop.detail, stop.notes)

    run()


@pytest.mark.parametrize("adapter", sorted(a for a in ADAPTERS if BY_NAME[a].more_stop_fields))
def test_unknown_strings_in_other_stop_fields_are_never_fine(adapter: str) -> None:
    """An unknown string in a secondary stop field never makes a reply completed or runnable."""
    _needs(adapter)
    targets = [
        (case, path)
        for case in CASES[adapter]
        for path in BY_NAME[adapter].more_stop_fields
        if type(value_at(case.data["reply"], path)) is str
    ]
    assert targets
    reader = stopkit.get_adapter(adapter)

    @_SETTINGS
    @given(st.sampled_from(targets), st.text(max_size=40))
    def run(picked: tuple[Case, Path], text: str) -> None:
        assume(_is_unknown(adapter, text))
        case, path = picked
        original = reader.normalize(case.data["reply"])
        stop = reader.normalize(_with(case.data["reply"], path, text))
        if original.reason not in _FINE:
            assert stop.reason not in _FINE, (path, text, stop.reason, stop.notes)

    run()


# --- regressions the properties found -------------------------------------------------------------


def test_bedrock_tool_use_id_of_a_wrong_type_is_read_not_a_crash() -> None:
    """A toolUseId (or a toolResult's) that is a list or an object does not raise TypeError."""
    use = {"toolUse": {"toolUseId": [], "name": "get_weather", "input": {"city": "Paris"}}}
    result = {"toolResult": {"toolUseId": {"id": 1}, "content": []}}
    reply = {
        "output": {"message": {"role": "assistant", "content": [use, result]}},
        "stopReason": "tool_use",
    }
    stop = stopkit.normalize(reply)
    assert stop.reason is StopReason.TOOL_REQUEST
    assert [call.name for call in stop.tool_calls] == ["get_weather"]
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {
            "toolUseId": ["x"], "name": "get_weather"}}}},
    ]  # fmt: skip
    cut = stopkit.normalize_stream(events, adapter="bedrock")
    assert (cut.reason, cut.detail) == (StopReason.UNKNOWN, "stream_incomplete")
    assert [call.complete for call in cut.tool_calls] == [False]


def test_anthropic_tool_use_id_of_a_wrong_type_is_read_not_a_crash() -> None:
    """A `*tool_result` block whose tool_use_id is a list or an object does not raise TypeError."""
    reply = {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "x"}},
            {"type": "tool_result", "tool_use_id": [], "content": "42"},
        ],
        "stop_reason": "tool_use",
    }
    stop = stopkit.normalize(reply)
    assert stop.reason is StopReason.TOOL_REQUEST
    assert [call.id for call in stop.tool_calls] == ["toolu_1"]
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message",
         "role": "assistant", "content": [], "model": "claude"}},
        {"type": "content_block_start", "index": 0, "content_block": {
            "type": "mcp_tool_result", "tool_use_id": {"id": 1}, "content": []}},
        {"type": "content_block_stop", "index": 0},
    ]  # fmt: skip
    cut = stopkit.normalize_stream(events)
    assert (cut.reason, cut.detail) == (StopReason.UNKNOWN, "stream_incomplete")


def test_openai_chat_deeply_nested_filter_results_are_read_not_a_crash() -> None:
    """An Azure content_filter_results value nested 400 lists deep does not raise RecursionError."""
    deep: Any = {"filtered": True}
    for _ in range(400):  # json.loads accepts this depth
        deep = [deep]
    reply = {
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hi"},
                "finish_reason": "stop",
                "content_filter_results": {"hate": deep},
            }
        ],
    }
    stop = stopkit.normalize(reply)
    assert stop.reason is StopReason.COMPLETED  # Azure nests a category's hits one list deep
    flat = {**reply, "choices": [{**reply["choices"][0], "content_filter_results": {  # type: ignore[index]
        "custom_blocklists": [{"filtered": True, "id": "b1"}]}}]}  # fmt: skip
    assert stopkit.normalize(flat).reason is StopReason.FILTERED


def test_openai_chat_legacy_finish_details_type_of_the_wrong_type() -> None:
    """A legacy finish_details whose type is a list does not raise TypeError (reply or chunk)."""
    choice = {"index": 0, "message": {"role": "assistant", "content": "Hi"},
              "finish_reason": None, "finish_details": {"type": ["stop"]}}  # fmt: skip
    stop = stopkit.normalize({"object": "chat.completion", "choices": [choice]})
    assert (stop.reason, stop.detail) == (StopReason.UNKNOWN, "missing")
    delta = {"index": 0, "delta": {"content": "Hi"}, "finish_reason": None,
             "finish_details": {"type": {"t": 1}}}  # fmt: skip
    chunk = {"object": "chat.completion.chunk", "choices": [delta]}
    assert stopkit.normalize_stream([chunk]).reason is StopReason.UNKNOWN


def test_bedrock_citations_content_that_is_not_a_list() -> None:
    """A citationsContent block whose content is a number does not raise TypeError."""
    block = {"citationsContent": {"content": 3, "citations": []}}
    reply = {
        "output": {"message": {"role": "assistant", "content": [{"text": "Hi"}, block]}},
        "stopReason": "end_turn",
    }
    stop = stopkit.normalize(reply)
    assert (stop.reason, stop.text) == (StopReason.COMPLETED, "Hi")


def test_sdk_objects_built_from_off_spec_bodies_read_without_warnings() -> None:
    """Reading an SDK object the SDK built leniently from an off-spec body: no warning, no raise.

    The SDKs keep values of the wrong type as sent (`construct_type`); dumping such an object
    makes pydantic warn, and under `-W error` (this suite's setting) a warning is an exception.
    """
    from anthropic._models import construct_type as anthropic_construct
    from anthropic.types.beta import BetaMessage
    from openai._models import construct_type as openai_construct
    from openai.types.responses import Response

    call = {"id": "cu_1", "type": "computer_call", "call_id": "call_1", "status": "completed",
            "action": {"type": "click", "button": "left", "x": [100], "y": 200},
            "pending_safety_checks": []}  # fmt: skip
    response = openai_construct(
        type_=Response,
        value={"id": "resp_1", "object": "response", "status": "completed", "output": [call],
               "incomplete_details": {"reason": ["max_output_tokens"]}},
    )  # fmt: skip
    assert stopkit.normalize(response).reason is StopReason.TOOL_REQUEST
    message = anthropic_construct(
        type_=BetaMessage,
        value={"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
               "content": [{"type": "text", "text": "No."}], "stop_reason": "refusal",
               "stop_details": {"type": "refusal", "category": ["cyber"], "explanation": 3}},
    )  # fmt: skip
    assert stopkit.normalize(message).reason is StopReason.FILTERED
    deep: Any = "bottom"
    for _ in range(980):
        deep = [deep]
    failed = openai_construct(type_=Response, value={"id": "resp_2", "object": "response",
                              "status": "failed", "output": [], "error": deep})  # fmt: skip
    assert stopkit.normalize(failed).reason is StopReason.UNKNOWN  # pydantic would not dump it
