"""The reason x provider table, generated from the adapters' own mapping tables.

The README embeds its output between markers, and a test checks they agree, so the documented
mapping can never drift from the code. `stopkit table` prints it.
"""

from __future__ import annotations

from collections.abc import Mapping

from stopkit._registry import _BUILTIN, get_adapter
from stopkit._stop import StopReason

__all__ = ["reason_table"]

Table = Mapping[str, tuple[StopReason, str | None]]


def _tables(adapter: object) -> Mapping[str, Table]:
    tables: Mapping[str, Table] = getattr(adapter, "tables", {})
    return tables


def _matrix(names: list[str]) -> list[str]:
    lines = [
        "| reason | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for reason in StopReason:
        cells = []
        for name in names:
            groups = []
            for position, (title, table) in enumerate(_tables(get_adapter(name)).items()):
                raws = ", ".join(_code(raw) for raw, (got, _) in table.items() if got is reason)
                if raws:
                    # The first table is the stop field itself; others are named by their field.
                    groups.append(raws if position == 0 else f"{title.split()[0]}: {raws}")
            cells.append("; ".join(groups) or "—")
        lines.append(f"| `{reason.value}` | " + " | ".join(cells) + " |")
    return lines


def _code(raw: str) -> str:
    return f"`{raw}`" if raw else '`""`'


def _detail_rows(name: str) -> list[str]:
    adapter = get_adapter(name)
    lines = [f"**`{name}`**", "", "| field | raw value | reason | detail |", "|---|---|---|---|"]
    for title, table in _tables(adapter).items():
        for raw, (reason, detail) in table.items():
            lines.append(f"| `{title}` | {_code(raw)} | `{reason.value}` | {detail or ''} |")
    notes: tuple[str, ...] = getattr(adapter, "stream_notes", ())
    if notes:
        lines.append("")
        lines.extend(f"- Streaming: {note}" for note in notes)
    lines.append("")
    return lines


def reason_table() -> str:
    """Return the Markdown reason x provider table of the built-in adapters.

    Values not in these tables never map to a known reason: they are `unknown`, with the raw
    value kept. The reconciliation rules (tool calls present, refusals, truncated calls) apply
    on top of the tables.

    Example:
        >>> print(reason_table())  # doctest: +SKIP
    """
    names = [name for name in _BUILTIN if _available(name)]
    lines = _matrix(names)
    lines += ["", "<details><summary>Every raw value, per adapter</summary>", ""]
    for name in names:
        lines += _detail_rows(name)
    lines += ["</details>", ""]
    return "\n".join(lines)


def _available(name: str) -> bool:
    try:
        get_adapter(name)
    except LookupError:
        return False
    return True
