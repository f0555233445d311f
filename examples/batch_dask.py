"""Audit a folder of batch results files with Dask: the same report as `stopkit batch`.

    pip install 'stopkit[dask]'
    python examples/batch_dask.py RESULTS_DIR [--workers 2] [--json]

When one machine is not enough, the batch audit's work runs on an existing engine as it is:
`stopkit.batch.split` cuts the files into line-aligned chunks, `audit_chunk` turns one chunk
into a `Report` (a pure function of its chunk: every line is read by `audit_line`, a line in,
a record out), and the reports merge in chunk order (which numbers each chunk's lines in
its file). Here `dask.bag` maps `audit_chunk` over the chunks on a
`distributed.LocalCluster`; point a `distributed.Client` at a real cluster instead and give
`--spill-dir` a folder every worker can write (the reports' id lists are files in it).

The same three calls map onto the other engines:

- Spark: `sc.parallelize(chunks, len(chunks)).map(lambda c: audit_chunk(c, spill)).collect()`,
  then merge the collected reports (or `sc.textFile(...).zipWithIndex()` and map `audit_line`
  over `(line, index + 1)` pairs, folding records into reports per partition).
- Ray: `ray.get([ray.remote(audit_chunk).remote(c, spill) for c in chunks])`, then merge.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile

from stopkit import batch


def audit_with_dask(paths: list[str], workers: int, spill_dir: str) -> batch.Report:
    """Audit results files on a local Dask cluster; the merged report, in file order."""
    import dask.bag as db
    from distributed import Client, LocalCluster

    chunks = batch.split(paths, workers * 2)
    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster),
    ):
        bag = db.from_sequence(chunks, npartitions=len(chunks))
        parts = bag.map(batch.audit_chunk, spill_dir).compute()  # a list, in chunk order
    report = batch.Report(spill_dir)
    for part in parts:
        report.merge(part)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("results", nargs="+", help="results files or folders of them")
    parser.add_argument("--workers", type=int, default=2, help="Dask worker processes")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--spill-dir", help="a folder every worker can write (default: a temp one)")
    args = parser.parse_args(argv)
    paths = batch.results_files(args.results)
    if not paths:  # as `stopkit batch`: nothing to audit is a usage error, not an empty report
        print(f"batch_dask: no results files in {', '.join(args.results)}", file=sys.stderr)
        return 2
    spill_dir = args.spill_dir or tempfile.mkdtemp(prefix="stopkit-batch-dask-")
    try:
        report = audit_with_dask(paths, args.workers, spill_dir)
        (batch.write_json if args.json else batch.render_text)(report, sys.stdout)
        return batch.exit_status(report)
    except OSError as exc:  # a file that cannot be read: said in a line, as the command does
        print(f"batch_dask: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    finally:
        if not args.spill_dir:
            shutil.rmtree(spill_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
