"""`stopkit runs list|show|delete --journal ...`: an operator sees where each run stopped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import stopkit
import stopkit.loop.journal
from stopkit.cli import main
from tests.loop.journal._scenario import Trace, TurnModel, final_reply, record_tool, tool_reply


@pytest.fixture
def journal_file(tmp_path: Path) -> str:
    """A SQLite journal holding a finished run and one that needs attention."""
    path = tmp_path / "runs.db"
    journal = stopkit.loop.journal.SqliteJournal(path)
    trace = Trace()
    stopkit.run_loop(TurnModel(trace, 1), "Go.", tools={"record": record_tool(trace)},
                     journal=journal, run_id="done-1")  # fmt: skip
    journal.acquire("stuck-2", "worker-a")
    journal.record("stuck-2", "worker-a", stopkit.loop.journal.StepRecord(
        "tool_call_1_0", json.dumps({"id": "t", "name": "charge", "arguments": "x"}), None, 0.0))
    journal.release("stuck-2", "worker-a", stopkit.loop.journal.RunStatus.NEEDS_ATTENTION,
                    "needs_attention", "tool_call_1_0: charge may or may not have happened")
    journal.close()
    return str(path)


def test_list_shows_every_run_with_its_status(
    journal_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`runs list` prints one row per run; `--json` the same as data."""
    assert main(["runs", "list", "--journal", journal_file]) == 0
    text = capsys.readouterr().out
    assert "done-1" in text
    assert "needs_attention" in text
    assert main(["runs", "list", "--journal", journal_file, "--json"]) == 0
    rows = {row["run_id"]: row for row in json.loads(capsys.readouterr().out)}
    assert (rows["done-1"]["status"], rows["done-1"]["steps"]) == ("finished", 3)


