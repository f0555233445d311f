"""The reason x provider table, generated from the adapters' own mapping tables.

The docs embed its parts between markers (the matrix on the providers page, each adapter's rows
on its own page), and a test checks they agree, so the documented mapping can never drift from
the code. `stopkit table` prints the whole of it.
"""

from __future__ import annotations

from collections.abc import Mapping

from stopkit._registry import _BUILTIN, get_adapter
from stopkit._stop import StopReason

__all__ = ["adapter_table", "builtin_names", "reason_matrix", "reason_table"]

Table = Mapping[str, tuple[StopReason, str | None]]


def _tables(adapter: object) -> Mapping[str, Table]:
    tables: Mapping[str, Table] = getattr(adapter, "tables", {})
    return tables


def reason_matrix(names: list[str] | None = None) -> str:
    """Return the Markdown matrix of reasons (rows) x adapters (columns): the raw values of each.

    Example:
        >>> reason_matrix(["anthropic"]).splitlines()[2]
        '| `tool_request` | `tool_use` |'
    """
    names = builtin_names() if names is None else names
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
    return "\n".join(lines) + "\n"


def _code(raw: str) -> str:
    return f"`{raw}`" if raw else '`""`'


def adapter_table(name: str) -> str:
    """Return one adapter's rows: every raw value it maps, by field, then its streaming notes.

    Example:
        >>> adapter_table("ollama").splitlines()[2]
        '| `done_reason` | `stop` | `completed` |  |'
    """
    adapter = get_adapter(name)
    lines = ["| field | raw value | reason | detail |", "|---|---|---|---|"]
    for title, table in _tables(adapter).items():
        for raw, (reason, detail) in table.items():
            lines.append(f"| `{title}` | {_code(raw)} | `{reason.value}` | {detail or ''} |")
    notes: tuple[str, ...] = getattr(adapter, "stream_notes", ())
    if notes:
        lines.append("")
        lines.extend(f"- Streaming: {note}" for note in notes)
    return "\n".join(lines) + "\n"


def reason_table() -> str:
    """Return the Markdown reason x provider table of the built-in adapters.

    Values not in these tables never map to a known reason: they are `unknown`, with the raw
    value kept. The reconciliation rules (tool calls present, refusals, truncated calls) apply
    on top of the tables.

    Example:
        >>> print(reason_table())  # doctest: +SKIP
    """
    names = builtin_names()
    parts = [reason_matrix(names), "<details><summary>Every raw value, per adapter</summary>\n"]
    parts += [f"**`{name}`**\n\n{adapter_table(name)}" for name in names]
    parts.append("</details>\n")
    return "\n".join(parts)


def builtin_names() -> list[str]:
    """Return the names of the built-in adapters that load here, in detection order.

    Example:
        >>> builtin_names()[:2]
        ['anthropic', 'litellm']
    """
    return [name for name in _BUILTIN if _available(name)]


def _available(name: str) -> bool:
    try:
        get_adapter(name)
    except LookupError:
        return False
    return True
