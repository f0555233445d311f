"""The report for people (a table per model, then the ids that need a look) and for machines.

Both writers stream the ids from the report's spill, so even `--json` on a million lines keeps
memory flat.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import islice
from typing import Any, TextIO

from stopkit._json import strict_parser
from stopkit.batch import _tokens
from stopkit.batch._record import RequestOutcome
from stopkit.batch._report import Group, Report, failing, needs_review

__all__ = ["SKIP_CAUSES", "render_text", "write_json"]

#: Why a line that could be resubmitted was not, in words.
SKIP_CAUSES = {
    "at_cap": "its ceiling is already at the cap (the model's known maximum, or --max-tokens-cap)",
    "no_ceiling": "the request set no ceiling, so the model's own maximum applied already",
    "no_ceiling_field": "stopkit knows no ceiling field in this request's shape",
    "budget_not_below_ceiling": "--reasoning-budget is not below the request's ceiling",
    "no_budget_field": "this request has no reasoning budget to lower",
    "same_budget": "the request has this --reasoning-budget already (and no room to raise)",
    "no_request": "no request line to resubmit (not in --input, or not echoed)",
}
_SHOWN_IDS = 5


def _n(value: int) -> str:
    return f"{value:,}"


def _models(report: Report) -> dict[str | None, list[tuple[Group, int]]]:
    models: dict[str | None, list[tuple[Group, int]]] = {}
    for group, n in report.groups:
        models.setdefault(group.model, []).append((group, n))
    return models


def _overall(report: Report) -> list[tuple[Group, int]]:
    merged: dict[Group, int] = {}
    for group, n in report.counts.items():
        key = group._replace(model=None)
        merged[key] = merged.get(key, 0) + n
    return sorted(merged.items(), key=lambda item: item[0].sort_key())


def exit_status(report: Report) -> int:
    """1 when some line is unknown, errored or unreadable (as `stopkit normalize`), else 0.

    Example:
        >>> sys.exit(exit_status(report))  # doctest: +SKIP
    """
    return int(any(failing(g) for g in report.counts))


def render_text(report: Report, out: TextIO) -> None:
    """Write the human report: a table per model and overall, then the ids needing a look.

    Percentages are of the section's lines (a model's, or all of them).

    Example:
        >>> render_text(stopkit.batch.audit(["results.jsonl"]), sys.stdout)  # doctest: +SKIP
    """
    formats = ", ".join(f"{name} {_n(n)}" for name, n in sorted(report.formats.items()))
    files = len(report.files)
    head = f"stopkit batch: {files} file{'s' * (files != 1)}, {_n(report.lines)} lines"
    out.write(head + (f" ({formats})" if formats else "") + "\n")
    models = _models(report)
    _render_counts(report, models, out)
    _render_tokens(report, models, out)
    _render_review(report, models, out)
    _render_resubmission(report, out)


def _render_counts(report: Report, models: dict[str | None, Any], out: TextIO) -> None:
    """A table of the groups per model (and overall, with several), with each one's share."""
    width = max([24, *(len(g.label) + 2 for g in report.counts)])
    sections = [(model or "(no model)", rows) for model, rows in models.items()]
    if len(models) > 1:
        sections.append(("all models", _overall(report)))
    for title, rows in sections:
        total = sum(n for _, n in rows) or 1
        out.write(f"\n{title:<{width}} {'lines':>11} {'%':>6}\n")
        for group, n in rows:
            label = f"  {group.label}"
            out.write(f"{label:<{width}} {_n(n):>11} {100 * n / total:>6.1f}\n")


def _render_review(report: Report, models: dict[str | None, Any], out: TextIO) -> None:
    """The groups that need a look, each with its first ids."""
    review = [(g, n) for g, n in report.groups if needs_review(g)]
    if not review:
        return
    out.write("\nneeds a look (first ids; --json lists them all)\n")
    for group, n in review:
        shown = ", ".join(islice(report.ids(group), _SHOWN_IDS))
        more = f", ... +{_n(n - _SHOWN_IDS)} more" if n > _SHOWN_IDS else ""
        model = f"{group.model}: " if group.model and len(models) > 1 else ""
        out.write(f"  {model}{group.label} ({_n(n)}): {shown}{more}\n")


_TOKEN_COLUMNS = (
    ("input_tokens", "input"),
    ("output_tokens", "output"),
    ("reasoning_tokens", "reasoning"),
    ("cache_read_tokens", "cache read"),
    ("cache_write_tokens", "cache write"),
)


