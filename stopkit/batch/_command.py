"""`stopkit batch`: the argument parser and the run function of the batch audit command.

Kept here, whole, so the command line registers it with one call (`register`). Nothing heavy
is imported until the command runs: building the parser must stay cheap for `stopkit --help`.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

__all__ = ["register", "run"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _positive(kind: type[int] | type[float]) -> Any:
    def parse(text: str) -> int | float:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, not {text}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its error messages
    return parse


def register(commands: Any) -> None:
    """Register `stopkit batch` on the sub-command set of the `stopkit` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "batch",
        help="audit batch results files: why every request stopped; resubmit the truncated",
        description=(
            "Audit provider batch results (OpenAI, Anthropic, Gemini, Vertex AI, Bedrock): "
            "counts by model x stop reason x detail, errors, expired and canceled requests, "
            "with the ids of every line. Exit status: 0 when no line is unknown, errored or "
            "unreadable; 1 when some line is; 2 on a usage error or a file that cannot be read."
        ),
    )
    parser.add_argument("results", nargs="+", help="results files or folders of them")
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="REQUESTS",
        help="the batch's request file (repeatable): joined by id, to resubmit and to find "
        "results with no request and requests with no result",
    )
    parser.add_argument(
        "--resubmit",
        metavar="OUT",
        help="write the requests that deserve another try to OUT, in the provider's format",
    )
    parser.add_argument("--mapping", help="where the new id -> old id file goes")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--jobs", type=_positive(int), default=1, help="processes to audit with (default 1)"
    )
    parser.add_argument(
        "--factor",
        type=_positive(float),
        default=2.0,
        help="multiply a truncated request's ceiling by this (default 2)",
    )
    parser.add_argument(
        "--max-tokens-cap", type=_positive(int), help="never raise a ceiling above this"
    )
    parser.add_argument(
        "--max-line-size",
        type=_positive(int),
        metavar="BYTES",
        help="count a line longer than this as a bad line, unread (default 64 MiB, far above "
        "any real reply)",
    )
    parser.add_argument(
        "--reasoning-budget",
        type=_positive(int),
        help="also resubmit context_window and reasoning truncations, with this thinking budget",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run `stopkit batch` with parsed arguments; return the exit status."""
    from stopkit.batch import (
        BatchUsageError,
        ResubmitOptions,
        audit,
        check_input,
        exit_status,
        render_text,
        resubmit,
        write_json,
    )
    from stopkit.batch._lines import MAX_LINE_SIZE
    from stopkit.batch._resubmit import check_outputs

    if args.factor <= 1:
        print("stopkit batch: --factor must be greater than 1", file=err)
        return EXIT_USAGE
    if args.mapping and not args.resubmit:
        print("stopkit batch: --mapping goes with --resubmit", file=err)
        return EXIT_USAGE
    try:
        if args.resubmit:  # before minutes of reading: a bad OUT is refused at once
            check_outputs(args.resubmit, args.mapping, [*args.results, *args.input])
        report = audit(
            args.results,
            jobs=args.jobs,
            keep_requests=bool(args.resubmit and not args.input),
            max_line_size=args.max_line_size or MAX_LINE_SIZE,
        )  # files, and every results file in the folders named, each once
        try:
            if not report.files:
                print(f"stopkit batch: no results files in {', '.join(args.results)}", file=err)
                return EXIT_USAGE
            if args.resubmit:
                options = ResubmitOptions(args.factor, args.max_tokens_cap, args.reasoning_budget)
                resubmit(report, args.resubmit, inputs=args.input, options=options,
                         mapping=args.mapping)  # fmt: skip
            elif args.input:
                check_input(report, args.input)
            (write_json if args.json else render_text)(report, out)
            return exit_status(report)
        finally:
            report.close()
    except BatchUsageError as exc:
        print(f"stopkit batch: {exc}", file=err)
        return EXIT_USAGE
    except BrokenPipeError:  # `stopkit batch ... | head`: the main command handles it
        raise
    except OSError as exc:
        print(f"stopkit batch: {exc.filename or ''}: {exc.strerror or exc}", file=err)
        return EXIT_USAGE
