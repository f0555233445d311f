"""Turn pyperf's results into the table, the JSON result and the targets check."""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmarks import system
from benchmarks.cases import Case
from benchmarks.replies import ADAPTERS, REPLIES
from benchmarks.targets import fmt as _fmt
from benchmarks.targets import fmt_bytes as _fmt_bytes
from benchmarks.targets import targets

__all__ = ["build_report", "write_outputs"]

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "latest.json"
README = HERE / "README.md"
START, END = "<!-- table:start -->", "<!-- table:end -->"

DISTRIBUTIONS = ("stopkit", "pydantic", "pydantic-core", "anthropic", "openai", "google-genai",
                 "litellm", "pydantic-ai-slim", "openai-agents", "pyperf", "psutil")


def commit() -> str:
    """Return `git describe --always --dirty` for the checkout being measured."""
    import subprocess

    try:
        return subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True, text=True,
            cwd=HERE.parent, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _machine(started_at: str) -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for name in DISTRIBUTIONS:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    ended_at = commit()
    return {
        # Workers import stopkit afresh per row: a commit landing mid-run shows as two values.
        "commit": started_at if started_at == ended_at else f"{started_at} .. {ended_at}",
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "versions": versions,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def _stats(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def _row(case: Case, bench: Any) -> dict[str, Any]:
    values = list(bench.get_values())
    return {
        "group": case.group, "name": case.name, "call": case.call, "kind": case.kind,
        "adapter": case.adapter, "case": case.case, "unit": "s", "n_values": len(values),
        "per": "event" if case.kind.startswith("stream") else
        ("turn" if case.kind in ("loop_overhead", "loop_peer") else
         "step" if case.kind in ("journal_plain", "journal_sqlite", "journal_postgres") else
         "call"),
        **_stats(values),
    }


def build_report(
    cases: list[Case], results: dict[str, Any], *, quick: bool, started_at: str = "unknown"
) -> dict[str, Any]:
    """Collect every row, add import and memory rows, ratios, speed-ups and the targets."""
    rows = [_row(case, results[case.name]) for case in cases if case.name in results]
    by_kind = {(r["kind"], r["adapter"], r["case"]): r for r in rows}
    floors = [r["median"] for r in rows if r["kind"] == "floor"]
    typical_floor = statistics.median(floors) if floors else float("nan")
    for r in rows:
        floor = by_kind.get(("floor", r["adapter"], r["case"]))
        if r["group"] == "replies" and floor:
            r["ratio"], r["ratio_to"] = r["median"] / floor["median"], "floor (same reply)"
        elif r["group"] == "reference":  # a plain object, a bare Stop, model_construct
            r["ratio"], r["ratio_to"] = r["median"] / typical_floor, "median floor"
        elif r["group"] == "streams":
            sdk = by_kind.get(("stream_sdk", r["adapter"], "stream"))
            if sdk and r["kind"] != "stream_sdk":
                r["ratio"], r["ratio_to"] = r["median"] / sdk["median"], "SDK accumulator"
            else:
                r["ratio"], r["ratio_to"] = r["median"] / typical_floor, "median floor"
        elif r["kind"] == "loop_peer" and (ours := by_kind.get(("loop_overhead", "", ""))):
            r["ratio"], r["ratio_to"] = r["median"] / ours["median"], "stopkit loop per turn"
        elif r["kind"] == "loop_parallel":
            r["ratio"], r["ratio_to"] = r["median"] / 0.1, "one 100 ms tool"
        else:
            r["ratio"], r["ratio_to"] = r["median"] / typical_floor, "median floor"

    repeats = 10 if quick else 20
    imports = system.import_times(repeats)
    pydantic_median = imports["pydantic"]["median"]
    for module, stats in imports.items():
        statement = system.IMPORTS[module]
        rows.append({
            "group": "import", "name": f"{statement} (fresh interpreter, {repeats} runs)",
            "call": f"python -c '{statement}' (timed inside the interpreter)",
            "kind": "import", "adapter": "", "case": module, "unit": "s", "per": "import",
            "n_values": len(stats["values"]), "median": stats["median"], "min": stats["min"],
            "max": stats["max"], "ratio": stats["median"] / pydantic_median,
            "ratio_to": "import pydantic",
        })
    loaded = system.import_check()
    count, mem_repeats = (100_000, 3) if quick else (1_000_000, 3)
    memory = system.memory_growth(count, mem_repeats)
    if memory is not None:
        rows.append({
            "group": "memory", "name": f"RSS growth over {count:,} normalizations "
            f"(19 replies in turn, {mem_repeats} fresh interpreters)",
            "call": "psutil.Process().memory_info().rss after - before", "kind": "memory",
            "adapter": "", "case": "", "unit": "B", "per": "run", "n_values": mem_repeats,
            "median": memory["median"], "min": memory["min"], "max": memory["max"],
            "ratio": None, "ratio_to": "",
        })

    side = _side_rows(rows, quick)
    speedups = _speedups(by_kind)
    report = {
        "answers": peer_answers(),
        "mode": "quick" if quick else "full",
        "harness": "pyperf " + metadata.version("pyperf")
        + (" (--in-process, 1x3 values)" if quick else " (3 worker processes x 4 values)"),
        "machine": _machine(started_at),
        "rows": rows,
        "speedups": speedups,
        "import_check": {"loaded_by_import_stopkit": loaded},
        "otel": side["otel"],
        "batch": side["batch"],
    }
    report["targets"] = targets(
        rows, by_kind, speedups, (imports, loaded, memory), side["otel"], side["batch"]
    )
    return report


def _side_rows(rows: list[dict[str, Any]], quick: bool) -> dict[str, Any]:
    """Measure telemetry and the batch audit in this process, and add their rows.

    Neither is one call in a loop: telemetry is the loop's hooks beside the OpenTelemetry
    SDK's own floor (CPU time, the two interleaved, best of R), the batch audit a whole file
    per run beside parsing and normalizing the same lines (benchmarks/otel.py, batch.py).
    """
    from benchmarks import batch, otel

    found: dict[str, Any] = {"otel": None, "batch": None}
    try:
        repeats = 3 if quick else 5
        found["otel"] = {**otel.measure(repeats), "repeats": repeats}
    except ImportError as exc:  # the OpenTelemetry SDK is not installed
        print(f"telemetry rows skipped: {exc}", file=sys.stderr)
    else:
        for name, value in found["otel"]["best"].items():
            per = "run" if name.startswith("run") else name.split(": ")[1]
            rows.append(_side_row("otel", f"telemetry: {name} (CPU, best of {repeats})",
                                  "benchmarks.otel.measure", value, per))
    lines = 100_000  # fewer, and jobs=2 times its worker's start more than its work
    found["batch"] = batch.measure_files(lines, 3)
    for name, measured in found["batch"]["files"].items():
        floor = measured["cpu_rates"]["orjson.loads + stopkit.normalize(body)"]
        for row, rate in measured["cpu_rates"].items():
            rows.append({**_side_row("batch", f"{name}: {row} (per line, CPU)",
                                     "benchmarks.batch.measure_files", 1 / rate, "line"),
                         "ratio": floor / rate, "ratio_to": "parse + normalize"})
    return found


def _side_row(group: str, name: str, call: str, value: float, per: str) -> dict[str, Any]:
    return {
        "group": group, "name": name, "call": call, "kind": group, "adapter": "", "case": "",
        "unit": "s", "per": per, "n_values": 1, "median": value, "min": value, "max": value,
        "ratio": None, "ratio_to": "",
    }  # fmt: skip


def _calls(n: int) -> str:
    return "" if not n else f" ({n} tool call{'' if n == 1 else 's'})"


def _litellm_answer(result: Any) -> str:
    if isinstance(result, Exception):
        return f"raises {type(result).__name__}"
    choice = result.choices[0]
    return f"{choice.finish_reason}{_calls(len(choice.message.tool_calls or ()))}"


def _pydantic_ai_answer(result: Any) -> str:
    if isinstance(result, Exception):
        return f"raises {type(result).__name__}"
    calls = sum(type(part).__name__ == "ToolCallPart" for part in result.parts)
    return f"{result.finish_reason}{_calls(calls)}"


def peer_answers() -> list[dict[str, str]]:
    """What stopkit, LiteLLM and pydantic-ai each make of every timed reply (one call each)."""
    import stopkit
    from benchmarks.cases import SDK_MODULE, litellm_work, needs, pydantic_ai_work

    out = []
    for adapter in ADAPTERS:
        lite, pai = needs("litellm")(), needs("pydantic_ai", SDK_MODULE[adapter])()
        for case, reply in REPLIES[adapter].items():
            stop = stopkit.normalize(reply.body)
            out.append({
                "adapter": adapter, "case": case,
                "stopkit": f"{stop.reason.value}{_calls(len(stop.tool_calls))}",
                "litellm": lite or _litellm_answer(litellm_work(adapter, reply.body)()),
                "pydantic_ai": pai
                or _pydantic_ai_answer(pydantic_ai_work(adapter, reply.body)()),
            })  # a peer not installed: what is missing, instead of its answer
    return out


def _speedups(by_kind: dict[Any, dict[str, Any]]) -> list[dict[str, Any]]:
    """Peer time over stopkit's comparable row: LiteLLM vs the dict, pydantic-ai vs SDK object."""
    out = []
    for adapter in ADAPTERS:
        for case in REPLIES[adapter]:
            sk_dict = by_kind.get(("stopkit_dict", adapter, case))
            sk_sdk = by_kind.get(("stopkit_sdk", adapter, case))
            lite = by_kind.get(("litellm", adapter, case))
            pai = by_kind.get(("pydantic_ai", adapter, case))
            parse = by_kind.get(("sdk_parse", adapter, case))
            if not (sk_dict and sk_sdk and lite and pai and parse):
                continue
            out.append({
                "adapter": adapter, "case": case,
                "litellm_over_stopkit_dict": lite["median"] / sk_dict["median"],
                "pydantic_ai_over_stopkit_sdk": pai["median"] / sk_sdk["median"],
                # pydantic-ai only ever reads an SDK object, which its client parsed from the
                # body: its whole cost from the body that stopkit reads as a dict.
                "pydantic_ai_from_body_over_stopkit_dict":
                    (parse["median"] + pai["median"]) / sk_dict["median"],
            })
    return out


def _cell(row: dict[str, Any], key: str) -> str:
    return _fmt_bytes(row[key]) if row["unit"] == "B" else _fmt(row[key])


def render(report: dict[str, Any]) -> str:
    """Return the report as Markdown: machine, the table, speed-ups, targets, exact calls."""
    m = report["machine"]
    v = m["versions"]
    lines = [
        f"Run: {m['date']}, stopkit at `{m['commit']}`, mode **{report['mode']}**, "
        f"harness {report['harness']}.",
        "",
        f"Machine: {m['cpu']}, {m['cpus']} CPUs, {m['os']}; {m['implementation']} "
        f"{m['python']}.",
        "",
        "Versions: " + ", ".join(f"{k} {val}" for k, val in v.items()) + ".",
        "",
        "| group | row | per | median | min | max | ratio |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for r in report["rows"]:
        ratio = "" if r.get("ratio") is None else f"{r['ratio']:.2f}x {r['ratio_to']}"
        lines.append(
            f"| {r['group']} | {r['name']} | {r['per']} | {_cell(r, 'median')} | "
            f"{_cell(r, 'min')} | {_cell(r, 'max')} | {ratio} |"
        )
    lines += ["", "Peers over stopkit (median over median; LiteLLM reads the dict, pydantic-ai "
              "the SDK object, so each is set against stopkit's same input; the last column "
              "adds the SDK parse pydantic-ai's client does before `_process_response`, "
              "against stopkit reading the body itself):", "",
              "| reply | LiteLLM / stopkit.normalize(dict) | "
              "pydantic-ai / stopkit.normalize(SDK object) | "
              "(SDK parse + pydantic-ai) / stopkit.normalize(dict) |", "|---|---:|---:|---:|"]
    for s in report["speedups"]:
        lines.append(f"| {s['adapter']} {s['case']} | {s['litellm_over_stopkit_dict']:.1f}x | "
                     f"{s['pydantic_ai_over_stopkit_sdk']:.1f}x | "
                     f"{s['pydantic_ai_from_body_over_stopkit_dict']:.1f}x |")
    answers = report.get("answers")
    if answers:
        lines += ["", "What each says about the same reply (stopkit's `Stop.reason`; LiteLLM's "
                  "`choices[0].finish_reason`; pydantic-ai's `ModelResponse.finish_reason`; "
                  "with the tool calls each returned; a raise is named):", "",
                  "| reply | stopkit | LiteLLM | pydantic-ai |", "|---|---|---|---|"]
        for a in answers:
            lines.append(f"| {a['adapter']} {a['case']} | {a['stopkit']} | {a['litellm']} | "
                         f"{a['pydantic_ai']} |")
    lines += ["", "Targets (issue 28: ratios measured side by side in this run; import and "
              "memory as before):", "", "| target | met | measured |", "|---|---|---|"]
    for t in report["targets"]:
        lines.append(f"| {t['target']} | {'yes' if t['met'] else '**no**'} | {t['measured']} |")
    lines += ["", "Exact calls timed:", ""]
    seen = set()
    for r in report["rows"]:
        key = (r["kind"], r["adapter"], r["name"] if r["group"] == "reference" else "")
        if key in seen:
            continue
        seen.add(key)
        label = f"{r['adapter']} " if r["adapter"] else ""
        lines.append(f"- {label}{r['kind']}: `{r['call']}`")
    return "\n".join(lines) + "\n"


def write_outputs(report: dict[str, Any], *, quick: bool) -> None:
    """Print the table, write results/latest.json, and (full runs) the README's table."""
    text = render(report)
    print()
    print(text)
    path = RESULTS.with_name("quick.json") if quick else RESULTS  # a smoke run never replaces
    path.parent.mkdir(parents=True, exist_ok=True)  # the latest full result
    path.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"wrote {path.relative_to(HERE.parent)}")
    if quick:
        print("quick run: benchmarks/README.md left as it is (only a full run updates it)")
        return
    readme = README.read_text() if README.exists() else f"{START}\n{END}\n"
    head, _, rest = readme.partition(START)
    _, _, tail = rest.partition(END)
    README.write_text(f"{head}{START}\n{text}{END}{tail}")
    print(f"wrote the table into {README.relative_to(HERE.parent)}")
