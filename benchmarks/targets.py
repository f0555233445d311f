"""The targets of issue 28, each a ratio of two rows measured side by side in one run.

The absolute targets of the rounds before (`normalize(dict)` <= 5 us, OpenTelemetry <= 30 us
per model call instrumented minus uninstrumented, the batch audit >= 50% of orjson's
parse-only rate) are retired: they could not be met within the house style, and the style
wins. What stays is what a user can see on any machine: stopkit's share of the time around
it (the SDK's own parse, the peers' reading, the OpenTelemetry SDK's floor, the batch's
parse-and-normalize, the machine's own two-process ceiling). Import and memory keep their
targets as they were.
"""

from __future__ import annotations

from typing import Any

__all__ = ["fmt", "fmt_bytes", "targets"]

Row = dict[str, Any]

#: stopkit's reading of a reply, at most this share of the SDK's own parse of the same reply.
SDK_PARSE_SHARE = 0.20
#: stopkit at least this many times faster than each peer's reading of the same reply.
PEER_SPEEDUP = {"litellm": 5.0, "pydantic_ai": 2.0}
#: The loop's overhead per turn, at most this share of each peer framework's.
LOOP_PEER_SHARE = 1 / 20
#: stopkit's own telemetry share over the OpenTelemetry SDK's floor, in seconds.
OTEL_SHARE = {"model call": 30e-6, "tool call": 10e-6}
#: The batch audit's rate, at least this share of parsing and normalizing the same lines.
BATCH_SHARE = 0.60
#: `jobs=2` over `jobs=1`, at least this share of the machine's own two-process ceiling.
JOBS_CEILING_SHARE = 0.85


def _target(name: str, met: bool, measured: str) -> dict[str, Any]:
    return {"target": name, "met": met, "measured": measured}


def _replies(rows: list[Row], by_kind: dict[Any, Row]) -> list[dict[str, Any]]:
    """The share of the SDK's own parse of a reply that normalize takes (dict, SDK object)."""
    shares = []
    for r in rows:
        if r["kind"] not in ("stopkit_dict", "stopkit_sdk"):
            continue
        parse = by_kind.get(("sdk_parse", r["adapter"], r["case"]))
        if parse:
            shares.append((r["median"] / parse["median"], r))
    if not shares:
        return []
    over = [r for share, r in shares if share > SDK_PARSE_SHARE]
    worst_share, worst = max(shares, key=lambda pair: pair[0])
    return [_target(
        f"normalize (dict and SDK object) <= {SDK_PARSE_SHARE:.0%} of the SDK's own parse of "
        "the same reply, every reply", not over,
        f"worst {worst_share:.1%} ({worst['adapter']} {worst['case']}, {worst['name']}); "
        f"{len(over)}/{len(shares)} over",
    )]  # fmt: skip


