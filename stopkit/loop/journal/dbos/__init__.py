"""DBOS: the loop's model calls and tool calls as DBOS steps inside a DBOS workflow.

For those who already run DBOS (it checkpoints to SQLite or PostgreSQL): call
`stopkit.loop.journal.dbos.run_loop` (or `arun_loop`) inside a `@DBOS.workflow()`. Each model
call runs as the DBOS step `model_call_<turn>` and each tool call as `tool_call_<turn>_<slot>`
(the loop's own step names, `current_step()`); DBOS records what each returned. When DBOS
recovers the workflow after a crash, it runs the workflow function again: the loop drives the
same steps in the same order, and DBOS answers each finished one from its checkpoint, so only
the unfinished work runs. DBOS is the journal here (no `journal=`; the workflow id is the
run id): a model step returns what a journal records of the reply (its JSON body; a
framework's object, a LangChain message or a pydantic-ai response, with its class; a stream
as its events) beside its request's digest, checked on recovery (`JournalMismatch` naming the
step when the prompt or the code changed), and the loop reads that record, rebuilt, live and
on recovery alike: every reply form gives the same `Stop` both times, and one whose record
would read otherwise is refused in its step (`JournalError` naming its form). A tool step
returns what the tool returned (DBOS pickles it) or raises what it raised.

A tool call's timeout (`tool_timeout=`, the `deadline`) runs inside its step: a call past it
ends its step with the timeout, which is what a recovery replays (the tool is not run again,
and a result it gives later is not kept). The workflow id is the run id of one loop: a second
loop in the same workflow needs a `run_id=` of its own (stable across recoveries), else it is
refused (`JournalError`) before its first model call, so no two loops share idempotency keys.

Limits: DBOS runs a step at least once, so `stopkit.tool(idempotent=False)` cannot stop the
run as a journal does: give such a tool an `idempotency_key` parameter (stable across
recoveries). A stream is read to its end inside its step (the text deltas arrive then). In
`arun_loop` a sync tool's step starts on the event loop (it runs in DBOS's threads), so the
steps of a turn's calls are numbered in the calls' order, at every recovery too. Needs
`pip install 'stopkit[dbos]'`; DBOS is imported only when a call is made.

Example:
    >>> from dbos import DBOS  # doctest: +SKIP
    >>> from stopkit.loop.journal import dbos as durable  # doctest: +SKIP
    >>> @DBOS.workflow()  # doctest: +SKIP
    ... def support_agent(question: str) -> str:
    ...     return durable.run_loop(call_model, question, tools=TOOLS).text
"""

import typing as _typing

from stopkit._lazy import exports as _exports

_EXPORTS = {
    "stopkit.loop.journal.dbos._loop": ("run_loop", "arun_loop"),
    "stopkit.loop.journal.dbos._steps": ("model_steps", "tool_steps"),
}  # fmt: skip

if _typing.TYPE_CHECKING:  # generated from _EXPORTS by `python -m tests.test_public_api`
    from stopkit.loop.journal.dbos._loop import arun_loop as arun_loop
    from stopkit.loop.journal.dbos._loop import run_loop as run_loop
    from stopkit.loop.journal.dbos._steps import model_steps as model_steps
    from stopkit.loop.journal.dbos._steps import tool_steps as tool_steps

__all__, __getattr__, __dir__ = _exports(globals(), _EXPORTS)
