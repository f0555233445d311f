"""Any text a model can send is kept on a run's row as it was, and the run always finishes."""

from __future__ import annotations

from typing import Any

import pytest

import stopkit
from stopkit.loop.journal import RunStatus

TEXTS = [
    "a NUL \x00 inside (PostgreSQL's TEXT holds none)",
    "cut inside an emoji \ud83d (no UTF-8 for it)",
    "\uffff starts as a kept-escaped text does",
    '\uffff"a JSON string after the mark"',
    "plain text, ünïcödé and \\u0000 written out",
]


def answer(text: str) -> Any:
    """A model whose only reply is the final answer `text`."""

    def call_model(messages: Any, **overrides: Any) -> dict[str, Any]:
        return {"type": "message", "role": "assistant", "stop_reason": "end_turn",
                "content": [{"type": "text", "text": text}]}  # fmt: skip

    return call_model


@pytest.mark.parametrize("text", TEXTS, ids=["nul", "lone-surrogate", "mark", "mark-json", "plain"])
def test_any_final_text_is_kept_as_it_was_and_the_run_finishes(journal: Any, text: str) -> None:
    """The run ends `finished` with its final text on its row, and replays to the same text."""
    outcome = stopkit.run_loop(answer(text), "Say it.", journal=journal, run_id="said")
    assert outcome.text == text
    info = journal.run("said")
    assert (info.status, info.detail, info.owner) == (RunStatus.FINISHED, text, None)
    assert [run.detail for run in journal.runs()] == [text]
    replayed = stopkit.run_loop(answer("never called"), "Say it.", journal=journal, run_id="said")
    assert replayed.text == text
