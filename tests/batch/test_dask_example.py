"""examples/batch_dask.py: a folder audited on a Dask LocalCluster gives the CLI's very report.

Needs dask[bag] and distributed (the `dask` extra, in the dev extra, so CI has them). Where they
are missing the test skips, except under CI (STOPKIT_CI set), where a skip would hide that the
example is not tested, so it fails instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from stopkit.cli import main
from tests.batch._fixtures import ALL, ANTHROPIC, gemini_response, many, write_jsonl

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "batch_dask.py"


def _need_dask() -> None:
    try:
        import dask.bag  # noqa: F401 -- only whether it imports
        import distributed  # noqa: F401
    except ImportError as exc:
        if os.environ.get("STOPKIT_CI"):
            pytest.fail(f"CI must run the Dask example; install the dev extra: {exc}")
        pytest.skip(f"dask[bag] and distributed are not installed here ({exc})")


def _folder(root: Path) -> Path:
    """A batch folder: every provider format, a file big enough to be split, a cut download."""
    folder = root / "results"
    folder.mkdir()
    for name, cases in ALL.items():
        suffix = ".jsonl.out" if name == "bedrock" else ".jsonl"
        write_jsonl(folder / f"{name}{suffix}", [c.line for c in cases])
    path = write_jsonl(folder / "anthropic_big.jsonl", many(ANTHROPIC, 2500))
    with path.open("a") as f:
        f.write('{"custom_id": "cut-1", "result": {"type": "succ')
    inlined = {"name": "batches/7", "dest": {"inlined_responses": [
        {"response": gemini_response("MAX_TOKENS"), "metadata": {"key": "in-1"}},
        {"error": {"code": 8, "message": "Resource exhausted"}}]}}  # fmt: skip
    (folder / "inlined.json").write_text(json.dumps(inlined))
    return folder


def test_dask_example_gives_the_cli_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Dask example and `stopkit batch --json` print the same report for the same folder."""
    _need_dask()
    folder = _folder(tmp_path)
    assert (folder / "anthropic_big.jsonl").stat().st_size > 2 << 20  # split across workers
    code = main(["batch", "--json", str(folder)])
    cli = json.loads(capsys.readouterr().out)
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--json", "--workers", "2", str(folder)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == code == 1, done.stderr
    assert json.loads(done.stdout) == cli
    assert cli["lines"] == sum(len(c) for c in ALL.values()) + 2500 * len(ANTHROPIC) + 1 + 2


@pytest.mark.parametrize(("make", "message"), [
    (lambda root: root.mkdir() or root, "no results files in"),  # an empty folder
    (lambda root: root / "missing.jsonl", "No such file or directory"),
], ids=["empty folder", "missing file"])  # fmt: skip
def test_dask_example_refuses_what_the_cli_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, message: str
) -> None:
    """Nothing to audit: the example exits 2 saying why, as `stopkit batch` does, no traceback."""
    target = str(make(tmp_path / "results"))
    assert main(["batch", target]) == 2
    assert message in capsys.readouterr().err
    done = subprocess.run([sys.executable, str(EXAMPLE), target],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert (done.returncode, "Traceback" in done.stderr) == (2, False), done.stderr
    assert message in done.stderr
