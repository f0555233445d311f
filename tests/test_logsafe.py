"""`stopkit._logsafe`: what the library logs is bounded in size and never holds a credential."""

from __future__ import annotations

import logging
import sys
from typing import Any

import pytest

from stopkit._logsafe import LIMIT, REDACTED, clip, is_secret_key, redact


def _nested(depth: int) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(depth):
        child: list[Any] = []
        node.append(child)
        node = child
    return root


class _BrokenRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@pytest.mark.parametrize(
    "value",
    [
        "x" * 10_000_000,
        b"\x00" * 1_000_000,
        list(range(1_000_000)),
        {str(i): i for i in range(100_000)},
        _nested(sys.getrecursionlimit() * 5),
        10**5000,
        _BrokenRepr(),
        float("nan"),
        None,
    ],
    ids=["huge-str", "huge-bytes", "huge-list", "huge-dict", "deep", "huge-int", "broken",
         "nan", "none"],
)  # fmt: skip
def test_clip_is_bounded_and_never_raises(value: Any) -> None:
    """A clip is at most LIMIT characters for huge, deep, unprintable and broken values."""
    text = clip(value)
    assert isinstance(text, str)
    assert 0 < len(text) <= LIMIT


def test_clip_keeps_short_values_whole_and_marks_cuts() -> None:
    """A short value is its plain repr; a cut one ends with an ellipsis within the limit."""
    assert clip("end_turn") == "'end_turn'"
    assert clip(3) == "3"
    assert clip({"a": [1, 2]}) == "{'a': [1, 2]}"
    cut = clip("y" * 500, limit=20)
    assert len(cut) == 20
    assert cut.startswith("'yyy")
    assert cut.endswith("…")


@pytest.mark.parametrize(
    "key",
    ["api_key", "x-api-key", "X-Goog-Api-Key", "Authorization", "proxy-authorization",
     "access_token", "token", "refresh_token", "aws_secret_access_key", "client_secret",
     "password", "Cookie", "set-cookie", "Ocp-Apim-Subscription-Key", "api-key"],
)  # fmt: skip
def test_credential_keys_are_recognized(key: str) -> None:
    """Every usual spelling of an API key, a token, a secret or an auth header is a secret."""
    assert is_secret_key(key)


@pytest.mark.parametrize(
    "key",
    ["max_tokens", "output_tokens", "input_tokens", "total_tokens", "max_output_tokens",
     "model", "messages", "stop_sequence", "tools", 3],
)  # fmt: skip
def test_ordinary_keys_are_kept(key: Any) -> None:
    """Token counts and ordinary request fields are not mistaken for credentials."""
    assert not is_secret_key(key)


@pytest.mark.parametrize(
    "key",
    ["api_key", "apiKey", "Authorization", "access_token", "client_secret", "key", "token",
     "authorization_token", "private_key", "max_tokens", "prompt_cache_key", "signature",
     "model", "tokens"],
)  # fmt: skip
def test_logging_and_recording_agree_on_every_key(key: str) -> None:
    """A key logging redacts is exactly a key the transports redact in a JSON body."""
    from stopkit._secrets import redact_value as redact_body

    logged = redact({key: "v"})[key] == REDACTED
    recorded = redact_body({key: "v"})[key] == "REDACTED"
    assert logged == recorded == is_secret_key(key)


def test_redact_replaces_credentials_at_any_level() -> None:
    """Credentials are replaced in nested mappings and lists; the input is left untouched."""
    overrides = {
        "max_tokens": 100,
        "extra_headers": {"Authorization": "Bearer sk-live-1", "X-Trace": "t"},
        "clients": [{"api_key": "sk-2", "name": "a"}],
    }
    out = redact(overrides)
    assert out == {
        "max_tokens": 100,
        "extra_headers": {"Authorization": REDACTED, "X-Trace": "t"},
        "clients": [{"api_key": REDACTED, "name": "a"}],
    }
    assert overrides["extra_headers"]["Authorization"] == "Bearer sk-live-1"  # type: ignore[index]
    assert "sk-" not in clip(out)


def test_redact_gives_up_on_too_deep_values() -> None:
    """Below its depth bound redact replaces the value whole rather than recurse."""
    deep: dict[str, Any] = {"a": {}}
    node = deep["a"]
    for _ in range(50):
        node["a"] = {"api_key": "sk-deep"}
        node = node["a"]
    assert "sk-deep" not in repr(redact(deep))


