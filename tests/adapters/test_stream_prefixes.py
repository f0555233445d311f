"""Streams cut anywhere, events repeated or swapped: nothing raises, nothing received is lost.

Every recorded stream (tests/payloads/*/*.stream.json, and the in-scope corpus streams when
../shared/corpus is present) is cut before each of its events. A prefix that lacks the stream's
terminal event must be `UNKNOWN` / `stream_incomplete` (or `UNKNOWN` / `error` once an error
event arrived), keep the text received so far (a prefix of the whole stream's text) and keep
every tool call received so far, a call that had not finished being `complete=False`.

Then each event is duplicated once, and each pair of neighbours swapped: the Stop must not raise,
and its decision (reason, raw_reason, detail, stop_sequence, the runnable calls) must be the
whole stream's, or a note must say what was odd. Text and argument fragments are not compared
there: most providers number neither their deltas nor their chunks, so a repeated fragment is
indistinguishable from a model that wrote it twice (a repeated argument fragment makes the
arguments invalid JSON, so the call turns complete=False, which is the safe direction).

Cost: every prefix of every stream is cut (about 30,000 prefixes with the corpus: ~12 s).
For corpus streams, duplication and swapping are tried at 12 evenly spaced positions (the first
and last included), chosen deterministically; payload streams get every position.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

import stopkit
from stopkit import Stop, StopReason
from tests._adapters import ADAPTER_OF_WIRE, BY_NAME
from tests._corpus import rows
from tests._payloads import load_cases, to_sse


@dataclass(frozen=True)
class Recorded:
    """One recorded stream: where it comes from, its adapter and its events."""

    id: str
    adapter: str
    events: list[Any]
    corpus: bool


def _streams() -> list[Recorded]:
    out = [
        Recorded(case.id, case.adapter, case.data["events"], corpus=False)
        for case in load_cases()
        if case.is_stream
    ]
    for wire in ADAPTER_OF_WIRE:
        out.extend(
            Recorded(row.file, row.adapter, row.load(), corpus=True)
            for row in rows(wire, stream=True, every=True)
        )
    return out


STREAMS = _streams()
_AVAILABLE = {adapter.name for adapter in stopkit.registered_adapters()}


def _is_error_event(event: Any) -> bool:
    """An in-band error: an `error` event/chunk, or a Bedrock stream exception."""
    if not isinstance(event, dict):
        return False
    if event.get("type") == "error" or "error" in event:
        return True
    return bool(set(event) & set(stopkit.adapters.bedrock.STREAM_ERRORS))


# Streams whose text is not cumulative, so a prefix's text need not prefix the whole text:
TEXT_NOT_CUMULATIVE = {
    # Several choices: a prefix holding only choice 1 reads choice 1 (the first one received).
    "openai_chat/stream_multiple_choices.stream.json": "n=2, choice 1 arrives first",
    # A hand-edited fixture: its `output_text.done` text does not extend its deltas.
    "openai_responses/vercel-ai__openai-shell-container.1__1.sse.json": "done text != deltas",
}


def _run(adapter: str, events: Sequence[Any]) -> Stop:
    accumulator = stopkit.get_adapter(adapter).stream()
    for event in events:
        accumulator.feed(event)
    return accumulator.result()


def _params(streams: list[Recorded]) -> list[Any]:
    return [pytest.param(s, id=s.id) for s in streams]


def _needs(stream: Recorded) -> None:
    if stream.adapter not in _AVAILABLE:
        pytest.skip(f"adapter {stream.adapter} is not in this checkout")


# --- every prefix ------------------------------------------------------------------------------


def _check_prefix(stream: Recorded, cut: int, whole: Stop) -> None:
    events = stream.events[:cut]
    stop = _run(stream.adapter, events)
    where = f"{stream.id} cut before event {cut}"
    assert isinstance(stop.reason, StopReason), where
    assert stop.provider == stream.adapter, where
    ends = BY_NAME[stream.adapter].ends
    if any(ends(event) for event in events):
        return
    errored = any(_is_error_event(event) for event in events)
    allowed = {"stream_incomplete", "error"} if errored else {"stream_incomplete"}
    assert (stop.reason, stop.detail in allowed) == (StopReason.UNKNOWN, True), (
        f"{where}: {stop.reason.value}/{stop.detail}, notes {stop.notes}"
    )
    assert stop.runnable_tool_calls == (), where
    if stream.id not in TEXT_NOT_CUMULATIVE:
        assert whole.text.startswith(stop.text), f"{where}: {stop.text[-60:]!r} was lost"
    finished = {(c.id, c.name, json.dumps(c.arguments, sort_keys=True)) for c in whole.tool_calls}
    for call in stop.tool_calls:
        # A call shown complete must be the finished call itself, not a cut-off version of it.
        if call.complete:
            key = (call.id, call.name, json.dumps(call.arguments, sort_keys=True))
            assert key in finished or _answered(whole), (
                f"{where}: {call} is complete but differs from the whole"
            )
        else:
            assert call.error, f"{where}: {call} is incomplete without saying why"


def _answered(stop: Stop) -> bool:
    """Say whether the adapter dropped calls whose results sat in the same reply."""
    return any(
        "not pending" in note or "run by" in note or "answered" in note for note in stop.notes
    )


def _kept_calls(stream: Recorded, cut: int) -> None:
    """A call received before the cut is still listed after the next event (unless answered)."""
    before = _run(stream.adapter, stream.events[:cut])
    after = _run(stream.adapter, stream.events[: cut + 1])
    if any(BY_NAME[stream.adapter].ends(e) for e in stream.events[: cut + 1]):
        return
    names_before = [c.name for c in before.tool_calls]
    names_after = [c.name for c in after.tool_calls]
    lost = [n for n in names_before if n not in names_after]
    assert not lost or _answered(after), f"{stream.id}: calls {lost} vanished at event {cut}"


@pytest.mark.parametrize("stream", _params(STREAMS))
def test_every_prefix_is_incomplete_and_keeps_what_arrived(stream: Recorded) -> None:
    """A stream cut before its terminal event is unknown/stream_incomplete and loses nothing."""
    _needs(stream)
    whole = _run(stream.adapter, stream.events)
    for cut in range(len(stream.events)):
        _check_prefix(stream, cut, whole)
    if not stream.corpus:
        for cut in range(len(stream.events)):
            _kept_calls(stream, cut)


def test_the_prefixes_were_cut() -> None:
    """Report the number of prefixes cut (shown with `-s`); the payload streams give >300."""
    cut = sum(len(s.events) for s in STREAMS if s.adapter in _AVAILABLE)
    payload_prefixes = sum(len(s.events) for s in STREAMS if not s.corpus)
    print(f"\nstream prefixes cut: {cut} (payload streams: {payload_prefixes})")
    assert payload_prefixes > 300


# --- duplicated and swapped events -------------------------------------------------------------


def _positions(stream: Recorded) -> list[int]:
    n = len(stream.events)
    if not stream.corpus or n <= 12:
        return list(range(n))
    return sorted({round(i * (n - 1) / 11) for i in range(12)})


def _decision(stop: Stop) -> tuple[Any, ...]:
    return (stop.reason, stop.raw_reason, stop.detail, stop.stop_sequence)


def _runnable(stop: Stop) -> list[str]:
    return sorted(call.name for call in stop.runnable_tool_calls)


def _everything(stop: Stop) -> tuple[Any, ...]:
    calls = tuple((c.id, c.name, c.arguments, c.complete) for c in stop.tool_calls)
    return (*_decision(stop), stop.text, stop.refusal, calls)


#: Adapters whose events are numbered (Responses' `sequence_number`): a repeated or reordered
#: event can be recognized, so the whole Stop (text and arguments too) must come out the same.
NUMBERED = {"openai.responses"}


def _same_or_noted(stream: Recorded, events: list[Any], whole: Stop, what: str) -> None:
    stop = _run(stream.adapter, events)
    new_notes = set(stop.notes) - set(whole.notes)
    if new_notes:
        return
    if stream.adapter in NUMBERED:
        assert _everything(stop) == _everything(whole), f"{stream.id} {what}: differs, no note"
        return
    assert _decision(stop) == _decision(whole), (
        f"{stream.id} {what}: {_decision(stop)} != {_decision(whole)} and no note"
    )
    # No other tool may run (arguments are not compared: see the module docstring). A call
    # whose arguments a repeated fragment broke is complete=False, and must say why.
    extra = Counter(_runnable(stop)) - Counter(_runnable(whole))
    assert not extra, f"{stream.id} {what}: {sorted(extra)} would run, and no note"
    lost = Counter(c.name for c in whole.tool_calls) - Counter(c.name for c in stop.tool_calls)
    assert not lost, f"{stream.id} {what}: calls {sorted(lost)} lost, and no note"
    for call in stop.tool_calls:
        assert call.complete or call.error, f"{stream.id} {what}: {call} incomplete, no error"


@pytest.mark.parametrize("stream", _params(STREAMS))
def test_duplicated_or_swapped_events_are_handled_or_noted(stream: Recorded) -> None:
    """Each event repeated once, each neighbour pair swapped: same decision, or a note."""
    _needs(stream)
    whole = _run(stream.adapter, stream.events)
    events = stream.events
    for i in _positions(stream):
        _same_or_noted(stream, [*events[: i + 1], events[i], *events[i + 1 :]], whole, f"dup {i}")
        if i + 1 < len(events):
            swapped = [*events[:i], events[i + 1], events[i], *events[i + 2 :]]
            _same_or_noted(stream, swapped, whole, f"swap {i}/{i + 1}")


# --- Responses numbers its events: a repeat is dropped, a reordering noted ---------------------


def _responses_events() -> list[Any]:
    return [
        {"type": "response.created", "sequence_number": 0,
         "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
         "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}},
        {"type": "response.output_text.delta", "sequence_number": 2, "output_index": 0,
         "content_index": 0, "item_id": "msg_1", "delta": "The capital "},
        {"type": "response.output_text.delta", "sequence_number": 3, "output_index": 0,
         "content_index": 0, "item_id": "msg_1", "delta": "is Paris"},
    ]  # fmt: skip


def test_responses_repeated_event_is_dropped_by_its_sequence_number() -> None:
    """A Responses event sent twice (same sequence_number) counts once, with a note."""
    events = _responses_events()
    stop = _run("openai.responses", [*events[:3], events[2], events[3]])
    assert (stop.reason, stop.detail) == (StopReason.UNKNOWN, "stream_incomplete")
    assert stop.text == "The capital is Paris"
    assert any("sequence_number 2 came twice" in note for note in stop.notes), stop.notes


def test_responses_reordered_events_are_noted() -> None:
    """Responses events arriving out of sequence_number order leave a note."""
    events = _responses_events()
    stop = _run("openai.responses", [*events[:2], events[3], events[2]])
    assert any("out of order" in note for note in stop.notes), stop.notes


def test_responses_reused_sequence_number_keeps_both_events() -> None:
    """Two different events under one sequence_number (a server's bug) are both read, noted."""
    events = _responses_events()
    events[3] = {**events[3], "sequence_number": 2}
    stop = _run("openai.responses", events)
    assert stop.text == "The capital is Paris"
    assert any("used by two different events" in note for note in stop.notes), stop.notes


# --- raw stream bodies cut at any byte ----------------------------------------------------------


def _body(stream: Recorded) -> str:
    if stream.adapter == "ollama":  # newline-delimited JSON
        return "".join(json.dumps(event) + "\n" for event in stream.events)
    return to_sse(stream.events)


@pytest.mark.parametrize("stream", _params([s for s in STREAMS if not s.corpus]))
def test_raw_bodies_cut_at_any_byte(stream: Recorded) -> None:
    """A raw SSE / NDJSON body cut mid-line reads as the events before the cut, never raising."""
    _needs(stream)
    body = _body(stream)
    ends = BY_NAME[stream.adapter].ends
    step = max(1, len(body) // 80)  # about 80 cuts per body, evenly spaced (deterministic)
    for cut in range(1, len(body), step):
        try:
            stop = stopkit.normalize_stream(body[:cut], adapter=stream.adapter)
        except stopkit.UnsupportedReply:
            continue  # nothing readable before the cut
        assert isinstance(stop.reason, StopReason)
        whole_events = body[:cut].count("\n\n") if stream.adapter != "ollama" else None
        if whole_events is not None and not any(ends(e) for e in stream.events[:whole_events]):
            assert stop.reason is StopReason.UNKNOWN, (cut, stop.notes)


def test_ndjson_body_cut_mid_line_is_incomplete() -> None:
    """An Ollama NDJSON body cut inside its last line keeps the lines before it."""
    body = (
        '{"model": "m", "created_at": "t", "message": {"role": "assistant", "content": "Hel"},'
        ' "done": false}\n{"model": "m", "created_at": "t", "message": {"role": "assis'
    )
    stop = stopkit.normalize_stream(body)
    assert (stop.reason, stop.detail, stop.text) == (StopReason.UNKNOWN, "stream_incomplete", "Hel")


def test_malformed_json_in_a_stream_body_is_unsupported() -> None:
    """A body whose JSON is broken before its last line raises UnsupportedReply, not ValueError."""
    for body in ('data: {bad\n\ndata: {"a": 1}\n\n', '{"a": 1}\n{bad\n{"b": 2}\n', "[1,"):
        with pytest.raises(stopkit.UnsupportedReply):
            stopkit.normalize_stream(body)
