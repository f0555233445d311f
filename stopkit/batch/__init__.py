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

import warnings
from typing import TYPE_CHECKING

from stopkit._lazy import lazy_exports

if TYPE_CHECKING:  # imported on first use below: `stopkit batch --help` needs none of it
    from stopkit.batch._audit import audit, audit_chunk
    from stopkit.batch._errors import BatchUsageError
    from stopkit.batch._lines import Chunk, audit_line, results_files, split
    from stopkit.batch._plan import ResubmitOptions
    from stopkit.batch._record import Record, RequestOutcome
    from stopkit.batch._render import exit_status, render_text, write_json
    from stopkit.batch._report import Entry, Group, Report
    from stopkit.batch._resubmit import Resubmission, check_input, resubmit

__all__ = [
    "BatchUsageError",
    "Chunk",
    "Entry",
    "Group",
    "Record",
    "Report",
    "RequestOutcome",
    "Resubmission",
    "ResubmitOptions",
    "audit",
    "audit_chunk",
    "audit_line",
    "check_input",
    "exit_status",
    "render_text",
    "resubmit",
    "results_files",
    "split",
    "write_json",
]

_LAZY_MODULES: dict[str, tuple[str, ...]] = {  # module -> the names it exports
    "_audit": ("audit", "audit_chunk"),
    "_errors": ("BatchUsageError",),
    "_lines": ("Chunk", "audit_line", "results_files", "split"),
    "_plan": ("ResubmitOptions",),
    "_record": ("Record", "RequestOutcome"),
    "_render": ("exit_status", "render_text", "write_json"),
    "_report": ("Entry", "Group", "Report"),
    "_resubmit": ("Resubmission", "check_input", "resubmit"),
}
_exported, __dir__ = lazy_exports(__name__, _LAZY_MODULES, globals())
# Old spelling -> new, kept one release (CHANGELOG, "Moved"): `Outcome` is the loop's word.
_MOVED = {"Outcome": "RequestOutcome"}


def __getattr__(name: str) -> object:
    """Serve the exported names on first use, and a moved name with a DeprecationWarning."""
    new = _MOVED.get(name)
    if new is None:
        return _exported(name)
    warnings.warn(
        f"stopkit.batch.{name} is now stopkit.batch.{new}; the old name goes in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return _exported(new)
