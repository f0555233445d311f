"""Reading one results line of every provider format: the outcome, reason, detail, code and id."""

from __future__ import annotations

import json
from typing import Any

import pytest

from stopkit import StopReason
from stopkit.batch import Record, RequestOutcome, audit_line
from tests.batch._fixtures import (
    ALL,
    ANTHROPIC,
    BEDROCK,
    GEMINI_CASES,
    OPENAI,
    Case,
    chat_body,
    gemini_response,
    openai_ok,
)

CASES = [(fmt, case) for fmt, cases in ALL.items() for case in cases]


def _read(line: Any, number: int = 1) -> Record:
    return audit_line(json.dumps(line).encode(), number)


@pytest.mark.parametrize(("fmt", "case"), CASES, ids=[f"{f}: {c.name}" for f, c in CASES])
def test_every_documented_outcome_is_read(fmt: str, case: Case) -> None:
    """Each documented line shape gives the outcome, reason, detail, code and id it stands for."""
    record = _read(case.line, 3)
    assert record.line == 3
    assert record.format == case.expect.get("format", fmt)
    for name, value in case.expect.items():
        got = getattr(record, name)
        assert (got.value if isinstance(got, RequestOutcome | StopReason) else got) == value, name


@pytest.mark.parametrize("case", ANTHROPIC, ids=[c.name for c in ANTHROPIC])
def test_anthropic_fixtures_are_the_sdk_type(case: Case) -> None:
    """Every Anthropic fixture line validates as the SDK's MessageBatchIndividualResponse."""
    from anthropic.types.messages import MessageBatchIndividualResponse

    parsed = MessageBatchIndividualResponse.model_validate(case.line)
    assert parsed.result.type in ("succeeded", "errored", "canceled", "expired")


def _body(case: Case) -> Any:
    return (case.line.get("response") or {}).get("body") or {}


# "chat new finish value" is left out on purpose: its finish_reason is one the SDK's Literal
# does not know yet, which is the point of that case.
REPLIES = [
    c
    for c in OPENAI
    if _body(c).get("object") in ("chat.completion", "response")
    and c.name != "chat new finish value"
]


@pytest.mark.parametrize("case", REPLIES, ids=[c.name for c in REPLIES])
def test_openai_fixture_bodies_are_the_sdk_types(case: Case) -> None:
    """Every OpenAI reply body in the fixtures validates as the SDK's ChatCompletion or Response."""
    from openai.types.chat import ChatCompletion
    from openai.types.responses import Response

    body = _body(case)
    kind = ChatCompletion if body["object"] == "chat.completion" else Response
    assert kind.model_validate(body).model == body["model"]


# The REST error envelope (with `status`) is not the SDK's JobError; it is read all the same.
ITEMS = [c for c in GEMINI_CASES if "response" in c.line or c.name == "error status"]


@pytest.mark.parametrize("case", ITEMS, ids=[c.name for c in ITEMS])
def test_gemini_fixture_responses_are_the_sdk_type(case: Case) -> None:
    """Every Gemini fixture response or status validates as the SDK's InlinedResponse."""
    from google.genai import types

    item = {k: v for k, v in case.line.items() if k in ("response", "error")}
    parsed = types.InlinedResponse.model_validate(item)
    assert parsed.response is not None or parsed.error is not None


def test_bedrock_anthropic_output_is_the_anthropic_message() -> None:
    """A Bedrock modelOutput of a Claude model is the Messages API body the anthropic SDK reads."""
    from anthropic.types import Message

    for case in BEDROCK[:2]:
        Message.model_validate(case.line["modelOutput"])


@pytest.mark.parametrize(
    ("line", "outcome", "message"),
    [
        (b"not json at all", RequestOutcome.NOT_JSON, "line 1"),
        (b'["a", "list"]', RequestOutcome.UNKNOWN_SHAPE, "a JSON list"),
        (b'{"hello": "world"}', RequestOutcome.UNKNOWN_SHAPE, "'hello'"),
        (
            b'{"custom_id": "x", "result": {"type": "postponed"}}',
            RequestOutcome.UNKNOWN_SHAPE,
            "postponed",
        ),
    ],
)
def test_bad_lines_are_records_not_errors(
    line: bytes, outcome: RequestOutcome, message: str
) -> None:
    """A line that is not JSON or of no known shape is a record saying so, never an exception."""
    record = audit_line(line, 1)
    assert record.outcome is outcome
    assert message in (record.message or "")


