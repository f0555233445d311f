"""`stopkit batch`: the table, --json, exit statuses, --resubmit and --jobs, from the CLI."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from stopkit.batch import BatchUsageError, results_files
from stopkit.cli import main
from tests.batch._fixtures import (
    ALL,
    ANTHROPIC,
    anthropic_request,
    chat_body,
    openai_ok,
    openai_request,
    write_jsonl,
)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["batch", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_table_per_model_with_the_ids_that_need_a_look(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The human report counts each model's lines by reason and names the lines to look at."""
    path = write_jsonl(tmp_path / "results.jsonl", [c.line for c in ANTHROPIC])
    code, out, _ = _run([str(path)], capsys)
    assert code == 1  # two errored lines
    assert "stopkit batch: 1 file, 10 lines (anthropic 10)" in out
    assert "claude-3-5-haiku-20241022" in out
    assert "  output_limit/max_tokens" in out
    assert "output_limit/max_tokens (1): a-2" in out
    assert "errored overloaded_error (1): a-8" in out
    assert "completed (1)" not in out  # finished replies are not listed for review


def test_json_output_and_exit_status_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json prints one document; a batch with nothing unknown or errored exits 0."""
    path = write_jsonl(tmp_path / "results.jsonl", [c.line for c in ANTHROPIC[:6]])
    code, out, _ = _run(["--json", str(path)], capsys)
    data = json.loads(out)
    assert code == data["exit_status"] == 0
    assert data["lines"] == 6


def test_a_folder_of_results_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder is read whole: every .jsonl / .jsonl.out / .json file in it, in name order."""
    for name, cases in ALL.items():
        suffix = ".jsonl.out" if name == "bedrock" else ".jsonl"
        write_jsonl(tmp_path / f"{name}{suffix}", [c.line for c in cases])
    (tmp_path / "manifest.json.out").write_text('{"totalRecordCount": 6}')
    code, out, _ = _run(["--json", str(tmp_path)], capsys)
    data = json.loads(out)
    assert len(data["files"]) == 5
    assert data["lines"] == sum(len(cases) for cases in ALL.values())
    assert code == 1


@pytest.mark.parametrize(
    "argv",
    [["{file}", "{file}"], ["{folder}", "{file}"], ["{file}", "{folder}/./results.jsonl"]],
)
def test_a_file_named_twice_is_read_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """A file named again (itself, through its folder, by another spelling) counts once."""
    path = write_jsonl(tmp_path / "results.jsonl", [c.line for c in ANTHROPIC])
    names = {"file": str(path), "folder": str(tmp_path)}
    code, out, _ = _run(["--json", *(a.format(**names) for a in argv)], capsys)
    data = json.loads(out)
    assert (code, data["files"], data["lines"]) == (1, [str(path)], len(ANTHROPIC))


def test_resubmit_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--resubmit with --input writes the follow-up batch and says so under the table."""
    results = write_jsonl(tmp_path / "results.jsonl", [c.line for c in ANTHROPIC])
    inputs = write_jsonl(tmp_path / "input.jsonl",
                         [anthropic_request(c.line["custom_id"]) for c in ANTHROPIC])  # fmt: skip
    out_file = tmp_path / "retry.jsonl"
    code, out, _ = _run([str(results), "--input", str(inputs), "--resubmit", str(out_file)], capsys)
    assert code == 1
    assert f"resubmit: 3 requests written to {out_file}" in out
    assert "raise_max_tokens" in out
    assert len(out_file.read_text().splitlines()) == 3
    assert Path(f"{out_file}.mapping.jsonl").is_file()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.jsonl"], "missing.jsonl"),
        (["{results}", "--resubmit", "{out}"], "--input"),
        (["{results}", "--input", "{wrong}", "--resubmit", "{out}"], "anthropic request line"),
        (["{results}", "--input", "{results}"], "a results line, not a request"),
        (["{results}", "--factor", "1"], "--factor"),
        (["{results}", "--mapping", "m.jsonl"], "--resubmit"),
    ],
)
def test_usage_errors_exit_2_and_say_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    """A missing file, a missing or foreign request file, a bad option: exit 2 with the reason."""
    names = {
        "results": str(write_jsonl(tmp_path / "r.jsonl", [openai_ok("c-1", chat_body("length"))])),
        "wrong": str(write_jsonl(tmp_path / "w.jsonl", [anthropic_request("c-1")])),
        "out": str(tmp_path / "out.jsonl"),
    }
    code, _, err = _run([a.format(**names) for a in argv], capsys)
    assert code == 2
    assert message in err


def test_a_pipe_is_refused_before_any_of_it_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pipe or device as results or requests: exit 2 naming it, never lines silently lost."""
    results = write_jsonl(tmp_path / "r.jsonl", [c.line for c in ANTHROPIC])
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # never opened: reading it would wait for a writer
    with pytest.raises(BatchUsageError, match="pipe is not a regular file"):
        results_files([tmp_path / "pipe"])
    for argv in ([str(fifo)], [str(results), "--input", os.devnull],
                 [str(results), "--input", os.devnull, "--resubmit", str(tmp_path / "o.jsonl")]):
        code, _, err = _run(argv, capsys)
        assert (code, "not a regular file" in err) == (2, True), argv
    assert not (tmp_path / "o.jsonl").exists()