def _token_row(title: str, sums: dict[str, int | None], width: int) -> str:
    cells = "".join(
        f" {'-' if sums[name] is None else _n(sums[name] or 0):>13}" for name, _ in _TOKEN_COLUMNS
    )
    return f"{title:<{width}}{cells}\n"


def _render_tokens(report: Report, models: dict[str | None, Any], out: TextIO) -> None:
    overall = report.token_totals()
    if overall is None:
        return
    title = "tokens (as each provider counts)"
    width = max([len(title) + 1, *(len(str(m)) + 3 for m in models)])
    heads = "".join(f" {head:>13}" for _, head in _TOKEN_COLUMNS)
    out.write(f"\n{title:<{width}}{heads}\n")
    for model in models:
        sums = report.token_totals(model=model)
        if sums is not None:
            out.write(_token_row(f"  {model or '(no model)'}", sums, width))
    if len(models) > 1:
        out.write(_token_row("  all models", overall, width))
    redo = report.token_totals(redo=True)
    if redo is not None:
        out.write(_token_row("  spent on replies to redo", redo, width))
    unreported = report.count(outcome=RequestOutcome.REPLIED) - (overall["lines"] or 0)
    if unreported:
        out.write(f"  ({_n(unreported)} replies reported no usage)\n")


def _render_resubmission(report: Report, out: TextIO) -> None:
    done = report.resubmission
    if done is None:
        return
    written = sum(done.written.values())
    out.write(f"\nresubmit: {_n(written)} requests written to {done.out}")
    out.write(f" (new id -> old id: {done.mapping})\n" if written else "\n")
    for action, n in sorted(done.written.items()):
        out.write(f"  {action:<28} {_n(n):>11}\n")
    for cause, n in sorted(done.skipped.items()):
        shown = ", ".join(islice(report.skipped_ids(cause), _SHOWN_IDS))
        more = f", ... +{_n(n - _SHOWN_IDS)} more" if n > _SHOWN_IDS else ""
        out.write(f"  not resubmitted ({_n(n)}): {SKIP_CAUSES[cause]}: {shown}{more}\n")


def _group_json(group: Group, n: int, tokens: Any = None) -> dict[str, Any]:
    return {
        "outcome": group.outcome.value,
        "reason": None if group.reason is None else group.reason.value,
        "detail": group.detail,
        "label": group.label,
        "lines": n,
        "tokens": tokens,
    }


def _json_list(items: Iterator[str], out: TextIO) -> None:
    out.write("[")
    for i, item in enumerate(items):
        out.write(("," if i else "") + json.dumps(item, ensure_ascii=False))
    out.write("]")


def write_json(report: Report, out: TextIO) -> None:
    """Write the report as one JSON document, every group's ids included (streamed).

    Example:
        >>> with open("report.json", "w") as out:  # doctest: +SKIP
        ...     write_json(report, out)
    """
    head = {
        "files": report.files,
        "lines": report.lines,
        "formats": report.formats,
        "parser": strict_parser(),
        "exit_status": exit_status(report),
        "overall": [
            _group_json(
                g, n, report.token_totals(outcome=g.outcome, reason=g.reason, detail=g.detail)
            )
            for g, n in _overall(report)
        ],
        "tokens": report.token_totals(),
        "tokens_to_redo": report.token_totals(redo=True),
    }
    out.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "models": [')
    for i, (model, rows) in enumerate(_models(report).items()):
        lines = sum(n for _, n in rows)
        tokens = report.token_totals(model=model)
        head = {"model": model, "lines": lines, "tokens": tokens}
        out.write(("," if i else "") + json.dumps(head)[:-1])
        out.write(', "groups": [')
        for j, (group, n) in enumerate(rows):
            body = _group_json(group, n, _tokens.as_dict(report.tokens.get(group)))
            out.write(("," if j else "") + json.dumps(body)[:-1] + ', "ids": ')
            _json_list(report.ids(group), out)
            out.write("}")
        out.write("]}")
    out.write('], "resubmit": ')
    done = report.resubmission
    if done is None:
        out.write("null")
    else:
        body = {"out": done.out, "mapping": done.mapping, "written": done.written}
        out.write(json.dumps(body)[:-1] + ', "skipped": {')
        for i, (cause, n) in enumerate(sorted(done.skipped.items())):
            out.write(("," if i else "") + f'"{cause}": {{"lines": {n}, "ids": ')
            _json_list(report.skipped_ids(cause), out)
            out.write("}")
        out.write("}}")
    out.write("}\n")