@pytest.mark.parametrize(
    ("status", "body", "outcome", "code"),
    [
        (503, None, RequestOutcome.ERRORED, "http_503"),
        (500, {}, RequestOutcome.ERRORED, "http_500"),
        (429, "Too Many Requests", RequestOutcome.ERRORED, "http_429"),
        (200, None, RequestOutcome.NO_BODY, None),
    ],
)
def test_an_openai_error_status_without_a_body_is_an_error(
    status: int, body: Any, outcome: RequestOutcome, code: str | None
) -> None:
    """A failed HTTP status is an error by its code even when no error body came with it."""
    line = {"id": "batch_req_1", "custom_id": "c-1", "error": None,
            "response": {"status_code": status, "request_id": "req_1", "body": body}}  # fmt: skip
    record = _read(line)
    assert (record.outcome, record.code, record.id) == (outcome, code, "c-1")


def test_unterminated_last_line_is_a_truncated_download() -> None:
    """A cut line is `truncated_line` when it had no newline (the file's end), else `not_json`."""
    cut = b'{"custom_id": "a-1", "result": {"type": "succ'
    assert audit_line(cut, 9, unterminated=True).outcome is RequestOutcome.TRUNCATED_LINE
    assert audit_line(cut, 9).outcome is RequestOutcome.NOT_JSON


def test_str_and_bytes_lines_read_the_same() -> None:
    """A line given as str reads like the same line as bytes (the function is pure)."""
    line = json.dumps(OPENAI[1].line)
    assert audit_line(line, 2) == audit_line(line.encode(), 2)


def test_records_pickle() -> None:
    """A record crosses processes unchanged (pools and distributed engines ship them)."""
    import pickle

    record = _read(ANTHROPIC[1].line)
    assert pickle.loads(pickle.dumps(record)) == record


def test_vertex_and_bedrock_records_carry_their_request() -> None:
    """Vertex and Bedrock lines echo their request; the record keeps it in its input form."""
    vertex = _read(ALL["vertex"][1].line)
    assert vertex.request == {"request": ALL["vertex"][1].line["request"]}
    bedrock = _read(BEDROCK[1].line)
    assert bedrock.request == {
        "recordId": "CALL0000002",
        "modelInput": BEDROCK[1].line["modelInput"],
    }


def _chat_choices(*finishes: str) -> dict[str, Any]:
    body = chat_body(finishes[0])
    first = body["choices"][0]
    body["choices"] = [{**first, "index": i, "finish_reason": f} for i, f in enumerate(finishes)]
    return openai_ok("n-1", body)


def _gemini_candidates(*finishes: str) -> dict[str, Any]:
    response = gemini_response(finishes[0])
    first = response["candidates"][0]
    response["candidates"] = [
        {**first, "index": i, "finishReason": f} for i, f in enumerate(finishes)
    ]
    return {"key": "n-1", "response": response}


@pytest.mark.parametrize(
    ("line", "reason", "detail"),
    [
        (_chat_choices("stop", "length"), "output_limit", "max_tokens"),
        (_chat_choices("length", "content_filter", "stop"), "filtered", "safety"),
        (_chat_choices("stop", "stop"), "completed", None),
        (_gemini_candidates("STOP", "MAX_TOKENS"), "output_limit", "max_tokens"),
        (_gemini_candidates("STOP", "SAFETY"), "filtered", "safety"),
    ],
    ids=["chat: cut second", "chat: filtered second", "chat: all done",
         "gemini: cut second", "gemini: filtered second"],
)  # fmt: skip
def test_a_reply_of_several_choices_is_read_by_its_strictest(
    line: dict[str, Any], reason: str, detail: str | None
) -> None:
    """A reply of several choices (OpenAI `n`, Gemini `candidateCount`) counts as its strictest."""
    record = _read(line)
    want = (RequestOutcome.REPLIED, reason, detail)
    assert (record.outcome, record.reason, record.detail) == want