def _special(kind: str, path: Path) -> None:
    """Make `path` a file that is no regular file: a FIFO, a folder, a device, a socket, a link."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        try:
            os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
        except PermissionError:
            pytest.skip("making a device node needs root")
    elif kind == "socket":
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(path))
    else:  # a link to a FIFO
        os.mkfifo(path.with_name("target"))
        path.symlink_to(path.with_name("target"))


@pytest.mark.parametrize("kind", ["fifo", "folder", "device", "socket", "link to a fifo"])
@pytest.mark.parametrize("option", ["--resubmit", "--mapping"])
def test_an_output_that_is_no_regular_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, option: str
) -> None:
    """--resubmit or --mapping naming a FIFO, a folder or a device: exit 2, nothing written."""
    results = write_jsonl(tmp_path / "r.jsonl", [openai_ok("c-1", chat_body("length"))])
    inputs = write_jsonl(tmp_path / "i.jsonl", [openai_request("c-1", max_tokens=10)])
    special = tmp_path / "special"
    _special(kind, special)
    before = sorted(p.name for p in tmp_path.iterdir())
    named = {"--resubmit": [str(special)], "--mapping": [str(tmp_path / "o"), option, str(special)]}
    argv = [str(results), "--input", str(inputs), "--resubmit", *named[option]]
    code, _, err = _run(argv, capsys)
    assert (code, "is not a regular file" in err, str(special) in err) == (2, True, True), err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no mapping, no temporary file
    kept = special.lstat().st_mode if kind != "link to a fifo" else special.stat().st_mode
    assert not stat.S_ISREG(kept)


@pytest.mark.parametrize(
    "argv",
    [
        ["--resubmit", "{inputs}"],
        ["--resubmit", "{results}"],
        ["--resubmit", "{out}", "--mapping", "{inputs}"],
        ["--resubmit", "{out}", "--mapping", "{out}"],
    ],
)
def test_a_resubmission_never_overwrites_a_file_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """--resubmit or --mapping naming the results, the request file or each other: exit 2."""
    results = write_jsonl(tmp_path / "r.jsonl", [c.line for c in ANTHROPIC])
    inputs = write_jsonl(tmp_path / "i.jsonl",
                         [anthropic_request(c.line["custom_id"]) for c in ANTHROPIC])  # fmt: skip
    before = {p: p.read_bytes() for p in (results, inputs)}
    names = {"results": str(results), "inputs": str(inputs), "out": str(tmp_path / "o.jsonl")}
    code, _, err = _run([str(results), "--input", str(inputs), *(a.format(**names) for a in argv)],
                        capsys)  # fmt: skip
    assert (code, "would overwrite" in err) == (2, True)
    assert {p: p.read_bytes() for p in before} == before


def test_jobs_print_the_same_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--jobs 2 prints exactly the report of --jobs 1."""
    lines = [
        openai_ok(f"c-{i}", chat_body("length" if i % 7 == 0 else "stop")) for i in range(4000)
    ]
    path = write_jsonl(tmp_path / "results.jsonl", lines)
    _, one, _ = _run(["--json", str(path)], capsys)
    _, two, _ = _run(["--json", "--jobs", "2", str(path)], capsys)
    assert json.loads(two) == json.loads(one)