def _peers(speedups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for peer, key, reads in (
        ("litellm", "litellm_over_stopkit_dict", "the dict"),
        ("pydantic_ai", "pydantic_ai_over_stopkit_sdk", "the SDK object"),
    ):
        if not speedups:
            continue
        want = PEER_SPEEDUP[peer]
        low = min(speedups, key=lambda s: s[key])
        met = sum(s[key] >= want for s in speedups)
        out.append(_target(
            f">= {want:.0f}x faster than {peer.replace('_', '-')}'s reading of the same reply "
            f"({reads}), every reply", low[key] >= want,
            f"lowest {low[key]:.1f}x ({low['adapter']} {low['case']}); "
            f"{met}/{len(speedups)} at >= {want:.0f}x",
        ))  # fmt: skip
    return out


def _streams(rows: list[Row], by_kind: dict[Any, Row]) -> list[dict[str, Any]]:
    streams = [r for r in rows if r["kind"] in ("stream_stopkit_dict", "stream_stopkit_sdk")]
    if not streams:
        return []
    worst = max(streams, key=lambda r: r["median"])
    slower = [
        r for r in streams
        if (sdk := by_kind.get(("stream_sdk", r["adapter"], "stream")))
        and r["median"] > sdk["median"]
    ]  # fmt: skip
    return [
        _target("streams <= 3 us per event", worst["median"] <= 3e-6,
                f"worst {fmt(worst['median'])}/event ({worst['name']})"),
        _target("streams never slower than the SDK's own accumulator", not slower,
                "slower: " + ("; ".join(
                    f"{r['name']} {fmt(r['median'])} vs "
                    f"{fmt(by_kind[('stream_sdk', r['adapter'], 'stream')]['median'])}"
                    for r in slower) or "none")),
    ]  # fmt: skip


def _loop(rows: list[Row], by_kind: dict[Any, Row]) -> list[dict[str, Any]]:
    ours = by_kind.get(("loop_overhead", "", ""))
    peers = [r for r in rows if r["kind"] == "loop_peer"]
    if not (ours and peers):
        return []
    share = 1 / LOOP_PEER_SHARE
    return [_target(
        f"the loop's overhead per turn <= 1/{share:.0f} of each peer framework's",
        all(ours["median"] * share <= r["median"] for r in peers),
        f"stopkit {fmt(ours['median'])}/turn; " + "; ".join(
            f"{r['case']} {fmt(r['median'])}/turn = 1/{r['median'] / ours['median']:.0f}"
            for r in peers),
    )]  # fmt: skip


def _otel(otel: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not otel:
        return []
    best = otel["best"]
    out = []
    for name, limit in OTEL_SHARE.items():
        hooks, floor = best[f"hooks: {name}"], best[f"floor: {name}"]
        share = hooks - floor
        out.append(_target(
            f"OpenTelemetry: stopkit's share over the SDK's floor <= {fmt(limit)} per {name}",
            share <= limit,
            f"{fmt(share)} (stopkit's hooks {fmt(hooks)}, the SDK's floor for the same "
            f"telemetry {fmt(floor)}; CPU time, best of {otel['repeats']})",
        ))  # fmt: skip
    return out


def _batch(batch: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not batch:
        return []
    out = []
    ceiling = batch["ceiling"]
    for name, found in batch["files"].items():
        cpu = found["cpu_rates"]
        share = cpu["stopkit.batch.audit, jobs=1"] / cpu["orjson.loads + stopkit.normalize(body)"]
        out.append(_target(
            f"batch audit >= {BATCH_SHARE:.0%} of the rate of parsing plus normalizing the "
            f"same lines ({name})", share >= BATCH_SHARE,
            f"{share:.0%} (lines per CPU-second)",
        ))  # fmt: skip
    for name, found in batch["files"].items():
        speedup = found["speedup"]
        share = speedup / ceiling
        out.append(_target(
            f"--jobs 2 >= {JOBS_CEILING_SHARE:.0%} of the machine's own two-process ceiling "
            f"({name})", share >= JOBS_CEILING_SHARE,
            f"{share:.0%}: jobs=2 {speedup:.2f}x jobs=1 (wall, median of "
            f"{batch['repeats']} paired runs), ceiling {ceiling:.2f}x",
        ))  # fmt: skip
    return out


def _system(
    imports: dict[str, Any], loaded: list[str], memory: dict[str, Any] | None
) -> list[Row]:
    gap = imports["stopkit"]["median"] - imports["pydantic"]["median"]
    model_gap = imports["stopkit"]["median"] - imports["pydantic.BaseModel"]["median"]
    out = [
        _target(
            "import stopkit <= import pydantic + 40 ms", gap <= 0.040,
            f"stopkit {fmt(imports['stopkit']['median'])}, pydantic "
            f"{fmt(imports['pydantic']['median'])}: +{fmt(gap)} (+{fmt(model_gap)} over "
            f"`from pydantic import BaseModel`, {fmt(imports['pydantic.BaseModel']['median'])})",
        ),
        _target("import stopkit loads no provider SDK and no httpx", not loaded,
                "loaded: " + (", ".join(loaded) if loaded else "none")),
    ]  # fmt: skip
    if memory is not None:  # None: psutil is not installed (the row was skipped, saying why)
        out.append(_target(f"RSS growth <= 5 MB over {memory['count']:,} normalizations",
                           memory["median"] <= 5 * 2**20, fmt_bytes(memory["median"])))
    return out


def _earlier(by_kind: dict[Any, Row]) -> list[dict[str, Any]]:
    """The loop's and the journal's targets of earlier issues, which issue 28 leaves as they are."""
    out = []
    parallel = by_kind.get(("loop_parallel", "", ""))
    if parallel:
        out.append(_target("10 parallel 100 ms tools finish in <= 130 ms",
                           parallel["median"] <= 0.130, fmt(parallel["median"])))
    plain = by_kind.get(("journal_plain", "", ""))
    for kind, label, limit in (("journal_sqlite", "SQLite", 1e-3),
                               ("journal_postgres", "PostgreSQL over loopback", 3e-3)):
        row = by_kind.get((kind, "", ""))
        if plain and row:
            overhead = row["median"] - plain["median"]
            out.append(_target(f"journal overhead per step, {label}, <= {limit * 1e3:.0f} ms "
                               "(median)", overhead <= limit, f"{fmt(overhead)}/step"))
    replay = by_kind.get(("journal_replay", "", ""))
    if replay:
        out.append(_target("replay of a 100-turn run <= 50 ms", replay["median"] <= 0.05,
                           fmt(replay["median"])))
    return out  # fmt: skip


def targets(
    rows: list[Row],
    by_kind: dict[Any, Row],
    speedups: list[dict[str, Any]],
    system: tuple[dict[str, Any], list[str], dict[str, Any] | None],
    otel: dict[str, Any] | None,
    batch: dict[str, Any] | None,
) -> list[dict[str, Any]]:
    """Every target of the run: issue 28's ratios first, then import, memory, the rest."""
    return [
        *_replies(rows, by_kind),
        *_peers(speedups),
        *_streams(rows, by_kind),
        *_loop(rows, by_kind),
        *_otel(otel),
        *_batch(batch),
        *_system(*system),
        *_earlier(by_kind),
    ]


def fmt(seconds: float | None) -> str:
    """A duration with its unit (`3.2 us`, `41 ms`)."""
    if seconds is None:
        return ""
    if seconds < 0:
        return "-" + fmt(-seconds)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def fmt_bytes(n: float) -> str:
    """A size in KiB or MiB."""
    sign = "-" if n < 0 else ""
    n = abs(n)
    if n >= 2**20:
        return f"{sign}{n / 2**20:.2f} MiB"
    return f"{sign}{n / 2**10:.0f} KiB"
