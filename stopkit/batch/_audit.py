"""Auditing whole results files: chunks in this process or in a pool of processes.

The work is `read_chunk` (a line in, a record out) folded into a `Report` per chunk; reports
merge. The same two functions run on a distributed engine (examples/batch_dask.py).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from stopkit.batch._lines import MAX_LINE_SIZE, Chunk, read_chunk, results_files, split
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
    report.begin_chunk(chunk)
    add = report.add
    lines = read_chunk(chunk)
    for record in lines:
        add(record)
    report.end_chunk(chunk, lines.lines)
    return report


# The chunks are self-scheduled: this process and every worker take the next chunk not yet
# taken, from one counter they share, until none is left. No process holds a queue of its own,
# so at the end none waits while another still has chunks lined up (a fixed share, or chunks
# submitted ahead to a worker, left this process idle for up to two chunks). The counter is a
# `multiprocessing.Value`, handed to each worker when it starts (the only way to share one).
_counter: Any = None  # in a worker: its pool's counter


def _share(counter: Any) -> None:
    global _counter
    _counter = counter


def _drain(
    counter: Any, chunks: Sequence[Chunk], spill_dir: str, keep_requests: bool
) -> list[tuple[int, Report]]:
    """Audit the next chunk not yet taken until none is left; each chunk's place and report."""
    done: list[tuple[int, Report]] = []
    while True:
        with counter.get_lock():
            i = counter.value
            counter.value = i + 1
        if i >= len(chunks):
            return done
        done.append((i, audit_chunk(chunks[i], spill_dir, keep_requests=keep_requests)))


def _worker(
    chunks: Sequence[Chunk], spill_dir: str, keep_requests: bool
) -> list[tuple[int, Report]]:
    return _drain(_counter, chunks, spill_dir, keep_requests)


def _context() -> multiprocessing.context.BaseContext:
    """Fork where it is safe (Linux, this process has one thread), else spawn.

    A forked worker starts at once with stopkit already imported (a spawned one imports it
    again: a few tenths of a second of CPU each, a large share of a small batch). A fork of a
    threaded process can deadlock, which is why Python 3.14 stops forking by default: with
    any other thread running (a test runner's, a notebook's, a server's), spawn.
    """
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


#: Chunks per process with jobs > 1: small enough to even out uneven lines and a worker's late
#: start, large enough that a chunk's report and process hop cost little.
_CHUNKS_PER_JOB = 8


def audit(
    paths: Sequence[str | os.PathLike[str]],
    *,
    jobs: int = 1,
    spill_dir: str | os.PathLike[str] | None = None,
    keep_requests: bool = False,
    max_line_size: int = MAX_LINE_SIZE,
) -> Report:
    """Audit batch results files: why every request stopped, by model and group.

    `paths` are files or folders (every results file in them); a file named twice is read once.
    Files are read as JSON Lines in constant memory (a Gemini batch job document with inlined
    responses is read whole); bad lines are counted and listed, never fatal, and so are lines
    longer than `max_line_size` bytes, which are never held whole (the report keeps the bound
    for the request files it is joined to). `jobs > 1` audits line-aligned chunks in that many
    processes: this one and `jobs - 1` workers.

    Example:
        >>> report = stopkit.batch.audit(["output.jsonl", "errors.jsonl"])  # doctest: +SKIP
        >>> [(g.label, n) for g, n in report.groups][:2]  # doctest: +SKIP
        [('completed', 9812), ('output_limit/max_tokens', 1204)]
    """
    report = Report(spill_dir, keep_requests=keep_requests)
    report.max_line_size = max_line_size
    parts = jobs * _CHUNKS_PER_JOB if jobs > 1 else 1
    chunks = split(results_files(paths), parts, max_line_size=max_line_size)
    if jobs <= 1 or len(chunks) <= 1:
        for chunk in chunks:
            audit_chunk(chunk, into=report)
        return report
    context = _context()
    counter = context.Value("q", 0)
    with ProcessPoolExecutor(
        jobs - 1, mp_context=context, initializer=_share, initargs=(counter,)
    ) as pool:
        workers = [
            pool.submit(_worker, chunks, report.spill_dir, keep_requests) for _ in range(jobs - 1)
        ]
        # This process takes chunks too, from the first: busy while the workers start (a
        # spawned interpreter takes a fraction of a second to import stopkit).
        try:
            done = _drain(counter, chunks, report.spill_dir, keep_requests)
            for worker in workers:
                done += worker.result()
        except BaseException:  # an error, an interrupt: the workers take no further chunk
            with counter.get_lock():
                counter.value = len(chunks)
            raise
    for _, part in sorted(done, key=lambda found: found[0]):  # merged in file order
        report.merge(part)
    return report
