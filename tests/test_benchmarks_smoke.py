"""Keep the benchmark honest: every reply and stream it times reads as its row claims.

No timings here: only that `benchmarks/replies.py`, `benchmarks/streams.py` and
`benchmarks/loops.py` hold what the table says they hold (a row named `gemini refused` must
time a reply stopkit reads as filtered).
"""

from __future__ import annotations

from typing import Any

import pytest

import stopkit
from benchmarks.replies import ADAPTERS, CASES, REPLIES, Reply, replies
from benchmarks.streams import EVENTS, STREAMS, expected


@pytest.mark.parametrize("reply", replies(), ids=lambda r: f"{r.adapter}-{r.case}")
def test_reply_normalizes_to_its_row(reply: Reply) -> None:
    """Each benchmark reply is detected as its adapter and read as the reason its row names."""
    stop = stopkit.normalize(reply.body)
    assert stop.provider == reply.adapter
    assert stop.reason.value == reply.reason
    if reply.case == "tool_request":
        assert len(stop.runnable_tool_calls) == 2
        assert stop.text != ""  # the narration is part of what is read


def test_every_adapter_has_every_reason_but_chat_paused() -> None:
    """The table covers each core adapter x each reason; only Chat has no paused reply."""
    missing = {(a, c) for a in ADAPTERS for c in CASES if c not in REPLIES[a]}
    assert missing == {("openai.chat", "paused")}


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_stream_has_1000_events_and_reads_as_a_tool_request(adapter: str) -> None:
    """Each benchmark stream has exactly 1,000 events and ends as a two-call tool request."""
    events = STREAMS[adapter]
    assert len(events) == EVENTS == 1000
    reason, count, names = expected()
    stop = stopkit.normalize_stream(events)
    assert stop.provider == adapter
    assert stop.reason.value == reason
    assert tuple(call.name for call in stop.tool_calls) == names
    assert len(stop.runnable_tool_calls) == count


def test_the_loop_row_runs_its_conversation() -> None:
    """The stopkit loop row runs the conversation the peers are timed on: 21 calls, 40 tools."""
    from benchmarks.loops import CALLS_PER_TURN, LOOP_TURNS, stopkit_loop

    outcome = stopkit_loop()()
    assert outcome.turns == LOOP_TURNS + 1
    assert [r.result.content for r in outcome.tool_runs][:2] == ["0-0", "0-1"]
    assert len(outcome.tool_runs) == LOOP_TURNS * CALLS_PER_TURN


def test_the_journal_rows_run_their_conversations(tmp_path: Any) -> None:
    """The journaled row records all 61 steps; the replay row replays 100 turns, calling nothing."""
    import stopkit
    from benchmarks.journal import LOOP_STEPS, REPLAY_TURNS, journal_run, replay_run

    journal = stopkit.SqliteJournal(tmp_path / "bench.db")
    assert journal_run("sqlite", journal)().text
    info = journal.runs()[0]
    assert (info.steps, info.termination) == (LOOP_STEPS, "completed")
    assert replay_run()().turns == REPLAY_TURNS + 1


def test_the_telemetry_rows_trace_what_they_claim() -> None:
    """`benchmarks/otel.py`'s hook rows make a model-call and a tool span, its floor rows too."""
    import contextvars

    from opentelemetry import trace
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from benchmarks.otel import Sdk, conversation, floors, hooks

    sdk = Sdk()
    spans = InMemorySpanExporter()
    sdk.tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    try:

        def once() -> None:  # in a context of its own: the hooks' agent span stays open there
            for fn in [*hooks(sdk).values(), *floors(sdk).values()]:
                fn()

        contextvars.copy_context().run(once)
        conversation()()
    finally:
        sdk.close()
    assert trace.get_current_span() is trace.INVALID_SPAN
    names = [span.name for span in spans.get_finished_spans()]
    assert names[:4] == ["chat", "execute_tool lookup", "chat", "execute_tool lookup"]
    assert names.count("invoke_agent") == 1  # the conversation's run; the hooks' is never ended
    assert names.count("chat") == 2 + 21
