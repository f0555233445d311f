"""`stopkit._secrets`: one list of secret names, in any case style, and one redaction of values."""

from __future__ import annotations

import json
from typing import Any

import pytest

from stopkit._secrets import (
    REDACTED,
    is_secret_key,
    is_secret_name,
    redact_text,
    redact_value,
)

_JWT = (
    "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJpc3MiOiJzdmNAcC5pYW0uZ3NlcnZpY2VhY2NvdW50LmNvbSJ9"
    ".c2lnbmF0dXJlLWJ5dGVzLWhlcmUtWnE5VnZUZzJiUTd4"
)

SECRET_KEYS = [
    "api_key", "apiKey", "APIKey", "API_KEY", "x-api-key", "xapikey", "accessToken",
    "access_token", "ACCESS_TOKEN", "AccessToken", "refreshToken", "sessionToken", "idToken",
    "privateKey", "private_key", "auth", "Auth", "X-Auth", "bearer", "client_secret",
    "clientSecret", "sig", "password", "Passwd", "Cookie", "set-cookie", "token", "key",
    "aws_secret_access_key", "Ocp-Apim-Subscription-Key", "authorization_token", "oauth",
    "credentials", "jwt",
]  # fmt: skip
PLAIN_KEYS = [
    "max_tokens", "maxTokens", "output_tokens", "cache_creation_input_tokens", "tokens",
    "prompt_cache_key", "idempotency_key", "signature", "author", "authority", "model",
    "nextPageToken", "continuation_token", "token_count", "sigma", "keys", "messages",
]  # fmt: skip


@pytest.mark.parametrize("key", SECRET_KEYS)
def test_secret_keys_in_every_case_style(key: str) -> None:
    """A credential's key is a secret whether written snake, camel, kebab or upper case."""
    assert is_secret_key(key)
    assert is_secret_name(key)  # what a body key is, a header or query name is too


@pytest.mark.parametrize("key", PLAIN_KEYS)
def test_plain_keys_are_not_secrets(key: str) -> None:
    """Token counts, cursors, cache keys and a thinking block's signature are kept in bodies."""
    assert not is_secret_key(key)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://bob:hunter2@h.example/v1", "https://REDACTED@h.example/v1"),
        ("GET https://h.example/v1?key=AIza123&alt=json failed",
         "GET https://h.example/v1?key=REDACTED&alt=json failed"),
        ("https://acct.blob.core.windows.net/c/x.png?sv=2024&sp=r&sig=abc%2Bdef",
         "https://acct.blob.core.windows.net/c/x.png?sv=2024&sp=r&sig=REDACTED"),
        ("https://app.example/cb#access_token=t-1&token_type=bearer&state=s",
         "https://app.example/cb#access_token=REDACTED&token_type=REDACTED&state=s"),
        ("401: Bearer sk-live-1 was refused", "401: Bearer REDACTED was refused"),
        ("spent 30 tokens; key points: none", "spent 30 tokens; key points: none"),
        ("https://h.example/v1/models?page=2", "https://h.example/v1/models?page=2"),
        ("my key is sk-proj-AbC123dEf456GhI789jKl0, ok", "my key is REDACTED, ok"),
        ("use sk-ant-api03-Xy9_zz-1234567890abcdefgh now", "use REDACTED now"),
        ("see sk-learn-documentation-pages, task-1", "see sk-learn-documentation-pages, task-1"),
        ("AIza" + "SyA1234567890abcdefghijklmnopqrstuv" + " leaked", "REDACTED leaked"),
        ("token ghp_" + "a1" * 18, "token REDACTED"),
        ("id AKIAIOSFODNN7EXAMPLE here", "id REDACTED here"),
        ("set api_key=abc123xyz in the config", "set api_key=REDACTED in the config"),
        ("x-api-key: 0123456789abcdef", "x-api-key: REDACTED"),
        ('{"password": "hunter22", "user": "bob"}', '{"password": "REDACTED", "user": "bob"}'),
        ("the api key is required; max_tokens: 300", "the api key is required; max_tokens: 300"),
        ("key gsk_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2qR5tU8wX1z" + " leaked",
         "key REDACTED leaked"),
        ("HF_TOKEN=hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "HF_TOKEN=REDACTED"),
        ("id_token " + _JWT + " expired", "id_token REDACTED expired"),
        ("grant_type=jwt-bearer&assertion=" + _JWT, "grant_type=jwt-bearer&assertion=REDACTED"),
        ("401: {'api_key': 'abc123xyz', 'model': 'm'}",
         "401: {'api_key': 'REDACTED', 'model': 'm'}"),
        ("headers={'x-api-key': 'abc123xyz'}", "headers={'x-api-key': 'REDACTED'}"),
        ("connect(user='bob', password='hunter22')", "connect(user='bob', password='REDACTED')"),
        ("{'refresh_token': 'r-123456', 'max_tokens': 30}",
         "{'refresh_token': 'REDACTED', 'max_tokens': 30}"),
        ('{"auth_token": "t-123456", "page_token": "p2"}',
         '{"auth_token": "REDACTED", "page_token": "p2"}'),
        ("Config(region='eu', secret='s3cr3t-value')", "Config(region='eu', secret='REDACTED')"),
    ],
    ids=["userinfo", "query-key", "azure-sas", "fragment", "bearer", "prose", "plain-url",
         "openai-key", "anthropic-key", "no-digit-no-key", "google-key", "github-token",
         "aws-key-id", "name=value", "name: value", "json-in-text", "prose-with-names",
         "groq-key", "hf-token", "jwt", "assertion", "quoted-dict", "quoted-header",
         "quoted-keyword", "quoted-any-secret-key", "json-any-secret-key", "repr-keyword"],
)  # fmt: skip
def test_redact_text_scrubs_credentials_wherever_they_stand(text: str, expected: str) -> None:
    """URL user info, secret parameters, bearer tokens and shaped keys are replaced in any text."""
    found: set[str] = set()
    assert redact_text(text, found) == expected
    assert all(secret not in expected for secret in found)


