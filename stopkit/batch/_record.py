"""What the audit says about one line of a results file: the `RequestOutcome` and the `Record`.

A `Record` is what the pure per-line function (`audit_line`) returns: small, immutable and
picklable, so the same function runs in a process pool or on a distributed engine.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from stopkit import StopReason, Usage

__all__ = ["BAD_LINES", "Record", "RequestOutcome"]


class RequestOutcome(StrEnum):
    """What became of one request of a batch: a reply, or a batch-level outcome.

    Only `REPLIED` carries a stop reason; the others are what the batch API says instead.

    Example:
        >>> RequestOutcome("expired") is RequestOutcome.EXPIRED
        True
    """

    REPLIED = "replied"
    """The model replied: the record has a `reason` (and maybe a `detail`)."""
    ERRORED = "errored"
    """The request failed; `code` is the provider's error code or HTTP status."""
    EXPIRED = "expired"
    """The batch ended before the request ran."""
    CANCELED = "canceled"
    """The batch was canceled before the request ran."""
    NO_BODY = "no_body"
    """The line says the request ran but carries no reply body."""
    EMBEDDING = "embedding"
    """An embedding: a reply with no stop reason, counted apart."""
    UNREADABLE = "unreadable"
    """A reply body no stopkit adapter reads (the body is kept in `message`)."""
    NOT_JSON = "not_json"
    """The line is not JSON."""
    UNKNOWN_SHAPE = "unknown_shape"
    """JSON, but no batch results shape stopkit knows."""
    TRUNCATED_LINE = "truncated_line"
    """The file's last line is cut short (an interrupted download)."""
    LINE_TOO_LONG = "line_too_long"
    """The line is longer than the bound (`--max-line-size`): it was not read."""
    NO_INPUT = "no_input"
    """A result whose id is in no line of the request file (`--input`)."""
    NO_RESULT = "no_result"
    """A request of the request file that no results line answers."""
    DUPLICATE_ID = "duplicate_id"
    """A results line whose id is on another results line too: a conflict (which one says what
    became of the request?), so neither is resubmitted. Found by the join with the request file
    (`--input`) and by a resubmission."""


#: The outcomes that say a line of a file could not be read, not what became of a request.
BAD_LINES = frozenset(
    {
        RequestOutcome.NOT_JSON,
        RequestOutcome.UNKNOWN_SHAPE,
        RequestOutcome.TRUNCATED_LINE,
        RequestOutcome.LINE_TOO_LONG,
    }
)


class Record(NamedTuple):
    """One results line, read: the request's id, its model and what became of it.

    Example:
        >>> from stopkit.batch import audit_line
        >>> audit_line(b'{"custom_id": "r1", "result": {"type": "expired"}}', 1).outcome
        <RequestOutcome.EXPIRED: 'expired'>
    """

    line: int
    """The line's number in its file (1-based); for inlined responses, the item's number."""
    outcome: RequestOutcome
    """What became of the request: a reply, or what the batch API says instead."""
    format: str | None = None
    """The results format: `openai`, `anthropic`, `gemini`, `vertex` or `bedrock`."""
    id: str | None = None
    """The request's id as the batch sent it (`custom_id`, `key`, `recordId`), if any."""
    model: str | None = None
    """The model the line names, if any."""
    reason: StopReason | None = None
    """`Stop.reason` of a reply (`replied` records only)."""
    detail: str | None = None
    """`Stop.detail` of a reply (e.g. `max_tokens`, `context_window`, `refusal`)."""
    raw_reason: str | int | None = None
    """`Stop.raw_reason` of a reply: the provider's own stop value, as sent."""
    provider: str | None = None
    """The stopkit adapter that read the reply."""
    code: str | None = None
    """The error code of an errored request (a provider code, or the HTTP status)."""
    message: str | None = None
    """Why: the error message, or what was wrong with the line."""
    request: Any = None
    """The request, where the results format echoes it (Vertex, Bedrock), in its input form."""
    usage: Usage | None = None
    """The reply's token counts (`Stop.usage`), as its provider counts them."""
