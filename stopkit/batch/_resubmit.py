"""Writing the follow-up batch: a request file in the provider's own format, and a mapping.

The requests come from the batch's request file (`--input`, joined by id), or, where the
results echo each request (Vertex, Bedrock), from the results themselves. Each line written
gets a new id (`<id>-r1`); the mapping file (JSON Lines) ties every new id to the old one and
says what was changed.
"""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from stopkit._json_out import compact_line
from stopkit.batch._errors import BatchUsageError
from stopkit.batch._join import is_requests_document, join, result_index
from stopkit.batch._lines import unique
from stopkit.batch._plan import Plan, ResubmitOptions, plan, wanted
from stopkit.batch._report import Entry, Group, Report
from stopkit.batch._requests import format_of, new_id, with_id

__all__ = ["Resubmission", "check_input", "resubmit"]

#: Results formats whose lines carry their own request (so no request file is needed).
_ECHOING = frozenset({"vertex", "bedrock"})


@dataclass
class Resubmission:
    """What `resubmit` wrote: how many requests per action, and what it held back, and why.

    Example:
        >>> done = resubmit(report, "retry.jsonl", inputs=["in.jsonl"])  # doctest: +SKIP
        >>> done.written  # doctest: +SKIP
        {'raise_max_tokens': 1204, 'as_is_expired': 402}
    """

    out: str
    """The request file written (the follow-up batch)."""
    mapping: str
    """The mapping file written: JSON Lines tying each new request id to its old one."""
    written: dict[str, int] = field(default_factory=dict)
    """Requests written, per action: `raise_max_tokens`, `reasoning_budget`, `as_is_expired`,
    `as_is_retryable_error`."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Lines of resubmittable groups not written, per cause (`at_cap`, `no_ceiling`, ...);
    their ids are `report.skipped_ids(cause)`."""


def _echoed(report: Report) -> Iterator[tuple[Group, str, dict[str, Any] | None, Entry]]:
    """The requests results lines echo; None (and no format) where a line echoed none.

    A line whose id is on another results line too is a conflict (listed as `duplicate_id`),
    whose request is not resubmitted, as in the join with the request file.
    """
    index = result_index(report)
    try:
        for entry, group, request in report.echoed_requests():
            if entry.id is not None and index.conflicted(entry.key):
                continue
            fmt = format_of(request)
            yield group, fmt or "", request if fmt is not None else None, entry
    finally:
        index.close()


def check_outputs(
    out: str | os.PathLike[str],
    mapping: str | os.PathLike[str] | None,
    reads: Iterable[str | os.PathLike[str]],
) -> tuple[str, str]:
    """Return the request file and the mapping to write (`<out>.mapping.jsonl` by default).

    Refused (`BatchUsageError`): writing over a file the resubmission reads, or the mapping
    over the requests.
    Refused too: an output that exists and is no regular file (nor a link to one). The new file
    would be renamed over it: a FIFO's reader would get nothing, a device node (`/dev/null`, as
    root) would be replaced, and the mapping written beside it, into `/dev`. The command checks
    this before it reads any result, and `resubmit` again with the results files found.
    """
    out = os.fspath(out)
    mapping = os.fspath(mapping) if mapping is not None else out + ".mapping.jsonl"
    taken = {os.path.realpath(p): os.fspath(p) for p in reads}
    for path in (out, mapping):
        try:
            mode = os.stat(path).st_mode  # through a link: a link to a regular file is fine
        except FileNotFoundError:  # a new file (a dangling link: its target is made)
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise BatchUsageError(
                f"{path} is not a regular file (a pipe, a device, a socket or a folder): the "
                "resubmission would replace it; name a file to write"
            )
        found = taken.get(os.path.realpath(path))
        if found is not None:
            raise BatchUsageError(
                f"{path} would overwrite {found}: write the resubmission elsewhere"
            )
        taken[os.path.realpath(path)] = path
    return out, mapping


