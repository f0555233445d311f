"""Auditing whole results files: chunks in this process or in a pool of processes.

The work is `read_chunk` (a line in, a record out) folded into a `Report` per chunk; reports
merge. The same two functions run on a distributed engine (examples/batch_dask.py).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from itertools import repeat

from stopkit.batch._lines import Chunk, read_chunk, split
from stopkit.batch._report import Report

__all__ = ["audit", "audit_chunk"]


def audit_chunk(
    chunk: Chunk,
    spill_dir: str | os.PathLike[str] | None = None,
    *,
    keep_requests: bool = False,
    into: Report | None = None,
) -> Report:
    """Audit one chunk of a results file (see `split`) into a report, and return it.

    Example:
        >>> [chunk] = stopkit.batch.split(["results.jsonl"], 1)  # doctest: +SKIP
        >>> stopkit.batch.audit_chunk(chunk).lines  # doctest: +SKIP
        50000
    """
    report = into if into is not None else Report(spill_dir, keep_requests=keep_requests)
    report.start_file(chunk.path)
    add = report.add
    for record in read_chunk(chunk):
        add(record)
    return report


def _worker(chunk: Chunk, spill_dir: str, keep_requests: bool) -> Report:
    return audit_chunk(chunk, spill_dir, keep_requests=keep_requests)


def audit(
    paths: Sequence[str | os.PathLike[str]],
    *,
    jobs: int = 1,
    spill_dir: str | os.PathLike[str] | None = None,
    keep_requests: bool = False,
) -> Report:
    """Audit batch results files: why every request stopped, by model and group.

    Files are read as JSON Lines in constant memory (a Gemini batch job document with inlined
    responses is read whole); bad lines are counted and listed, never fatal. `jobs > 1` splits
    the files into line-aligned chunks audited by that many processes.

    Example:
        >>> report = stopkit.batch.audit(["output.jsonl", "errors.jsonl"])  # doctest: +SKIP
        >>> [(g.label, n) for g, n in report.groups][:2]  # doctest: +SKIP
        [('completed', 9812), ('output_limit/max_tokens', 1204)]
    """
    report = Report(spill_dir, keep_requests=keep_requests)
    chunks = split(paths, jobs)
    if jobs <= 1 or len(chunks) <= 1:
        for chunk in chunks:
            audit_chunk(chunk, into=report)
        return report
    # spawn, not fork: a forked child of a threaded parent (a test runner, a notebook) can
    # deadlock, and Python 3.14 stops forking by default.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(jobs, len(chunks)), mp_context=context) as pool:
        for part in pool.map(_worker, chunks, repeat(report.spill_dir), repeat(keep_requests)):
            report.merge(part)
    return report
