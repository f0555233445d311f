"""The batch audit's own error: bad command-line use, never a bad line (those are counted)."""

from __future__ import annotations

from stopkit import StopkitError

__all__ = ["BatchUsageError"]


class BatchUsageError(StopkitError, ValueError):
    """The files given cannot be used together, e.g. a request file of another provider.

    Example:
        >>> raise BatchUsageError("requests.jsonl: an anthropic request file; results are openai")
        Traceback (most recent call last):
        ...
        stopkit.batch._errors.BatchUsageError: requests.jsonl: an anthropic request file; ...
    """
