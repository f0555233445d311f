"""The batch's strict JSON reader (`stopkit._json`): orjson when installed, else the stdlib."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.batch._fixtures import ALL, write_jsonl

_REPORT = (
    "import sys, io, json\n"
    "{block}"
    "from stopkit.batch import audit, write_json\n"
    "from stopkit._json import strict_parser\n"
    "out = io.StringIO()\n"
    "with audit([sys.argv[1]]) as report:\n"
    "    write_json(report, out)\n"
    "print(json.dumps([strict_parser(), json.loads(out.getvalue())]))\n"
)


def _report(path: Path, *, block_orjson: bool) -> tuple[str, dict[str, object]]:
    block = "sys.modules['orjson'] = None  # as if not installed\n" if block_orjson else ""
    done = subprocess.run(
        [sys.executable, "-c", _REPORT.format(block=block), str(path)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    parser, report = json.loads(done.stdout)
    return parser, report


def test_standard_library_and_orjson_give_the_same_report(tmp_path: Path) -> None:
    """Without orjson the standard library reads every line to the very same report."""
    path = write_jsonl(tmp_path / "r.jsonl", [c.line for cases in ALL.values() for c in cases])
    with path.open("a") as f:
        # A lone surrogate escape (JSON's grammar allows it; no text holds it, and orjson
        # refuses it), then an escaped pair (an emoji: fine for both), then a cut last line.
        f.write('{"custom_id": "lone-\\ud800", "result": {"type": "expired"}}\n')
        f.write('{"custom_id": "pair-\\ud83d\\ude00", "result": {"type": "expired"}}\n')
        f.write('not json\n{"custom_id": "cut", "resu')
    fast_parser, fast = _report(path, block_orjson=False)
    std_parser, std = _report(path, block_orjson=True)
    assert (fast_parser, std_parser) == ("orjson", "json")
    assert {**fast, "parser": None} == {**std, "parser": None}


def test_lines_orjson_refuses_are_not_json_without_it_too(tmp_path: Path) -> None:
    """Lines orjson refuses (NaN, raw surrogate bytes, deep nesting) are `not_json` either way."""
    deep = b"[" * 5000 + b"]" * 5000  # deeper than either parser goes (the stdlib: its stack)
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        b'{"custom_id": "nan", "result": {"type": "expired"}, "score": NaN}\n'
        b'{"custom_id": "inf", "result": {"type": "expired"}, "score": -Infinity}\n'
        # A surrogate encoded as UTF-8 bytes: no valid UTF-8 holds one (nor can it be printed).
        b'{"custom_id": "raw-\xed\xa0\x80", "result": {"type": "expired"}}\n'
        + deep
        + b'\n{"custom_id": "fine", "result": {"type": "expired"}}\n'
    )
    _, fast = _report(path, block_orjson=False)
    _, std = _report(path, block_orjson=True)
    assert {**fast, "parser": None} == {**std, "parser": None}
    counts = {g["outcome"]: g["lines"] for g in std["overall"]}  # type: ignore[attr-defined]
    assert counts == {"expired": 1, "not_json": 4}