@contextlib.contextmanager
def _replacing(path: str) -> Iterator[IO[bytes]]:
    """A new file that takes `path`'s place only once written through.

    A resubmission refused midway (a foreign request line) or interrupted leaves no partial
    request file that looks ready to upload, and the file `path` held before stays as it was.
    """
    target = os.path.realpath(path)  # a symlink's target is replaced, as `open` wrote through it
    folder, name = os.path.split(target)
    temp = os.path.join(folder, f".{name}.{uuid.uuid4().hex[:12]}.part")
    try:
        f = open(temp, "xb")  # noqa: SIM115 -- closed just below, before the file is moved
    except OSError as exc:  # the error names the file asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, path) from None
    try:
        with f:
            yield f
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def check_input(report: Report, inputs: Sequence[str | os.PathLike[str]]) -> None:
    """Join the results to their request file(s): add the `no_result` and `no_input` groups.

    Example:
        >>> stopkit.batch.check_input(report, ["batch_input.jsonl"])  # doctest: +SKIP
        >>> report.count(outcome=RequestOutcome.NO_RESULT)  # doctest: +SKIP
        0
    """
    for _ in join(report, inputs):
        pass


def resubmit(
    report: Report,
    out: str | os.PathLike[str],
    *,
    inputs: Sequence[str | os.PathLike[str]] = (),
    options: ResubmitOptions | None = None,
    mapping: str | os.PathLike[str] | None = None,
) -> Resubmission:
    """Write the requests that deserve another try to `out`, in the provider's batch format.

    Truncated replies (`output_limit`, `max_tokens`) go with a raised ceiling; expired requests
    and retryable errors as they were. `filtered`, `unknown` and other errors are never
    resubmitted: the report lists them. `inputs` are the batch's request files (joined by id);
    without them, only results that echo their requests (Vertex, Bedrock) can be resubmitted.
    The mapping (JSON Lines, `<out>.mapping.jsonl` by default) ties new ids to old ones.

    Example:
        >>> report = stopkit.batch.audit(["results.jsonl"])  # doctest: +SKIP
        >>> stopkit.batch.resubmit(report, "retry.jsonl", inputs=["in.jsonl"])  # doctest: +SKIP
        Resubmission(out='retry.jsonl', mapping='retry.jsonl.mapping.jsonl', ...)
    """
    options = options or ResubmitOptions()
    inputs = unique(inputs)  # before any is read: a pipe is refused, not half read
    out, mapping = check_outputs(out, mapping, [*report.files, *inputs])
    source = _requests(report, inputs, options)
    done = Resubmission(out, mapping)
    # A create body in, a create body out (Anthropic's `{"requests": [...]}`); else JSON Lines.
    document = bool(inputs) and all(is_requests_document(p) for p in inputs)
    head, sep, end, tail = (
        (b'{"requests": [\n', b",\n", b"", b"\n]}\n") if document else (b"", b"", b"\n", b"")
    )
    with _replacing(out) as requests, _replacing(mapping) as links:
        requests.write(head)
        for group, fmt, line, entry in source:
            if not wanted(group, options):
                continue
            step = Plan(None) if line is None else plan(group, line, fmt, options)
            if step.line is None or step.action is None:
                cause = step.skip or "no_request"
                done.skipped[cause] = done.skipped.get(cause, 0) + 1
                report.add_skipped(cause, entry)
                continue
            number = sum(done.written.values()) + 1
            written, link = _rewritten(step.line, step, fmt, entry, number)
            requests.write((sep if done.written else b"") + compact_line(written) + end)
            done.written[step.action] = done.written.get(step.action, 0) + 1
            links.write(compact_line(link) + b"\n")
        requests.write(tail)
    report.resubmission = done
    return done


def _requests(
    report: Report, inputs: Sequence[str], options: ResubmitOptions
) -> Iterable[tuple[Group, str, dict[str, Any] | None, Entry]]:
    """Each result with its request: joined from the request files, else echoed by the results.

    Results that echo no request (OpenAI, Anthropic, Gemini) cannot be resubmitted without the
    request files: refused when any of them is wanted.
    """
    if inputs:
        return join(report, inputs)
    silent = set(report.formats) - _ECHOING or not report.keep_requests
    if silent and any(wanted(g, options) for g in report.counts):
        raise BatchUsageError(
            "these results do not carry their requests: give the batch's request file "
            "(--input) to resubmit"
        )
    return _echoed(report)


def _rewritten(
    line: dict[str, Any], step: Plan, fmt: str, entry: Entry, number: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The request `line` to write for a planned step (under a new id), and its mapping link."""
    new = None if entry.id is None else new_id(entry.id, fmt)
    written = line if new is None else with_id(line, fmt, new)
    link = {
        "line": number,
        "new_id": new if written is not line else None,
        "old_id": entry.id,
        "result": str(entry),
        "action": step.action,
        "field": step.field,
        "from": step.old,
        "to": step.new,
    }
    return written, link
