"""The replies in one input of the command line: a payload file, a cassette, a HAR file.

`stopkit normalize` and `stopkit audit` read their inputs the same way, here: the bytes of an
input are told apart by content (`stopkit.record._cassette.read_recording`); a payload file is
one reply, a cassette or HAR file one per recorded LLM reply, named `file#N`. A cassette's
exchanges that are not LLM replies (a token request, a model list) and its error responses
(4xx, 5xx) are skipped and counted. The `Tally` keeps the counts the summary line and the exit
status come from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stopkit._errors import StopkitError
from stopkit._stop import Stop, StopReason
from stopkit.cli._output import EXIT_OK, EXIT_UNKNOWN, EXIT_UNREADABLE
from stopkit.record._cassette import BadExchange, read_recording
from stopkit.record._recordings import recording_files, reply_kind

__all__ = ["Read", "Tally", "Unreadable", "input_files", "read_replies"]

_SKIPPED = {"error": "error response", "other": "not an LLM reply"}


@dataclass(frozen=True)
class Read:
    """One reply read: the input it came from, its exchange in that input, and its `Stop`."""

    file: str
    exchange: int | None
    stream: bool
    stop: Stop

    @property
    def name(self) -> str:
        """`file`, or `file#N` for the exchange N of a cassette."""
        return self.file if self.exchange is None else f"{self.file}#{self.exchange}"

    def as_json(self) -> dict[str, Any]:
        """The reply as `--json` prints it."""
        where = {"file": self.file} | ({} if self.exchange is None else {"exchange": self.exchange})
        return where | {"stream": self.stream, "stop": self.stop.model_dump(mode="json")}


@dataclass(frozen=True)
class Unreadable:
    """An input, or one exchange of it, that could not be read, and why."""

    file: str
    message: str
    exchange: int | None = None

    def as_json(self) -> dict[str, Any]:
        """The error as `--json` prints it."""
        where = {"file": self.file} | ({} if self.exchange is None else {"exchange": self.exchange})
        return where | {"error": self.message}


@dataclass
class Tally:
    """What the inputs held: replies by reason, exchanges skipped, inputs unreadable."""

    reasons: Counter[StopReason] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    unreadable: Counter[str] = field(default_factory=Counter)
    """Inputs (`"file"`) and exchanges of cassettes (`"exchange"`) that could not be read."""

    def failed(self, file: str, problem: Exception, exchange: int | None = None) -> Unreadable:
        """Count an input (or, with `exchange`, one reply of it) unreadable; return the error.

        A cassette with one exchange that cannot be decoded (`BadExchange`) is unreadable as a
        file (its other exchanges are not read), its message naming the exchange.
        """
        self.unreadable["file" if exchange is None else "exchange"] += 1
        text = str(problem)
        if isinstance(problem, BadExchange):
            exchange, text = problem.exchange, problem.problem
        where = file if exchange is None else f"{file}#{exchange}"
        return Unreadable(file, text if text.startswith(where) else f"{where}: {text}", exchange)

    def summary(self) -> str:
        """The closing line: replies by reason, exchanges skipped, inputs unreadable."""
        total = sum(self.reasons.values())
        counts = ", ".join(f"{self.reasons[r]} {r.value}" for r in StopReason if self.reasons[r])
        text = f"{total} {'reply' if total == 1 else 'replies'}" + (f": {counts}" if counts else "")
        if self.skipped:
            n = sum(self.skipped.values())
            kinds = ", ".join(
                f"{self.skipped[k]} {words}" for k, words in _SKIPPED.items() if self.skipped[k]
            )
            text += f"; {n} exchange{'' if n == 1 else 's'} skipped ({kinds})"
        if self.unreadable:
            parts = [f"{n} {what}{'' if n == 1 else 's'}" for what, n in self.unreadable.items()]
            text += f"; {' and '.join(parts)} unreadable"
        return text

    def status(self) -> int:
        """The exit status: 2 when something was unreadable, 1 when some reply is unknown."""
        if self.unreadable:
            return EXIT_UNREADABLE
        return EXIT_UNKNOWN if self.reasons[StopReason.UNKNOWN] else EXIT_OK


def input_files(target: str) -> list[str]:
    """The files of one command-line input: itself, or the recordings in a folder."""
    path = Path(target)
    if target != "-" and path.is_dir():
        return [str(p) for p in recording_files(path)]
    return [target]


def read_replies(
    file: str, data: bytes, tally: Tally, *, adapter: str | None, max_size: int
) -> Iterator[Read | Unreadable]:
    """Yield the replies of one input's bytes (`-`: standard input), counting them in `tally`."""
    try:
        payloads = read_recording(data, None if file == "-" else Path(file), max_size=max_size)
    except (ValueError, ImportError) as exc:  # ImportError: a YAML cassette without PyYAML
        yield tally.failed(file, exc)
        return
    for payload in payloads:
        if payload.exchange is not None:
            kind = reply_kind(payload, adapter)
            if kind != "reply":
                tally.skipped[kind] += 1
                continue
        try:
            stop = payload.stop(adapter=adapter)
        except (StopkitError, ValueError) as exc:
            yield tally.failed(file, exc, payload.exchange)
            continue
        tally.reasons[stop.reason] += 1
        yield Read(file, payload.exchange, payload.is_stream, stop)