def test_redact_value_keeps_the_shape_of_a_secret_object() -> None:
    """A secret object keeps its keys and numbers (an SDK still parses it), its strings hidden."""
    session = {"id": "sess_1", "client_secret": {"value": "ek_live_123", "expires_at": 1700}}
    found: set[str] = set()
    assert redact_value(session, found) == {
        "id": "sess_1",
        "client_secret": {"value": REDACTED, "expires_at": 1700},
    }
    assert found == {"ek_live_123"}


def test_a_logprob_token_is_model_output() -> None:
    """`token` beside a `logprob` (OpenAI, Gemini logprobs) is text the model wrote."""
    logprobs: dict[str, Any] = {
        "content": [{"token": "Hi", "logprob": -0.1,
                     "top_logprobs": [{"token": "Hey", "logprob": -2.3}]}],
        "chosenCandidates": [{"token": "Hi", "logProbability": -0.2}],
    }  # fmt: skip
    assert redact_value(logprobs) == logprobs
    assert redact_value({"token": "sk-1", "user": "u"}) == {"token": REDACTED, "user": "u"}


def test_json_held_in_a_string_is_judged_as_the_json_is() -> None:
    """A string holding JSON is redacted as that JSON is: what the body keeps, the string keeps."""
    logprobs = {"content": [{"token": "Hi", "logprob": -0.1}],
                "customMetadata": [{"key": "team", "stringValue": "a"}]}  # fmt: skip
    held = json.dumps(logprobs)
    assert redact_value(logprobs) == logprobs
    assert redact_value({"content": held}) == {"content": held}
    secret = json.dumps({"note": "see https://h.example/?key=AIza123", "auth": "t-123456"})
    assert json.loads(redact_value({"content": secret})["content"]) == {
        "note": "see https://h.example/?key=REDACTED", "auth": REDACTED,
    }  # fmt: skip


def test_header_holders_and_pairs_are_matched_as_headers() -> None:
    """Under `*_headers`/`*_query`, and in a list of pairs, names are matched as headers are."""
    overrides = {
        "extra_headers": [("X-Trace-Key", "k-1"), ("X-Request-Id", "r-1")],
        "default_query": {"session": "s-1", "alt": "json"},
        "options": {"session": "kept"},
    }
    assert redact_value(overrides, mark="[x]") == {
        "extra_headers": [("X-Trace-Key", "[x]"), ("X-Request-Id", "r-1")],
        "default_query": {"session": "[x]", "alt": "json"},
        "options": {"session": "kept"},
    }


def test_what_only_looks_like_a_secret_is_kept() -> None:
    """A schema property named `password`, a key/value entry, prose and a data URL are kept."""
    tools = {"type": "function", "parameters": {"type": "object", "required": ["password"],
             "properties": {"password": {"type": "string", "title": "Password"},
                            "key": {"type": "string"}}}}  # fmt: skip
    metadata = {"customMetadata": [{"key": "source_url", "stringValue": "https://x.example"}]}
    prose = {"text": "Basic arithmetic. 2+2=4, and Basic Addition; see page?id=3&lang=en"}
    image = {"url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAcm9rZW4=", "alt": "cat"}
    for value in (tools, metadata, prose, image):
        assert redact_value(value) == value
