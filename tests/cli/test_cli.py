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


def test_no_file_reads_a_piped_stdin() -> None:
    """`cat reply.json | stopkit normalize`: with no file and stdin a pipe, stdin is read."""
    done = subprocess.run(
        [sys.executable, "-m", "stopkit", "normalize", "--json"],
        input=json.dumps(_reply("length")), capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == EXIT_OK, done.stderr
    [result] = json.loads(done.stdout)
    assert (result["file"], result["stop"]["reason"]) == ("-", "output_limit")


def test_no_file_and_a_terminal_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no file and stdin a terminal, nothing is waited for: exit 2 saying what to give."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())
    assert main(["normalize"]) == EXIT_UNREADABLE
    assert "give reply files or folders, or pipe a reply into stdin" in capsys.readouterr().err


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


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """`stopkit --version` prints the version and exits 0."""
    import stopkit

    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out.strip() == f"stopkit {stopkit.__version__}"


def test_errors_go_to_stderr_and_a_summary_ends_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Standard output holds the replies only; unreadable files and the summary go to stderr."""
    (tmp_path / "a.json").write_text(json.dumps(_reply("stop")))
    (tmp_path / "b.json").write_text(json.dumps(_reply("stop")))
    (tmp_path / "c.json").write_text(json.dumps(_reply("brand_new_value")))
    (tmp_path / "d.json").write_text("{not json")
    code = main(["normalize", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == EXIT_UNREADABLE
    assert "d.json" not in out
    assert "a.json" in out
    assert f"stopkit: {tmp_path / 'd.json'}: not valid JSON" in err
    assert err.strip().splitlines()[-1] == (
        "stopkit: 3 replies: 2 completed, 1 unknown; 1 file unreadable"
    )
    code = main(["normalize", "--json", str(tmp_path / "a.json")])
    out, err = capsys.readouterr()
    assert json.loads(out)[0]["stop"]["reason"] == "completed"  # stdout stays pure JSON
    assert err.strip() == "stopkit: 1 reply: 1 completed"


def test_an_unknown_adapter_is_a_usage_error_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--adapter` naming no adapter exits 2 with one usage error, before any file is read."""
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(json.dumps(_reply("stop")))
    with pytest.raises(SystemExit) as caught:
        main(["normalize", "--adapter", "openai.chatt", str(tmp_path)])
    assert caught.value.code == EXIT_UNREADABLE
    err = capsys.readouterr().err
    assert err.count("no adapter named 'openai.chatt'") == 1
    assert "usage: stopkit normalize" in err


def test_a_reader_that_leaves_early_keeps_the_exit_status() -> None:
    """`stopkit normalize dir | head -1` exits with the status the replies call for (1)."""
    with subprocess.Popen(
        [sys.executable, "-m", "stopkit", "normalize", str(PAYLOADS)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    ) as run:  # fmt: skip
        assert run.stdout is not None
        assert run.stderr is not None
        run.stdout.readline()
        run.stdout.close()  # the reader leaves, as `head -1` does
        err = run.stderr.read().decode()
        assert run.wait(timeout=120) == EXIT_UNKNOWN, err
    assert "Traceback" not in err
    assert "replies:" in err  # the run went on to the end


def test_input_over_the_size_limit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file, stdin or an endless device over `--max-size` exits 2 with a message."""
    big = tmp_path / "big.json"
    big.write_text(json.dumps({**_reply("stop"), "pad": "x" * 3000}))
    code = main(["normalize", "--max-size", "2KB", str(big)])
    assert code == EXIT_UNREADABLE
    assert "over the size limit (2000 bytes)" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(big.read_bytes())))
    assert main(["normalize", "--max-size", "2KB", "-"]) == EXIT_UNREADABLE
    assert "over the size limit" in capsys.readouterr().err
    if Path("/dev/zero").exists():
        assert main(["normalize", "--max-size", "1MB", "/dev/zero"]) == EXIT_UNREADABLE
        assert "over the size limit (1000000 bytes)" in capsys.readouterr().err


def test_the_default_size_limit_is_100_mb() -> None:
    """Without `--max-size`, input is limited to 100 MB."""
    from stopkit.cli._main import build_parser

    args = build_parser().parse_args(["normalize", "x.json"])
    assert args.max_size == 100_000_000


def test_a_utf8_byte_order_mark_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reply saved with a UTF-8 byte order mark (Windows editors) is read like any other."""
    body = b"\xef\xbb\xbf" + json.dumps(_reply("length")).encode()
    (tmp_path / "bom.json").write_bytes(body)
    assert main(["normalize", "--json", str(tmp_path / "bom.json")]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)[0]["stop"]["reason"] == "output_limit"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    assert main(["normalize", "--json", "-"]) == EXIT_OK


@pytest.mark.parametrize(
    "hostile",
    ["\x1b]52;c;ZXZpbA==\x07", "\x1b[2J", "get_\u202eorder"],
    ids=["osc52-clipboard", "ansi-clear", "bidi-override"],
)
def test_what_a_reply_says_cannot_drive_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], hostile: str
) -> None:
    """A tool name (or any text) from the model is printed escaped: no terminal escape runs."""
    reply = {"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
             "message": {"role": "assistant", "content": None, "tool_calls": [
                 {"id": "call_1", "type": "function",
                  "function": {"name": hostile, "arguments": "{}"}}]}}]}  # fmt: skip
    path = tmp_path / "reply.json"
    path.write_text(json.dumps(reply))
    status, out = _run(["normalize", str(path)], capsys)
    assert status == EXIT_OK
    assert all(line.isprintable() for line in out.splitlines())
    assert hostile not in out
    assert repr(hostile)[1:-1] in out
