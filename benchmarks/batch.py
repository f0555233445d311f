"""`python -m benchmarks.batch [--lines N] [--repeats R] [--write]`: batch audit throughput.

Lines per second of `stopkit.batch.audit` on generated results files, side by side with the
floor of only parsing each line's JSON (the standard library's json and orjson), in the same
run on the same file, and `jobs=2` against `jobs=1` (a process pool over line-aligned chunks).
Each row is the best of R runs (the machine is shared: the best run is the one least disturbed;
the load average before and after each file is printed beside it). The defaults keep a run to
about a minute; `--write` puts the table into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.targets import BATCH_SHARE, JOBS_CEILING_SHARE

HERE = Path(__file__).resolve().parent
START, END = "<!-- batch-table:start -->", "<!-- batch-table:end -->"

_ANSWER = (
    "The committee reviewed the proposal in detail and found that the projected costs were "
    "consistent with the figures from the previous quarter, although the timeline for the "
    "second phase depends on approvals that have not yet been granted. "
)


def _chat(i: int, finish: str, text: str) -> dict[str, Any]:
    body = {"id": f"chatcmpl-{i}", "object": "chat.completion", "created": 1717000000,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text,
                                                 "refusal": None},
                         "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": 31, "completion_tokens": 120,
                      "total_tokens": 151}}  # fmt: skip
    return {"id": f"batch_req_{i}", "custom_id": f"req-{i}",
            "response": {"status_code": 200, "request_id": f"req_{i}", "body": body},
            "error": None}  # fmt: skip


def _anthropic(i: int, stop: str, text: str) -> dict[str, Any]:
    message = {"id": f"msg_{i}", "type": "message", "role": "assistant",
               "model": "claude-3-5-haiku-20241022", "content": [{"type": "text", "text": text}],
               "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": 31, "output_tokens": 120}}  # fmt: skip
    return {"custom_id": f"req-{i}", "result": {"type": "succeeded", "message": message}}


def _gemini(i: int, finish: str, text: str) -> dict[str, Any]:
    response = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                "finishReason": finish, "index": 0}],
                "usageMetadata": {"promptTokenCount": 31, "candidatesTokenCount": 120,
                                  "totalTokenCount": 151},
                "modelVersion": "gemini-2.5-flash", "responseId": f"r{i}"}  # fmt: skip
    return {"key": f"req-{i}", "response": response}


#: Of every 100 lines: 90 finished, 6 cut off, 2 filtered, 2 not run (expired / errored).
_MIX = (["done"] * 90) + (["cut"] * 6) + (["filtered"] * 2) + (["failed"] * 2)
_STOPS = {
    "chat": {"done": "stop", "cut": "length", "filtered": "content_filter"},
    "anthropic": {"done": "end_turn", "cut": "max_tokens", "filtered": "refusal"},
    "gemini": {"done": "STOP", "cut": "MAX_TOKENS", "filtered": "SAFETY"},
}
_FAILED = {
    "chat": lambda i: {"id": f"batch_req_{i}", "custom_id": f"req-{i}", "response": None,
                       "error": {"code": "batch_expired", "message": "expired"}},
    "anthropic": lambda i: {"custom_id": f"req-{i}", "result": {"type": "expired"}},
    "gemini": lambda i: {"key": f"req-{i}", "error": {"code": 8, "message": "Resource exhausted"}},
}  # fmt: skip
_BUILD = {"chat": _chat, "anthropic": _anthropic, "gemini": _gemini}

#: name -> (providers taking turns, answer length in characters)
PROFILES = {
    "OpenAI chat, short answers (~0.5 KB lines)": (("chat",), 60),
    "OpenAI + Anthropic + Gemini, ~2 KB lines": (("chat", "anthropic", "gemini"), 1500),
}


def line(i: int, providers: tuple[str, ...], length: int) -> dict[str, Any]:
    """The i-th results line of a profile (the mix of `_MIX`, providers taking turns)."""
    provider = providers[i % len(providers)]
    kind = _MIX[(i * 7) % 100]  # spread the outcomes through the file
    if kind == "failed":
        return _FAILED[provider](i)
    text = (_ANSWER * (length // len(_ANSWER) + 1))[:length]
    return _BUILD[provider](i, _STOPS[provider][kind], text)


def generate(path: Path, lines: int, providers: tuple[str, ...], length: int) -> None:
    """Write a results file of `lines` lines of a profile."""
    with path.open("w") as f:
        for i in range(lines):
            f.write(json.dumps(line(i, providers, length)) + "\n")


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the pool's workers)."""
    mine, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def _best(run: Callable[[], None], repeats: int) -> tuple[float, float]:
    """The best wall time and the best CPU time of `repeats` runs."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), _cpu()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(_cpu() - cpu)
    return min(walls), min(cpus)


def _parse(path: Path, loads: Callable[[bytes], Any]) -> Callable[[], None]:
    def run() -> None:
        with path.open("rb") as f:
            for raw in f:
                loads(raw)

    return run


def _body(obj: dict[str, Any]) -> Any:
    """The reply body of a generated line (None for a request that did not run)."""
    if "result" in obj:
        return obj["result"].get("message")
    response = obj.get("response")
    return response.get("body", response) if isinstance(response, dict) else None


def _parse_normalize(path: Path) -> Callable[[], None]:
    import orjson

    import stopkit

    def run() -> None:
        with path.open("rb") as f:
            for raw in f:
                body = _body(orjson.loads(raw))
                if body is not None:
                    stopkit.normalize(body)

    return run


def _audit(path: Path, jobs: int) -> Callable[[], None]:
    from stopkit.batch import audit

    def run() -> None:
        with audit([path], jobs=jobs):
            pass

    return run


def _spin(n: int = 3_000_000) -> int:
    """Pure CPU work that shares nothing: the same share of a second on any core."""
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def ceiling(repeats: int) -> float:
    """This machine's own two-process speed-up: `_spin` twice in one process, then in two.

    What `jobs=2` could reach at best here: two vCPUs of a virtual machine need not give twice
    the work of one, whatever the program.
    """
    import multiprocessing

    fork = multiprocessing.get_context("fork")

    def one() -> None:
        _spin()
        _spin()

    def two() -> None:
        worker = fork.Process(target=_spin)
        worker.start()
        _spin()
        worker.join()

    serial, _ = _best(one, repeats)
    parallel, _ = _best(two, repeats)
    return serial / parallel


def _speedups(one: Callable[[], None], two: Callable[[], None], repeats: int) -> list[float]:
    """`jobs=2` against `jobs=1` in `repeats` pairs of runs taken back to back.

    A shared machine's speed drifts over a run; the two runs of a pair see about the same
    machine, where the best of one row's runs and the best of the other's may not.
    """
    pairs = []
    for _ in range(repeats):
        pairs.append(_best(one, 1)[0] / _best(two, 1)[0])
    return pairs


def measure(path: Path, lines: int, repeats: int) -> dict[str, Any]:
    """Best-of-`repeats` lines per second of each row on one file."""
    import orjson

    rows = {
        "read the lines only": _parse(path, lambda raw: None),
        "parse-only floor: json.loads": _parse(path, json.loads),
        "parse-only floor: orjson.loads": _parse(path, orjson.loads),
        "orjson.loads + stopkit.normalize(body)": _parse_normalize(path),
        "stopkit.batch.audit, jobs=1": _audit(path, 1),
        "stopkit.batch.audit, jobs=2": _audit(path, 2),
    }
    load_before = os.getloadavg()[0]
    best = {name: _best(run, repeats) for name, run in rows.items()}
    return {
        "rates": {name: lines / wall for name, (wall, _) in best.items()},
        "cpu_rates": {name: lines / cpu for name, (_, cpu) in best.items()},
        "speedups": _speedups(
            rows["stopkit.batch.audit, jobs=1"], rows["stopkit.batch.audit, jobs=2"], repeats
        ),
        "load": (load_before, os.getloadavg()[0]),
        "bytes_per_line": path.stat().st_size / lines,
    }


def measure_files(lines: int, repeats: int) -> dict[str, Any]:
    """Every row on each profile's generated file, and the machine's two-process ceiling.

    What `python -m benchmarks` records beside its other rows: per file, each row's lines per
    CPU-second and per wall second, and `jobs=2` over `jobs=1` (the median of paired runs).
    """
    files: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="stopkit-batch-bench-") as tmp:
        for name, (providers, length) in PROFILES.items():
            path = Path(tmp) / "results.jsonl"
            generate(path, lines, providers, length)
            found = measure(path, lines, repeats)
            found["speedup"] = statistics.median(found["speedups"])
            files[name] = found
    return {"files": files, "ceiling": ceiling(repeats), "lines": lines, "repeats": repeats}


def table(results: dict[str, Any], meta: dict[str, Any]) -> str:
    """The Markdown table of a run, with the two targets checked."""
    out = [
        f"Run: {meta['date']}, stopkit at `{meta['commit']}`, {meta['lines']:,} lines per file, "
        f"best of {meta['repeats']}; {meta['cpus']} CPUs ({meta['cpu']}), CPython "
        f"{meta['python']}, orjson {meta['orjson']}.",
        "",
        "| file | row | lines/s (wall) | lines per CPU-second | vs orjson parse (CPU) "
        "| load avg before/after |",
        "|---|---|---:|---:|---:|---|",
    ]
    targets = []
    for name, found in results.items():
        rates, cpu_rates = found["rates"], found["cpu_rates"]
        floor = cpu_rates["parse-only floor: orjson.loads"]
        load = "{:.1f} / {:.1f}".format(*found["load"])
        for row, rate in rates.items():
            cpu = cpu_rates[row]
            out.append(
                f"| {name} | {row} | {rate:,.0f} | {cpu:,.0f} | {cpu / floor:.0%} | {load} |"
            )
        speedup = statistics.median(found["speedups"])
        normalized = cpu_rates["orjson.loads + stopkit.normalize(body)"]
        targets.append((name, cpu_rates["stopkit.batch.audit, jobs=1"] / normalized, speedup))
    out += ["", "| target | file | met | measured |", "|---|---|---|---|"]
    for name, share, _ in targets:
        met = "yes" if share >= BATCH_SHARE else "**no**"
        out.append(f"| audit >= {BATCH_SHARE:.0%} of the parse + normalize rate | {name} | {met} "
                   f"| {share:.0%} |")
    for name, _, speedup in targets:
        share = speedup / meta["ceiling"]
        met = "yes" if share >= JOBS_CEILING_SHARE else "**no**"
        out.append(
            f"| jobs=2 >= {JOBS_CEILING_SHARE:.0%} of the two-process ceiling (wall, median of "
            f"{meta['repeats']} paired runs) | {name} | {met} | {share:.0%} ({speedup:.2f}x) |"
        )
    out += [
        "",
        f"For scale, this machine's own ceiling: pure CPU work in two processes runs "
        f"{meta['ceiling']:.2f}x as fast as in one (`ceiling()`, best of {meta['repeats']}).",
    ]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--lines", type=int, default=100_000, help="lines per file")
    parser.add_argument("--repeats", type=int, default=3, help="runs per row (the best counts)")
    parser.add_argument("--write", action="store_true", help="put the table in the README")
    args = parser.parse_args(argv)
    import orjson

    from benchmarks.report import _machine, commit

    started = commit()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="stopkit-batch-bench-") as tmp:
        for name, (providers, length) in PROFILES.items():
            path = Path(tmp) / "results.jsonl"
            generate(path, args.lines, providers, length)
            results[name] = measure(path, args.lines, args.repeats)
            rates = results[name]["cpu_rates"].items()
            print(f"{name}: " + ", ".join(f"{k} {v:,.0f}/cpu-s" for k, v in rates), file=sys.stderr)
    machine = _machine(started)
    meta = {**machine, "lines": args.lines, "repeats": args.repeats,
            "orjson": orjson.__version__, "ceiling": ceiling(args.repeats)}  # fmt: skip
    text = table(results, meta)
    print(text)
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "batch.json").write_text(json.dumps({"meta": meta, "results": results}, indent=2))
    if args.write:
        readme = HERE / "README.md"
        head, rest = readme.read_text().split(START, 1)
        _, tail = rest.split(END, 1)
        readme.write_text(f"{head}{START}\n{text}{END}{tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
