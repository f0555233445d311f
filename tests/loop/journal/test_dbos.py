"""DBOS: a workflow killed mid-run (SIGKILL) is recovered; only the cut step runs again."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.loop.journal.conftest import unavailable

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "durable_dbos.py"


def example(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(EXAMPLE), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=180)  # fmt: skip


@pytest.mark.parametrize("crash_at", [1, 3])
def test_a_killed_dbos_workflow_is_recovered_and_only_the_cut_step_runs_again(
    tmp_path: Path, crash_at: int
) -> None:
    """Killed inside tool `crash_at`, the workflow is recovered: only the cut tool runs twice.

    Each model call and each finished tool ran once; the cut tool twice, with one key.
    """
    try:
        import dbos  # noqa: F401 -- only whether it is installed
    except ImportError:
        unavailable("DBOS is not installed (pip install 'stopkit[dbos]')")
    db, log = tmp_path / "dbos.sqlite", tmp_path / "effects.log"
    killed = example("--db", str(db), "--log", str(log), "--crash-at", str(crash_at))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert "result:" not in killed.stdout
    recovered = example("--db", str(db), "--log", str(log))
    assert recovered.returncode == 0, recovered.stderr
    assert "result: completed: Order 1042 is on its way." in recovered.stdout
    counts = Counter(log.read_text().splitlines())
    twice = [line for line, n in counts.items() if n == 2]
    assert len(counts) == 4 + 5
    assert [line.split(" (key ")[1] for line in twice] == [f"order-1042/tool_call_{crash_at}_0)"]
    assert set(counts.values()) == {1, 2}
