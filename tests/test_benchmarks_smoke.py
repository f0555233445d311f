"""Keep the benchmark honest: every reply and stream it times reads as its row claims.

No timings here: only that `benchmarks/replies.py`, `benchmarks/streams.py` and
`benchmarks/loops.py` hold what the table says they hold (a row named `gemini refused` must
time a reply stopkit reads as filtered).
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

import stopkit
import stopkit.loop.journal
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

    journal = stopkit.loop.journal.SqliteJournal(tmp_path / "bench.db")
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


# The rows each optional package takes with it: (kind, count). anthropic's rows are its SDK
# object rows (replies and stream), its own parse and accumulator, and pydantic-ai's of it.
WITHOUT = {
    "psycopg": {("journal_postgres", 1)},
    "agents": {("loop_peer", 1)},
    "litellm": {("litellm", 19)},
    "pydantic_ai": {("pydantic_ai", 19), ("loop_peer", 1)},
    "anthropic": {("stopkit_sdk", 5), ("sdk_parse", 5), ("pydantic_ai", 5),
                  ("stream_stopkit_sdk", 1), ("stream_sdk", 1)},
}  # fmt: skip


@pytest.mark.parametrize("hidden", sorted(WITHOUT))
def test_a_row_whose_optional_part_is_missing_is_skipped_saying_why(
    hidden: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without an optional package, the rows needing it are left out, a line for each saying why."""
    from collections import Counter

    from benchmarks.cases import all_cases, runnable

    monkeypatch.setitem(sys.modules, hidden, None)  # as if not installed: importing it fails
    cases = all_cases()
    kept = runnable(cases)
    left_out = [case for case in cases if case not in kept]
    assert set(Counter(case.kind for case in left_out).items()) == WITHOUT[hidden]
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == len(left_out)
    assert all(line.startswith("benchmarks: skipped ") for line in lines)
    assert all(line.endswith(f"{hidden} is not installed") for line in lines)


def test_the_postgres_row_without_a_server_is_skipped_saying_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no DSN and no PostgreSQL installed, the PostgreSQL journal row says why it is out."""
    from benchmarks.cases import all_cases, runnable
    from tests import _postgres

    monkeypatch.delenv("STOPKIT_BENCH_POSTGRES_DSN", raising=False)
    monkeypatch.setattr(_postgres, "find_program", lambda name: None)
    kept = runnable(all_cases())
    assert "journal_postgres" not in {case.kind for case in kept}
    assert "PostgreSQL is not installed" in capsys.readouterr().err


def test_the_import_and_memory_rows_without_their_packages_say_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a peer its import row is left out, without psutil the memory row: each said."""
    from benchmarks import system

    for hidden in ("litellm", "pydantic_ai", "psutil"):
        monkeypatch.setitem(sys.modules, hidden, None)
    assert set(system.import_times(1)) == {"stopkit", "pydantic", "pydantic.BaseModel"}
    assert system.memory_growth(10, 1) is None
    assert capsys.readouterr().err.splitlines() == [
        "benchmarks: skipped import litellm: litellm is not installed",
        "benchmarks: skipped import pydantic_ai: pydantic_ai is not installed",
        "benchmarks: skipped RSS growth: psutil is not installed",
    ]
