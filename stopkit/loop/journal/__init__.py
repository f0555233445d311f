"""Durable runs: a journal records every model call and tool call of a run as a named step.

Pass `journal=` and `run_id=` to `run_loop`, `arun_loop` or `Loop`: each model call
(`model_call_<turn>`) and each tool call (`tool_call_<turn>_<slot>`) is recorded before its
result is used. Run the same `run_id` again after a crash and the recorded steps are replayed
(their requests checked: `JournalMismatch` when the code or the prompt changed), without calling
the model or any tool, and the run goes on live from the first step not recorded.

- `SqliteJournal(path)` — the embedded default: one file, standard-library `sqlite3`, WAL.
- `PostgresJournal(dsn)` — for workers on several machines (`pip install 'stopkit[postgres]'`).
- `Journal` — the protocol both follow; `RunInfo`, `StepRecord`, `RunStatus` what they keep.
- `current_step()` — the step being made, for code a call runs (an idempotency key, a span).
- `stopkit.loop.journal.dbos` — the same two step boundaries as DBOS steps in a DBOS workflow.

Example:
    >>> journal = SqliteJournal("runs.db")  # doctest: +SKIP
    >>> outcome = stopkit.run_loop(call_model, prompt, tools=tools, journal=journal,
    ...                            run_id="ticket-4711")  # doctest: +SKIP
"""

import typing as _typing

from stopkit._lazy import exports as _exports

_EXPORTS = {
    "stopkit.loop.journal._sqlite": ("SqliteJournal",),
    "stopkit.loop.journal._postgres": ("PostgresJournal",),
    "stopkit.loop.journal._protocol": ("Journal", "RunInfo", "StepRecord", "RunStatus"),
    "stopkit.loop.journal._names": ("current_step",),
    "stopkit.loop.journal._errors": (
        "JournalError", "JournalMismatch", "JournalTooNew", "JournalUnreadable", "InvalidRunId",
        "RunLocked",
    ),
}  # fmt: skip

if _typing.TYPE_CHECKING:  # generated from _EXPORTS by `python -m tests.test_public_api`
    from stopkit.loop.journal._errors import InvalidRunId as InvalidRunId
    from stopkit.loop.journal._errors import JournalError as JournalError
    from stopkit.loop.journal._errors import JournalMismatch as JournalMismatch
    from stopkit.loop.journal._errors import JournalTooNew as JournalTooNew
    from stopkit.loop.journal._errors import JournalUnreadable as JournalUnreadable
    from stopkit.loop.journal._errors import RunLocked as RunLocked
    from stopkit.loop.journal._names import current_step as current_step
    from stopkit.loop.journal._postgres import PostgresJournal as PostgresJournal
    from stopkit.loop.journal._protocol import Journal as Journal
    from stopkit.loop.journal._protocol import RunInfo as RunInfo
    from stopkit.loop.journal._protocol import RunStatus as RunStatus
    from stopkit.loop.journal._protocol import StepRecord as StepRecord
    from stopkit.loop.journal._sqlite import SqliteJournal as SqliteJournal

__all__, __getattr__, __dir__ = _exports(globals(), _EXPORTS)
