"""`stopkit normalize` and `stopkit audit` on cassettes and HAR files: file#N, skips, errors."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

import stopkit
from stopkit.cli import main
from stopkit.cli._output import EXIT_OK, EXIT_UNKNOWN, EXIT_UNREADABLE
from tests._markdown import ROOT
from tests.record import _cassettes as tape
from tests.record import _examples

EXAMPLES = ROOT / "examples" / "cassettes"
NOT_DONE = {"output_limit", "filtered", "paused", "unknown"}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _sources() -> list[tuple[str, int, stopkit.Stop]]:
    """Each LLM reply of the examples: its cassette, its exchange, and its recording's own Stop."""
    found = []
    for name, style, calls in _examples.CASSETTES:
        suffix = tape.recorder(style)[1]
        for index, (api, recording, _) in enumerate(calls):
            payload = tape.recording(api, recording)
            stop = (
                stopkit.normalize_stream(payload.events)
                if payload.events is not None
                else stopkit.normalize(payload.reply)
            )
            found.append((f"{name}{suffix}", index, stop))
    har_name, (api, recording) = _examples.HAR
    found.append((har_name, 0, stopkit.normalize(tape.recording(api, recording).reply)))
    return found


def _audit(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    code, out, err = _run(["audit", "--json", str(folder)], capsys)
    return code, json.loads(out), err


def test_the_audit_counts_the_replies_of_a_folder_of_mixed_cassettes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The counts by reason and provider, and the not-done list, are those of the recordings."""
    code, report, err = _audit(EXAMPLES, capsys)
    sources = _sources()
    expected: dict[str, Counter[str]] = {}
    for _, _, stop in sources:
        expected.setdefault(stop.reason.value, Counter())[stop.provider] += 1
    assert {reason: Counter(by) for reason, by in report["counts"].items()} == expected
    not_done = [(Path(r["file"]).relative_to(EXAMPLES).as_posix(), r["exchange"])
                for r in report["not_done"]]  # fmt: skip
    assert sorted(not_done) == sorted(
        (name, index) for name, index, stop in sources if stop.reason in NOT_DONE
    )
    assert report["skipped"] == {"other": 2, "error": 1}
    assert code == EXIT_UNKNOWN  # some replies are not done
    assert err.endswith("3 exchanges skipped (1 error response, 2 not an LLM reply)\n")


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_normalize_summary_prints_what_audit_prints(
    as_json: bool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`stopkit normalize --summary` is the audit: the same output and status, stdin too."""
    options = ["--json"] if as_json else []
    audited = _run(["audit", *options, str(EXAMPLES)], capsys)
    assert _run(["normalize", "--summary", *options, str(EXAMPLES)], capsys) == audited
    payload = ROOT / "examples" / "recordings" / "02-max_tokens.json"
    by_file = _run(["audit", *options, str(payload)], capsys)
    piped = io.TextIOWrapper(io.BytesIO(payload.read_bytes()))
    monkeypatch.setattr(sys, "stdin", piped)
    code, out, _ = _run(["normalize", "--summary", *options], capsys)
    assert (code, out) == (by_file[0], by_file[1].replace(str(payload), "-"))  # stdin is `-`
    assert "output_limit" in out


def test_the_shipped_examples_are_what_the_generator_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recording the examples again gives the same audit as the cassettes in examples/."""
    _examples.write_examples(tmp_path)
    names = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*") if p.is_file())
    shipped, fresh = _audit(EXAMPLES, capsys)[1], _audit(tmp_path, capsys)[1]
    for report, folder in ((shipped, EXAMPLES), (fresh, tmp_path)):
        for read in report["not_done"]:
            read["file"] = Path(read["file"]).relative_to(folder).as_posix()
    assert shipped == fresh


def test_normalize_names_each_reply_file_and_exchange(capsys: pytest.CaptureFixture[str]) -> None:
    """One entry per LLM reply, `file#N` in text, `"exchange": N` in JSON; payload files as ever."""
    cassette = EXAMPLES / "pytest-recording" / "test_weather.yaml"
    payload = ROOT / "examples" / "recordings" / "02-max_tokens.json"
    code, out, _ = _run(["normalize", str(cassette), str(payload)], capsys)
    assert [line for line in out.splitlines() if not line.startswith(" ")] == [
        f"{cassette}#0",
        f"{cassette}#1",
        str(payload),
    ]
    code, out, err = _run(["normalize", "--json", str(cassette), str(payload)], capsys)
    results = json.loads(out)
    assert [(r["file"], r.get("exchange")) for r in results] == [
        (str(cassette), 0),
        (str(cassette), 1),
        (str(payload), None),
    ]
    assert "exchange" not in results[2]
    reasons = [r["stop"]["reason"] for r in results]
    assert reasons == ["tool_request", "output_limit", "output_limit"]
    assert code == EXIT_OK
    assert err == (
        "stopkit: 3 replies: 1 tool_request, 2 output_limit; 2 exchanges skipped "
        "(1 error response, 1 not an LLM reply)\n"
    )


def test_a_bad_cassette_is_reported_and_the_other_files_still_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each unreadable file or exchange is named on stderr (exit 2); the rest are still read."""
    shutil.copytree(EXAMPLES / "pydantic-ai", tmp_path / "good")
    (tmp_path / "bad.yaml").write_text("interactions: [\n")
    (tmp_path / "bad.har").write_text('{"log": {"version": "1.2"}}')
    body = gzip.compress(b'{"type": "message"}')[:-6]
    cut = {"interactions": [{"request": {"method": "POST", "uri": "https://x.test/v1/messages"},
                             "response": {"status": {"code": 200},
                                          "headers": {"Content-Encoding": ["gzip"]},
                                          "body": {"string": body}}}]}  # fmt: skip
    (tmp_path / "cut.yaml").write_text(yaml.dump(cut))  # the body as `!!binary`
    code, out, err = _run(["normalize", "--json", str(tmp_path)], capsys)
    results = json.loads(out)
    errors = {Path(r["file"]).name: r["error"] for r in results if "error" in r}
    assert set(errors) == {"bad.yaml", "bad.har", "cut.yaml"}
    assert "not valid YAML" in errors["bad.yaml"]
    assert "without a log.entries list" in errors["bad.har"]
    assert errors["cut.yaml"].endswith("cut.yaml#0: its gzip data is cut short (truncated)")
    assert len([r for r in results if "stop" in r]) == 3
    assert code == EXIT_UNREADABLE
    assert err.splitlines()[-1].endswith("; 3 files unreadable")


def test_a_cassette_is_refused_over_the_size_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--max-size` refuses a cassette too big, or a body that decompresses past it."""
    big = tmp_path / "big.yaml"
    big.write_bytes((EXAMPLES / "pytest-recording" / "test_weather.yaml").read_bytes())
    code, _, err = _run(["audit", "--max-size", "1KB", str(big)], capsys)
    assert (code, "over the size limit (1000 bytes)" in err) == (EXIT_UNREADABLE, True)
    code, _, err = _run(["audit", "--max-size", "200", str(EXAMPLES / "pytest-recording")], capsys)
    assert code == EXIT_UNREADABLE
    assert "over the size limit (200 bytes)" in err


def test_a_cassette_on_standard_input_is_read_by_its_content(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bytes piped in are told apart by content: a YAML cassette gives one line per reply."""
    data = (EXAMPLES / "pytest-recording" / "test_weather.yaml").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = _run(["normalize", "-"], capsys)
    assert [line for line in out.splitlines() if not line.startswith(" ")] == ["-#0", "-#1"]
    assert code == EXIT_OK


def test_without_pyyaml_a_yaml_cassette_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no PyYAML, each YAML cassette is an error naming the extra; JSON and HAR still read."""
    monkeypatch.setitem(sys.modules, "yaml", None)
    code, out, err = _run(["audit", "--json", str(EXAMPLES)], capsys)
    assert err.count("needs PyYAML: pip install 'stopkit[cassettes]'") == 3
    assert sum(n for by in json.loads(out)["counts"].values() for n in by.values()) == 4
    assert code == EXIT_UNREADABLE


def test_the_audit_text_shows_the_table_then_what_is_not_done(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The text report: a reason x provider table with totals, then each not-done reply's name."""
    code, out, _ = _run(["audit", str(EXAMPLES / "vcrpy-json")], capsys)
    lines = out.splitlines()
    assert lines[0].split() == ["reason", "anthropic", "openai.responses", "total"]
    assert lines[1].split() == ["completed", "0", "1", "1"]
    assert lines[-2].split()[:3] == [f"{EXAMPLES}/vcrpy-json/test_research.json#1",
                                     "openai.responses", "paused/background"]  # fmt: skip
    assert code == EXIT_UNKNOWN


def test_with_an_adapter_named_the_exchanges_it_does_not_read_are_skipped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--adapter` reads the replies it recognizes; the other providers' count as not LLM."""
    code, out, _ = _run(["audit", "--json", "--adapter", "anthropic", str(EXAMPLES)], capsys)
    report = json.loads(out)
    assert set(report["counts"]) == {"tool_request", "output_limit", "unknown"}
    assert {p for by in report["counts"].values() for p in by} == {"anthropic"}
    assert report["skipped"] == {"other": 10, "error": 1}
    assert code == EXIT_UNKNOWN