def test_library_logging_never_shows_a_credential_or_an_unbounded_value(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The loop logs a hostile stop value and retried overrides bounded and redacted."""
    import stopkit
    import stopkit.loop
    from stopkit import StopReason

    huge = "z" * 100_000
    reply = {"type": "message", "role": "assistant", "content": [], "stop_reason": huge}

    def call_model(messages: Any, **overrides: Any) -> Any:
        return reply

    def same_again(ctx: Any) -> Any:
        return stopkit.loop.Retry({"extra_headers": {"Authorization": "Bearer sk-secret"}})

    with caplog.at_level(logging.DEBUG, logger="stopkit"):
        handlers = {**stopkit.loop.DEFAULT_HANDLERS, StopReason.UNKNOWN: same_again}
        stopkit.run_loop(call_model, [{"role": "user", "content": "hi"}], handlers=handlers)
        stopkit.run_loop(call_model, [{"role": "user", "content": "hi"}])
    assert caplog.records, "the loop logged nothing"
    for record in caplog.records:
        message = record.getMessage()
        assert len(message) < 1_000, message[:300]
        assert "sk-secret" not in message


SECRET = "sk-live-Zq9VvTg2bQ7x"
LEAKY_OVERRIDES = {
    "pairs": {"extra_headers": [("X-Auth", SECRET), ("X-Trace", "t")]},
    "x-auth": {"extra_headers": {"X-Auth": SECRET}},
    "sas-sig": {"extra_query": {"sig": SECRET, "sv": "2024-01-01"}},
    "camel-case": {"extra_body": {"accessToken": SECRET, "refreshToken": SECRET}},
    "base-url": {"base_url": f"https://user:{SECRET}@proxy.example/v1"},
    "url-in-text": {"note": f"see https://h.example/v1?key={SECRET}&alt=json"},
}


@pytest.mark.parametrize("overrides", LEAKY_OVERRIDES.values(), ids=list(LEAKY_OVERRIDES))
def test_redact_covers_every_way_a_credential_reaches_overrides(overrides: dict[str, Any]) -> None:
    """Header pairs, `X-Auth`, `sig`, camelCase keys, URL user info and URL keys are redacted."""
    shown = clip(redact(overrides), 4000)
    assert SECRET not in shown
    assert REDACTED in shown


def test_clip_scrubs_a_url_key_from_exception_text() -> None:
    """An exception message holding a URL with `?key=` is logged without the key."""
    error = ConnectionError(f"GET https://generativelanguage.example/v1?key={SECRET} failed")
    assert SECRET not in clip(str(error))
    assert SECRET not in clip(error)


def test_loop_retry_warnings_never_show_a_credential(caplog: pytest.LogCaptureFixture) -> None:
    """The loop's retry and "overrides already tried" warnings redact every kind of override."""
    import stopkit
    from stopkit import StopReason

    reply = {"type": "message", "role": "assistant", "content": [], "stop_reason": "odd"}
    calls: list[Any] = []

    def call_model(messages: Any, **overrides: Any) -> Any:
        calls.append(overrides)
        if len(calls) == 1:
            raise ConnectionError(f"POST https://u:{SECRET}@h.example/v1?key={SECRET}: reset")
        return reply

    retried: dict[str, Any] = {}
    for overrides in LEAKY_OVERRIDES.values():
        retried.update(overrides)

    def same_again(ctx: Any) -> Any:
        return stopkit.loop.Retry(retried)

    with caplog.at_level(logging.DEBUG, logger="stopkit"):
        stopkit.run_loop(
            call_model,
            [{"role": "user", "content": "hi"}],
            handlers={**stopkit.loop.DEFAULT_HANDLERS, StopReason.UNKNOWN: same_again},
            retry=stopkit.loop.RetryPolicy(attempts=2, backoff=0, jitter=False),
        )
    messages = [record.getMessage() for record in caplog.records]
    assert any("retrying" in m for m in messages), messages
    assert any("already tried" in m for m in messages), messages
    for message in messages:
        assert SECRET not in message, message


@pytest.mark.parametrize(
    "message",
    [
        f"401 Unauthorized: {{'api_key': '{SECRET}', 'model': 'm'}}",
        f"request headers {{'x-api-key': '{SECRET}', 'accept': 'application/json'}}",
        f"connect(host='db', password='{SECRET}') refused",
        f"bad config {dict(auth_token=SECRET, region='eu')}",
    ],
    ids=["api_key", "x-api-key", "password=", "str(dict)"],
)
def test_loop_retry_warning_redacts_single_quoted_credentials(
    caplog: pytest.LogCaptureFixture, message: str
) -> None:
    """A credential in an exception message written as `str(dict)` is not logged on a retry."""
    import stopkit

    reply = {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}
    failures = iter([ConnectionError(message)])

    def call_model(messages: Any, **overrides: Any) -> Any:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return reply

    with caplog.at_level(logging.WARNING, logger="stopkit"):
        stopkit.run_loop(call_model, "hi", retry=stopkit.loop.RetryPolicy(attempts=2, backoff=0))
    (warning,) = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert SECRET not in warning, warning
    assert "[redacted]" in warning, warning
