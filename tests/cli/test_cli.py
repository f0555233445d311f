"""The `stopkit` command line: normalize files and folders, exit codes, JSON output, the demo."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from stopkit.cli import main
from stopkit.cli._output import EXIT_OK, EXIT_UNKNOWN, EXIT_UNREADABLE

PAYLOADS = Path(__file__).parent.parent / "payloads"


def _reply(finish: str) -> dict[str, object]:
    return {
        "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": finish,
                     "message": {"role": "assistant", "content": "Hi"}}],
    }  # fmt: skip


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().out


def test_json_output_parses_back_to_the_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--json` prints a list with one entry per file, each the Stop as JSON; exit 0 when known."""
    (tmp_path / "a.json").write_text(json.dumps(_reply("stop")))
    (tmp_path / "b.json").write_text(json.dumps(_reply("length")))
    code, out = _run(["normalize", "--json", str(tmp_path)], capsys)
    results = json.loads(out)
    assert code == EXIT_OK
    assert [Path(r["file"]).name for r in results] == ["a.json", "b.json"]
    assert [r["stop"]["reason"] for r in results] == ["completed", "output_limit"]
    assert results[0]["stop"]["provider"] == "openai.chat"


def test_unknown_reply_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A reply whose stop is unknown makes the exit status 1, so CI can fail on it."""
    (tmp_path / "a.json").write_text(json.dumps(_reply("stop")))
    (tmp_path / "new.json").write_text(json.dumps(_reply("brand_new_value")))
    code, out = _run(["normalize", str(tmp_path)], capsys)
    assert code == EXIT_UNKNOWN
    assert "brand_new_value" in out


def test_unreadable_file_exits_2_and_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that is not a reply makes the exit status 2, and the output says why."""
    (tmp_path / "bad.json").write_text('{"error": {"message": "Overloaded"}}')
    code, out = _run(["normalize", "--json", str(tmp_path / "bad.json")], capsys)
    assert code == EXIT_UNREADABLE
    assert "HTTP error envelope" in json.loads(out)[0]["error"]


def test_folder_of_payloads_streams_included(capsys: pytest.CaptureFixture[str]) -> None:
    """A whole payload folder is read, streams (case files with events) and replies alike."""
    code, out = _run(["normalize", "--json", str(PAYLOADS / "anthropic")], capsys)
    results = json.loads(out)
    assert len(results) == len(list((PAYLOADS / "anthropic").glob("*.json")))
    assert any(r["stream"] for r in results)
    assert all("stop" in r for r in results)
    assert code == EXIT_UNKNOWN  # the folder holds cut streams and unknown values on purpose


def test_raw_sse_file_and_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A raw SSE file is read as a stream, and `-` reads a reply from standard input."""
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "Hi"},
             "finish_reason": "stop"}]}  # fmt: skip
    (tmp_path / "s.sse").write_text(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n")
    code, out = _run(["normalize", "--json", str(tmp_path / "s.sse")], capsys)
    assert (code, json.loads(out)[0]["stop"]["text"]) == (EXIT_OK, "Hi")
    body = json.dumps(_reply("length")).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    code, out = _run(["normalize", "--json", "-"], capsys)
    assert json.loads(out)[0]["stop"]["reason"] == "output_limit"


def test_table_command_prints_the_generated_table(capsys: pytest.CaptureFixture[str]) -> None:
    """`stopkit table` prints the reason x provider table generated from the adapters."""
    from stopkit._reason_table import reason_table

    code, out = _run(["table"], capsys)
    assert (code, out) == (EXIT_OK, reason_table())


def test_demo_runs_offline_to_the_end() -> None:
    """`python -m stopkit demo` plays every scenario in a fresh process, plain text when piped."""
    done = subprocess.run(
        [sys.executable, "-m", "stopkit", "demo"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "\x1b[" not in out  # no colour when not on a terminal
    for shown in ("-> tool_request", "run get_order", "with {'max_tokens': 2048}",
                  "escalated: filtered (refusal)", "-> paused", "escalated: unknown",
                  "ended: completed", "ended: filtered", "ended: unknown"):  # fmt: skip
        assert shown in out, shown