def test_show_says_where_a_run_stopped_and_why(
    journal_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`runs show` prints the status, the reason, and each step: the reply's stop, the result."""
    assert main(["runs", "show", "--journal", journal_file, "done-1"]) == 0
    text = capsys.readouterr().out
    assert "run done-1: finished (completed)" in text
    assert "model_call_1       tool_request, 1 tool call(s)" in text
    assert "tool_call_1_0      result: recorded 1.0" in text
    assert "model_call_2       completed" in text
    assert main(["runs", "show", "--journal", journal_file, "stuck-2"]) == 0
    assert "started, no result recorded" in capsys.readouterr().out
    assert main(["runs", "show", "--journal", journal_file, "stuck-2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["steps"][0]["result"] is None


@pytest.mark.parametrize(
    ("argv", "status", "words"),
    [
        (["runs", "delete", "--journal", "{j}", "done-1"], 0, "deleted run done-1"),
        (["runs", "delete", "--journal", "{j}", "nope"], 1, "no run 'nope'"),
        (["runs", "show", "--journal", "{j}", "nope"], 1, "no run 'nope'"),
        (["runs", "list", "--journal", "{missing}"], 2, "there is no journal at"),
    ],
    ids=["delete", "delete-missing", "show-missing", "no-journal"],
)
def test_delete_and_errors_have_their_exit_status(
    journal_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
    status: int, words: str,
) -> None:  # fmt: skip
    """Deleting works once; a missing run exits 1, a missing journal 2, each saying so."""
    args = [a.format(j=journal_file, missing=tmp_path / "none.db") for a in argv]
    assert main(args) == status
    captured = capsys.readouterr()
    assert words in captured.out + captured.err
    assert not (tmp_path / "none.db").exists()


@pytest.fixture
def held(journal_file: str) -> Iterator[Any]:
    """The journal file opened, its run `done-1` leased by `worker-b` (a worker elsewhere)."""
    journal: Any = stopkit.loop.journal.SqliteJournal(journal_file)
    journal.acquire("done-1", "worker-b")
    yield journal
    journal.close()


def test_delete_is_refused_while_a_worker_holds_the_run(
    journal_file: str, held: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run being driven right now is not deleted under its worker."""
    assert main(["runs", "delete", "--journal", journal_file, "done-1"]) == 2
    assert "is being run by worker-b" in capsys.readouterr().err
    assert held.run("done-1") is not None


HOSTILE = "Done.\x1b]52;c;ZXZpbA==\x07\x1b[2J\u202eevil\u2066"


def test_show_escapes_what_a_terminal_would_act_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ANSI/OSC escapes and bidi overrides from a model or a tool are printed escaped."""
    path = tmp_path / "runs.db"
    journal = stopkit.loop.journal.SqliteJournal(path)
    replies = iter([tool_reply(1), {**final_reply(), "content": [{"type": "text",
                                                                  "text": HOSTILE}]}])  # fmt: skip
    stopkit.run_loop(lambda m, **o: next(replies), "Go.", journal=journal, run_id="hostile",
                     tools={"record": lambda **arguments: "\x1b[31mred\x1b[0m"})  # fmt: skip
    journal.close()
    for command in (["show", "hostile"], ["list"]):
        assert main(["runs", command[0], "--journal", str(path), *command[1:]]) == 0
        shown = capsys.readouterr().out
        assert not any(ch in shown for ch in "\x1b\x07\u202e\u2066")
    assert main(["runs", "show", "--journal", str(path), "hostile"]) == 0
    shown = capsys.readouterr().out
    assert "Done.\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\u202eevil\\u2066" in shown
    assert "result: \\x1b[31mred\\x1b[0m" in shown


def test_unlock_breaks_a_lease_by_hand(
    journal_file: str, held: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`runs unlock` frees a run a gone worker holds; that worker, back, has lost it."""
    assert main(["runs", "unlock", "--journal", journal_file, "done-1"]) == 0
    assert "unlocked run done-1 (it was held by worker-b)" in capsys.readouterr().out
    assert held.run("done-1").owner is None
    with pytest.raises(stopkit.loop.journal.RunLocked):
        held.record("done-1", "worker-b", stopkit.loop.journal.StepRecord(
            "model_call_9", "{}", None, 0.0))  # fmt: skip
    assert main(["runs", "unlock", "--journal", journal_file, "done-1"]) == 0
    assert "run done-1 holds no lease" in capsys.readouterr().out
    assert main(["runs", "unlock", "--journal", journal_file, "nope"]) == 1


@pytest.mark.parametrize(
    ("how", "result"),
    [
        (["--result", "charged: r-77"], {"content": "charged: r-77", "is_error": False}),
        (["--failed", "card declined"], {"content": "card declined", "is_error": True}),
        (["--run-again"], None),
    ],
    ids=["result", "failed", "run-again"],
)
def test_settle_gives_a_started_call_its_result_or_lets_it_run_again(
    journal_file: str, capsys: pytest.CaptureFixture[str], how: list[str], result: Any
) -> None:
    """`runs settle RUN STEP` records what a person found out about a call that needs attention."""
    assert main(["runs", "settle", "--journal", journal_file, "stuck-2", "tool_call_1_0",
                 *how]) == 0  # fmt: skip
    assert "settled tool_call_1_0 of run stuck-2" in capsys.readouterr().out
    journal: Any = stopkit.loop.journal.SqliteJournal(journal_file)
    steps = {step.name: step for step in journal.steps("stuck-2")}
    journal.close()
    if result is None:
        assert "tool_call_1_0" not in steps  # forgotten: the rerun runs it
    else:
        recorded = json.loads(steps["tool_call_1_0"].result)
        assert {key: recorded[key] for key in result} == result


@pytest.mark.parametrize(
    ("argv", "status", "words"),
    [
        (["stuck-2", "tool_call_9_9", "--result", "x"], 1, "has no unsettled step 'tool_call_9_9'"),
        (["done-1", "tool_call_1_0", "--result", "x"], 1, "has no unsettled step"),
        (["nope", "tool_call_1_0", "--run-again"], 1, "has no unsettled step"),
    ],
    ids=["no-such-step", "step-has-its-result", "no-such-run"],
)
def test_settle_refuses_a_step_that_is_not_waiting(
    journal_file: str, capsys: pytest.CaptureFixture[str], argv: list[str], status: int,
    words: str,
) -> None:  # fmt: skip
    """Only a started call without a result is settled; anything else exits 1 saying why."""
    assert main(["runs", "settle", "--journal", journal_file, *argv]) == status
    assert words in capsys.readouterr().err


def test_settle_needs_exactly_one_outcome(journal_file: str) -> None:
    """A result, a failure or a rerun: one of them, else a usage error (exit 2)."""
    for extra in ([], ["--result", "x", "--run-again"]):
        with pytest.raises(SystemExit) as raised:
            main(["runs", "settle", "--journal", journal_file, "stuck-2", "tool_call_1_0",
                  *extra])  # fmt: skip
        assert raised.value.code == 2


def _gone_owner() -> str:
    """The owner name of a worker process of this machine that has exited (and been reaped)."""
    import subprocess
    import sys

    from stopkit.loop.journal._owner import new_owner

    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    mine = new_owner().split(":")
    mine[1] = child.stdout.strip()
    return ":".join(mine)


@pytest.mark.parametrize(
    "action",
    [["delete", "stuck-2"], ["settle", "stuck-2", "tool_call_1_0", "--result", "charged"]],
    ids=["delete", "settle"],
)
def test_a_lease_of_a_killed_local_worker_does_not_block_an_operator(
    journal_file: str, action: list[str]
) -> None:
    """A run whose worker on this machine was killed is deleted or settled at once.

    A rerun would take it over at once: the operator is not told to wait out a dead lease.
    """
    journal = stopkit.loop.journal.SqliteJournal(journal_file)
    journal.acquire("stuck-2", _gone_owner())
    journal.close()
    assert main(["runs", *action[:1], "--journal", journal_file, *action[1:]]) == 0