def test_input_alone_checks_the_join(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--input without --resubmit still finds results with no request and requests with none."""
    results = write_jsonl(tmp_path / "r.jsonl", [openai_ok("c-1", chat_body("stop"))])
    inputs = write_jsonl(tmp_path / "i.jsonl", [openai_request("c-2")])
    code, out, _ = _run([str(results), "--input", str(inputs)], capsys)
    assert code == 1
    assert "no_input (1): c-1" in out
    assert "no_result (1): c-2" in out


def test_a_reader_that_leaves_early_is_not_an_error(tmp_path: Path) -> None:
    """`stopkit batch ... --json | head -c 100` exits 0, silently, like `stopkit normalize`."""
    lines = [openai_ok(f"c-{i}", chat_body("stop")) for i in range(20000)]
    path = write_jsonl(tmp_path / "results.jsonl", lines)
    done = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m stopkit batch --json "{path}" | head -c 100 >'
         ' /dev/null; exit "${PIPESTATUS[0]}"'],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")


def test_building_the_command_line_imports_nothing_heavy() -> None:
    """`stopkit --help` registers `batch` without importing its parser, orjson or dask."""
    code = (
        "import sys, json\n"
        "from stopkit.cli._main import build_parser\n"
        "build_parser()\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('orjson', 'dask', "
        "'distributed', 'stopkit.batch._lines', 'stopkit.batch._audit')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_max_line_size_counts_longer_lines_as_bad_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--max-line-size: a results or request line over it is `line_too_long`, by its place."""
    long = openai_ok("c-2", chat_body("stop"))
    long["response"]["body"]["choices"][0]["message"]["content"] = "x" * 5000
    results = write_jsonl(tmp_path / "r.jsonl", [openai_ok("c-1", chat_body("length")), long])
    requests = [openai_request("c-1", max_tokens=10), openai_request("c-2", messages=["y" * 5000])]
    inputs = write_jsonl(tmp_path / "i.jsonl", requests)
    code, out, _ = _run([str(results), "--input", str(inputs), "--max-line-size", "1000",
                         "--json"], capsys)  # fmt: skip
    assert code == 1
    [bad] = [g for m in json.loads(out)["models"] for g in m["groups"]
             if g["outcome"] == "line_too_long"]  # fmt: skip
    assert bad["ids"] == [f"{results}:2", f"{inputs}:2"]
    code, out, _ = _run([str(results), "--input", str(inputs), "--json"], capsys)
    assert "line_too_long" not in out  # the default bound is far above these lines
    with pytest.raises(SystemExit) as refused:
        _run([str(results), "--max-line-size", "0"], capsys)
    assert (refused.value.code, "must be greater than 0" in capsys.readouterr().err) == (2, True)


@pytest.mark.parametrize("option", ["--resubmit", "--mapping"])
def test_a_bad_output_is_refused_before_any_result_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    option: str,
) -> None:  # fmt: skip
    """An OUT (or --mapping) that cannot be written is a usage error before the audit starts.

    Reading a large batch takes minutes: the user hears of a mistyped OUT at once.
    """
    import stopkit.batch

    def audit(*args: object, **kwargs: object) -> None:
        raise AssertionError("the results were read before OUT was checked")

    monkeypatch.setattr(stopkit.batch, "audit", audit)
    results = write_jsonl(tmp_path / "r.jsonl", [openai_ok("c-1", chat_body("length"))])
    special = tmp_path / "special"
    os.mkfifo(special)
    named = {"--resubmit": [str(special)], "--mapping": [str(tmp_path / "o"), option, str(special)]}
    code, _, err = _run([str(results), "--resubmit", *named[option]], capsys)
    assert (code, "is not a regular file" in err) == (2, True), err
    code, _, err = _run([str(results), "--resubmit", str(results)], capsys)
    assert (code, "would overwrite" in err) == (2, True), err
