"""Retrying a failed model call: `RetryPolicy`, its transient-error test, its control.

Without a policy the loop never retries: the first exception from `call_model` ends the run
with a `ModelCallError`. A policy is always bounded (`attempts`), and the loop's `deadline`
bounds it too: a retry whose backoff would end past the deadline is not made. `Retrying` is
the control a run with a policy has: asked when a try raises.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stopkit.loop._controls import Control, ModelCall

__all__ = ["RetryPolicy", "Retrying", "is_transient", "retry_delay"]

# Statuses worth another try: timeout, conflict, too early, rate limit, and every server error
# (529 is Anthropic's "overloaded"). The SDKs' own retry logic uses the same set.
_TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
# Exception class names (anywhere in the MRO) of the SDKs and httpx that mean "try again",
# matched by name so that no SDK is imported: anthropic/openai `APIConnectionError` (and its
# `APITimeoutError`), `RateLimitError`, `InternalServerError`, anthropic `OverloadedError`,
# httpx `TimeoutException`, `NetworkError`, `RemoteProtocolError`, google-genai `ServerError`.
_TRANSIENT_NAMES = frozenset(
    {
        "APIConnectionError",
        "APITimeoutError",
        "RateLimitError",
        "InternalServerError",
        "OverloadedError",
        "ServiceUnavailableError",
        "TimeoutException",
        "NetworkError",
        "RemoteProtocolError",
        "ServerError",
    }
)


def _status(exc: BaseException) -> int | None:
    for owner in (exc, getattr(exc, "response", None)):
        for attribute in ("status_code", "code", "status"):
            value = getattr(owner, attribute, None)
            if type(value) is int:  # openai's `code` is a str, genai's an int status
                return value
    return None


def is_transient(exc: BaseException) -> bool:
    """Say whether `exc` looks like a failure worth retrying: rate limit, overload, timeout, reset.

    True for `TimeoutError` and `ConnectionError` (resets included), an HTTP status of 408, 409,
    425, 429 or 500 and up (read from `status_code`, `code` or `status`, on the exception or its
    `response`), and the SDKs' connection, timeout, rate-limit and server-error classes.

    Example:
        >>> is_transient(ConnectionResetError()), is_transient(ValueError("bad request"))
        (True, False)
    """
    if isinstance(exc, TimeoutError | ConnectionError):
        return True
    status = _status(exc)
    if status is not None and (status in _TRANSIENT_STATUS or 500 <= status <= 599):
        return True
    return any(cls.__name__ in _TRANSIENT_NAMES for cls in type(exc).__mro__)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How the loop retries a model call that raised: how often, after which errors, how long.

    Pass it as `retry=` to `run_loop`, `arun_loop` or `Loop`. A model call is made at most
    `attempts` times; between tries the loop waits `backoff`, doubled each time up to
    `max_backoff` (times a random factor in [0.5, 1] when `jitter`). When the attempts are used
    up, an error is not retryable, or the wait would pass the run's `deadline`, the loop raises
    `ModelCallError`. Provider SDKs retry on their own too (`max_retries`): count both.

    Example:
        >>> policy = RetryPolicy(attempts=3, backoff=0.5, retry_on=(TimeoutError,))
        >>> policy.delay(TimeoutError(), attempt=1) is not None
        True
    """

    attempts: int = 3
    """Most tries per model call, the first included (at least 1)."""
    backoff: float = 0.5
    """Seconds to wait before the first retry."""
    max_backoff: float = 30.0
    """The longest wait between two tries."""
    jitter: bool = True
    """Scale each wait by a random factor in [0.5, 1], so many runs do not retry in step."""
    retry_on: tuple[type[BaseException], ...] | Callable[[BaseException], bool] = is_transient
    """Exception classes to retry, or `retry_on(exc) -> bool` deciding per exception (default
    `is_transient`: rate limits, overload, timeouts, connection resets, 5xx)."""

    def __post_init__(self) -> None:
        if type(self.attempts) is not int or self.attempts < 1:
            raise ValueError(f"attempts must be an int of at least 1, not {self.attempts!r}")
        if self.backoff < 0 or self.max_backoff < 0:
            raise ValueError("backoff and max_backoff must not be negative")
        if not isinstance(self.retry_on, tuple) and not callable(self.retry_on):
            raise TypeError("retry_on is a tuple of exception classes or a callable")

    def retries(self, exc: BaseException) -> bool:
        """Say whether `exc` is one this policy retries."""
        retry_on: Any = self.retry_on
        if isinstance(retry_on, tuple):
            return isinstance(exc, retry_on)
        return bool(retry_on(exc))

    def delay(self, exc: BaseException, attempt: int) -> float | None:
        """Return the seconds to wait before retrying after failed try `attempt`; None: give up."""
        if attempt >= self.attempts or not self.retries(exc):
            return None
        wait: float = min(self.backoff * 2.0 ** (attempt - 1), self.max_backoff)
        if self.jitter:
            import random  # here, not at module level: `import stopkit` stays light

            wait *= random.uniform(0.5, 1.0)  # spreading retries: not a secret
        return wait


def retry_delay(
    policy: RetryPolicy, exc: Exception, attempt: int, deadline_at: float | None
) -> tuple[float | None, str]:
    """Return the wait before retrying after failed try `attempt` (None: give up), and why.

    Example:
        >>> retry_delay(RetryPolicy(attempts=1), TimeoutError(), 1, None)
        (None, 'TimeoutError; all 1 attempts used')
    """
    name = type(exc).__name__
    delay = policy.delay(exc, attempt)
    if delay is None:
        if attempt >= policy.attempts:
            return None, f"{name}; all {policy.attempts} attempts used"
        return None, f"{name}; not retried by the policy"
    if deadline_at is not None and time.monotonic() + delay >= deadline_at:
        return None, f"{name}; the deadline leaves no time to retry"
    return delay, ""


class Retrying(Control):
    """A run's `RetryPolicy` as a control: asked when a try of a model call raises."""

    def __init__(self, policy: RetryPolicy, deadline_at: float | None) -> None:
        self.policy = policy
        self.deadline_at = deadline_at

    def retry(self, call: ModelCall, error: Exception) -> float | str:
        """Return the seconds to wait before the next try, or why there is none."""
        delay, why = retry_delay(self.policy, error, call.attempt, self.deadline_at)
        return why if delay is None else delay
