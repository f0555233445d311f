"""A run's rows as a rerun and an operator read them: each step, and the run, checked first.

A row may have been changed by hand, by another program or by a bad disk. Before a run replays
its steps, or `stopkit runs show` prints them, every step is checked: its name is one stopkit
makes (`model_call_<turn>`, `tool_call_<turn>_<slot>`), its request a JSON object, its result
(when it has one) a JSON object of its kind's shape: a model step's `{"reply": ...}` or
`{"events": [...]}` (with `"class"` / `"classes"` where kept), a tool step's `{"content": str,
"is_error": bool, ...}`. A damaged step is a `JournalUnreadable` naming the run and the step,
never a `TypeError` or a `KeyError` from deep inside a replay; nothing is changed. A run's
own row (`run_info`) is checked likewise: a known status, texts and times of their types.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from stopkit.loop.journal._codec import loads
from stopkit.loop.journal._errors import JournalUnreadable
from stopkit.loop.journal._names import step_turn
from stopkit.loop.journal._protocol import Journal, RunInfo, RunStatus, StepRecord
from stopkit.loop.journal._schema import read_text

__all__ = ["Recorded", "damaged", "read_steps", "run_info"]


@dataclass(frozen=True, slots=True)
class Recorded:
    """A recorded step, checked: its row, its kind and turn, its request and result parsed."""

    step: StepRecord
    kind: str
    """`model` or `tool`."""
    turn: int
    request: dict[str, Any]
    result: dict[str, Any] | None
    """None: started, no result yet."""


def damaged(journal: Journal, run_id: str, step: str, why: str) -> JournalUnreadable:
    """Return the error saying that the step `step` of the run `run_id` is damaged: `why`.

    Example:
        >>> str(damaged(journal, "r", "model_call_1", "its result is a list"))  # doctest: +SKIP
        "cannot use runs.db as a stopkit journal: run 'r', step model_call_1: its result is ..."
    """
    return JournalUnreadable(_where(journal), f"run {run_id!r}, step {step}: {why}")


def _where(journal: Journal) -> str:
    return getattr(journal, "where", None) or repr(journal)


def read_steps(
    journal: Journal, run_id: str, steps: Iterable[StepRecord]
) -> dict[str, Recorded]:
    """Return a run's steps by name, in order, each checked (`JournalUnreadable`: damaged)."""
    read: dict[str, Recorded] = {}
    for step in steps:
        name = step.name
        found = step_turn(name)
        if found is None:
            why = f"run {run_id!r}: its step {name!r} is no step stopkit makes"
            raise JournalUnreadable(_where(journal), why)
        kind, turn = found
        try:
            request = _object(step.request, "request")
            result = None if step.result is None else _object(step.result, "result")
            if result is not None:
                (_model_result if kind == "model" else _tool_result)(result)
        except ValueError as exc:
            raise damaged(journal, run_id, name, str(exc)) from None
        read[name] = Recorded(step, kind, turn, request, result)
    return read


def _object(text: Any, what: str) -> dict[str, Any]:
    """Parse a step's request or result: a JSON object, else a `ValueError` saying what it is."""
    if type(text) is not str:
        raise ValueError(f"its {what} is a {type(text).__name__}, not JSON text")
    try:
        value = loads(text)
    except ValueError:
        raise ValueError(f"its {what} is not JSON") from None
    if type(value) is not dict:
        raise ValueError(f"its {what} is a {_kind(value)}, not a JSON object")
    return value


def _kind(value: Any) -> str:
    return {list: "list", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def _model_result(result: dict[str, Any]) -> None:
    """Check a model step's result: a reply, or a stream's events (with their classes)."""
    if "events" in result:
        events, classes = result["events"], result.get("classes")
        if type(events) is not list:
            raise ValueError(f"its events are a {_kind(events)}, not a list")
        if classes is not None and (
            type(classes) is not list
            or len(classes) != len(events)
            or not all(type(name) is str for name in classes)
        ):
            raise ValueError("its events' classes do not match its events")
    elif "reply" not in result:
        raise ValueError("its result holds neither a reply nor a stream's events")
    elif type(result.get("class", "")) is not str:
        raise ValueError("its reply's class is not a name")


def _tool_result(result: dict[str, Any]) -> None:
    """Check a tool step's result: the content the model is sent and its error flag."""
    for key, kind in (("content", str), ("is_error", bool)):
        if key not in result:
            raise ValueError(f"its result has no {key!r}")
        if type(result[key]) is not kind:
            raise ValueError(f"its result's {key!r} is a {_kind(result[key])}")


def run_info(where: str, row: tuple[Any, ...]) -> RunInfo:
    """Return a run's row (the columns `runs()` reads) as a `RunInfo`, checked.

    `JournalUnreadable` names a damaged one: a status stopkit does not know, a text or a time
    of the wrong type.
    """
    run_id, status, termination, detail, owner, until, created, updated, steps = row
    try:
        known = RunStatus(status)
    except ValueError:
        why = f"run {run_id!r}: its status {status!r} is none stopkit knows"
        raise JournalUnreadable(where, why) from None
    texts = {"termination": termination, "detail": detail, "owner": owner}
    times = {"lease_until": until, "created_at": created, "updated_at": updated}
    for column, value in (*texts.items(), *times.items()):
        if value is None and column in ("termination", "owner", "lease_until"):
            continue
        kind = str if column in texts else (int, float)
        if isinstance(value, bool) or not isinstance(value, kind):
            why = f"run {run_id!r}: its {column} is {value!r}"
            raise JournalUnreadable(where, why)
    return RunInfo(
        run_id=run_id,
        status=known,
        termination=termination,
        detail=read_text(detail),
        owner=owner,
        lease_until=None if until is None else float(until),
        created_at=float(created),
        updated_at=float(updated),
        steps=int(steps),
    )
