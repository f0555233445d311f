"""Batch results: why every request of a provider batch stopped, and the follow-up batch.

Reads the results files of OpenAI's Batch API, Anthropic's Message Batches, the Gemini Batch
API, Vertex AI batch prediction and Bedrock batch inference, line by line in constant memory,
with stopkit's adapters; writes a ready-to-upload request file for the lines that deserve
another try. The per-line function `audit_line` is pure, so the work also runs on a process
pool (`audit(..., jobs=N)`) or a distributed engine (examples/batch_dask.py).

Example:
    >>> from stopkit import batch
    >>> report = batch.audit(["batch_output.jsonl"])  # doctest: +SKIP
    >>> batch.resubmit(report, "retry.jsonl", inputs=["batch_input.jsonl"])  # doctest: +SKIP
"""

import typing as _typing

from stopkit._lazy import exports as _exports
from stopkit._moved import BATCH as _MOVED

# Imported on first use: `stopkit batch --help` needs none of it.
_EXPORTS = {
    "stopkit.batch._audit": ("audit", "audit_chunk"),
    "stopkit.batch._resubmit": ("resubmit", "Resubmission", "check_input"),
    "stopkit.batch._plan": ("ResubmitOptions",),
    "stopkit.batch._report": ("Report", "Group", "Entry"),
    "stopkit.batch._record": ("RequestOutcome", "Record"),
    "stopkit.batch._lines": ("split", "Chunk", "audit_line", "results_files"),
    "stopkit.batch._render": ("render_text", "write_json", "exit_status"),
    "stopkit.batch._errors": ("BatchUsageError",),
}  # fmt: skip

if _typing.TYPE_CHECKING:  # generated from _EXPORTS by `python -m tests.test_public_api`
    from stopkit.batch._audit import audit as audit
    from stopkit.batch._audit import audit_chunk as audit_chunk
    from stopkit.batch._errors import BatchUsageError as BatchUsageError
    from stopkit.batch._lines import Chunk as Chunk
    from stopkit.batch._lines import audit_line as audit_line
    from stopkit.batch._lines import results_files as results_files
    from stopkit.batch._lines import split as split
    from stopkit.batch._plan import ResubmitOptions as ResubmitOptions
    from stopkit.batch._record import Record as Record
    from stopkit.batch._record import RequestOutcome as RequestOutcome
    from stopkit.batch._render import exit_status as exit_status
    from stopkit.batch._render import render_text as render_text
    from stopkit.batch._render import write_json as write_json
    from stopkit.batch._report import Entry as Entry
    from stopkit.batch._report import Group as Group
    from stopkit.batch._report import Report as Report
    from stopkit.batch._resubmit import Resubmission as Resubmission
    from stopkit.batch._resubmit import check_input as check_input
    from stopkit.batch._resubmit import resubmit as resubmit

__all__, __getattr__, __dir__ = _exports(globals(), _EXPORTS, _MOVED)
