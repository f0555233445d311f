"""One results line of each provider's batch API, read into a `Record`.

Each provider writes one JSON object per request. The shapes, and where each is documented:

- OpenAI Batch output and error files — `BatchRequestOutput` in OpenAI's OpenAPI spec
  ("The per-line object of the batch output and error files"): `{"id", "custom_id",
  "response": {"status_code", "request_id", "body"} | null, "error": {"code", "message"} | null}`;
  requests the batch did not reach are in the error file with code `batch_expired` /
  `batch_cancelled` (platform.openai.com/docs/guides/batch).
- Anthropic Message Batches results — `anthropic.types.messages.MessageBatchIndividualResponse`:
  `{"custom_id", "result": {"type": "succeeded", "message"} | {"type": "errored", "error":
  ErrorResponse} | {"type": "canceled"} | {"type": "expired"}}`, lines in any order.
- Gemini Batch API (ai.google.dev/gemini-api/docs/batch-api): a JSONL file "where each line is
  either a GenerateContentResponse or a status object", keyed by the request's `key`; inlined
  responses are `google.genai.types.InlinedResponse` items `{response | error, metadata}`.
- Vertex AI batch prediction for Gemini (cloud.google.com/vertex-ai/generative-ai/docs/
  multimodal/batch-prediction-from-cloud-storage): `{"status", "processed_time", "request",
  "response"}`; `status` is empty on success and holds the error otherwise.
- Bedrock batch inference `.jsonl.out` (docs.aws.amazon.com/bedrock/latest/userguide/
  batch-inference-results.html): `{"recordId", "modelInput", "modelOutput"}`, or `"error":
  {"errorCode", "errorMessage"}` in place of `modelOutput`; `modelOutput` is the model's own
  InvokeModel body (Anthropic Messages via Bedrock) or a Converse reply.
"""

from __future__ import annotations

from typing import Any

from stopkit import Adapter, Stop, StopkitError, detect, get_adapter, normalize, normalize_all
from stopkit._json import loads_strict
from stopkit.adapters._strictness import harsher
from stopkit.batch._record import Record, RequestOutcome

__all__ = ["read_item", "read_object"]

_adapters: dict[str, Adapter] = {}


def _adapter(name: str) -> Adapter:
    """The named adapter, looked up once per process (a registry scan per line adds up)."""
    found = _adapters.get(name)
    if found is None:
        found = _adapters[name] = get_adapter(name)
    return found


# google.rpc.Code (googleapis/google/rpc/code.proto): a status object's numeric `code` is one of
# these when it is a gRPC code; HTTP statuses (>= 100) are kept as numbers.
_GRPC_CODES = (
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
)  # fmt: skip


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


_new = tuple.__new__  # a Record from a full tuple, without NamedTuple's keyword handling
_REPLIED = RequestOutcome.REPLIED


def _replied(
    line: int,
    fmt: str,
    rid: str | None,
    body: Any,
    adapter: str | None,
    model: Any,
    request: Any = None,
) -> Record:
    """Normalize a reply body with its adapter (auto-detected when None) into a Record."""
    if type(model) is not str:
        model = _text(model)
    try:
        if adapter is None:
            chosen = detect(body)
        else:  # the Adapter protocol itself: `normalize(adapter=)` would look it up again
            chosen = _adapters.get(adapter) or _adapter(adapter)
            if not chosen.detects(body):
                normalize(body, adapter=chosen)  # raises the UnsupportedReply that says why
        stop = _strictest(chosen, body)
    except StopkitError as exc:  # a body no adapter reads: kept in the message, never fatal
        return Record(
            line, RequestOutcome.UNREADABLE, fmt, rid, model, message=str(exc), request=request
        )
    return _new(  # a Record: tuple.__new__ of its own class, every field given
        Record,
        (line, _REPLIED, fmt, rid, model, stop.reason, stop.detail, stop.raw_reason,
         stop.provider, None, None, request, stop.usage),
    )  # fmt: skip


def _strictest(adapter: Adapter, body: Any) -> Stop:
    """The body's Stop; for several choices, the strictest (the first of equals).

    A request is resubmitted or reviewed as a whole: a cut or filtered second choice must not
    hide behind a finished first one, which is all `normalize` reads.
    """
    # OpenAI's `n` gives several `choices`; Gemini's `candidateCount` several `candidates`.
    several = (body.get("choices") or body.get("candidates")) if type(body) is dict else None
    if type(several) is not list or len(several) < 2:
        return adapter.normalize(body)
    stops = normalize_all(body, adapter=adapter)
    strictest = stops[0]
    for stop in stops[1:]:
        if harsher(stop.reason, strictest.reason):
            strictest = stop
    return strictest


def _errored(line: int, fmt: str, rid: str | None, code: Any, message: Any, model: Any = None,
             request: Any = None) -> Record:  # fmt: skip
    """An errored request, its code as text ("error" where the provider gave none)."""
    return Record(line, RequestOutcome.ERRORED, fmt, rid, _text(model), code=_text(code) or "error",
                  message=_text(message), request=request)  # fmt: skip


def _status_code(status: Any) -> str | None:
    """The code of a google.rpc.Status-like dict: its `status` name, else its numeric code."""
    if type(status) is not dict:
        return None
    name = status.get("status")
    if isinstance(name, str) and name:
        return name
    code = status.get("code")
    if type(code) is int and 0 <= code < len(_GRPC_CODES):
        return _GRPC_CODES[code]
    return _text(code)


def _openai(obj: dict[str, Any], line: int) -> Record:
    rid = obj.get("custom_id")
    if type(rid) is not str:
        rid = _text(rid)
    error = obj.get("error")
    if error:
        return _openai_batch_error(line, rid, error)
    response = obj.get("response")
    return _openai_response(line, rid, response if type(response) is dict else {})


def _openai_batch_error(line: int, rid: str | None, error: Any) -> Record:
    """A request the batch itself answered with an error: expired, canceled, or failed."""
    code = error.get("code") if type(error) is dict else None
    message = error.get("message") if type(error) is dict else str(error)
    if code == "batch_expired":
        return Record(line, RequestOutcome.EXPIRED, "openai", rid, message=message)
    if code == "batch_cancelled":
        return Record(line, RequestOutcome.CANCELED, "openai", rid, message=message)
    return _errored(line, "openai", rid, code, message)


def _openai_response(line: int, rid: str | None, response: dict[str, Any]) -> Record:
    """A request that got a response: an error (by its status or body), or the reply in it."""
    body = response.get("body")
    status = response.get("status_code")
    failed = type(status) is int and status >= 400  # an error by its status, body or not
    if type(body) is not dict or not body:
        if failed:
            return _errored(line, "openai", rid, f"http_{status}", body or None)
        return Record(line, RequestOutcome.NO_BODY, "openai", rid, message="response has no body")
    problem = body.get("error")
    if problem or failed:
        detail = problem if type(problem) is dict else {}
        code = detail.get("code") or detail.get("type") or f"http_{status}"
        return _errored(line, "openai", rid, code, detail.get("message"), body.get("model"))
    kind = body.get("object")
    model = body.get("model")
    if kind == "list" or kind == "embedding":
        return Record(line, RequestOutcome.EMBEDDING, "openai", rid, _text(model))
    adapter = "openai.chat" if kind == "chat.completion" else None
    if kind == "response":
        adapter = "openai.responses"
    return _replied(line, "openai", rid, body, adapter, model)


def _anthropic(obj: dict[str, Any], line: int) -> Record:
    rid = _text(obj.get("custom_id"))
    result = obj["result"]
    kind = result.get("type")
    if kind == "succeeded":
        message = result.get("message")
        if type(message) is not dict or not message:
            return Record(line, RequestOutcome.NO_BODY, "anthropic", rid, message="no message")
        return _replied(line, "anthropic", rid, message, "anthropic", message.get("model"))
    if kind == "errored":
        error = result.get("error")
        # An ErrorResponse wraps the error object: {"type": "error", "error": {"type", ...}}.
        inner = error.get("error") if type(error) is dict else None
        found = inner if type(inner) is dict else error if type(error) is dict else {}
        return _errored(line, "anthropic", rid, found.get("type"), found.get("message"))
    if kind == "expired":
        return Record(line, RequestOutcome.EXPIRED, "anthropic", rid)
    if kind == "canceled":
        return Record(line, RequestOutcome.CANCELED, "anthropic", rid)
    return Record(
        line,
        RequestOutcome.UNKNOWN_SHAPE,
        "anthropic",
        rid,
        message=f"unrecognized result type {kind!r}",
    )


def _gemini_reply(line: int, fmt: str, rid: str | None, response: Any, request: Any) -> Record:
    if "embedding" in response or "embeddings" in response:
        return Record(line, RequestOutcome.EMBEDDING, fmt, rid, request=request)
    model = response.get("modelVersion") or response.get("model_version")  # REST or SDK dump
    return _replied(line, fmt, rid, response, "gemini", model, request)


def _gemini(obj: dict[str, Any], line: int, rid: str | None) -> Record:
    response = obj.get("response")
    if type(response) is dict and response:
        return _gemini_reply(line, "gemini", rid, response, None)
    error = obj.get("error") or obj.get("status")
    if type(error) is dict and error:
        return _errored(line, "gemini", rid, _status_code(error), error.get("message"))
    return Record(line, RequestOutcome.NO_BODY, "gemini", rid, message="neither response nor error")


def _vertex_error(status: str) -> str:
    """The code in a Vertex `status` text, e.g. "Bad Request: {"error": {... "status": X}}"."""
    start = status.find("{")
    if start >= 0:
        try:
            found = loads_strict(status[start:])
        except ValueError:
            found = None
        if type(found) is dict:
            code = _status_code(found.get("error", found))
            if code:
                return code
    head = status.split(":", 1)[0].strip()
    return head[:60] or "error"


def _vertex(obj: dict[str, Any], line: int) -> Record:
    request = obj.get("request")
    echoed = {"request": request} if type(request) is dict else None
    response = obj.get("response")
    if type(response) is dict and response:
        return _gemini_reply(line, "vertex", None, response, echoed)
    status = obj.get("status")
    if isinstance(status, str) and status.strip():
        return _errored(line, "vertex", None, _vertex_error(status), status, request=echoed)
    if type(status) is dict and status:
        code, message = _status_code(status), status.get("message")
        return _errored(line, "vertex", None, code, message, request=echoed)
    return Record(
        line,
        RequestOutcome.NO_BODY,
        "vertex",
        message="neither response nor status",
        request=echoed,
    )


def _bedrock(obj: dict[str, Any], line: int) -> Record:
    rid = _text(obj.get("recordId"))
    model_input = obj.get("modelInput")
    echoed = None
    if type(model_input) is dict:
        echoed = (
            {"modelInput": model_input}
            if rid is None
            else {"recordId": rid, "modelInput": model_input}
        )
    error = obj.get("error")
    if error:
        code = error.get("errorCode") if type(error) is dict else None
        message = error.get("errorMessage") if type(error) is dict else error
        return _errored(line, "bedrock", rid, code, message, request=echoed)
    output = obj.get("modelOutput")
    if type(output) is not dict or not output:
        return Record(
            line, RequestOutcome.NO_BODY, "bedrock", rid, message="no modelOutput", request=echoed
        )
    # modelOutput is the model family's own body: detected (Anthropic Messages, Converse, ...).
    return _replied(line, "bedrock", rid, output, None, output.get("model"), echoed)


def read_item(item: Any, line: int) -> Record:
    """Read one Gemini inlined response (`InlinedResponse`: response or error, metadata)."""
    if type(item) is not dict:
        return Record(line, RequestOutcome.UNKNOWN_SHAPE, "gemini", message="item is not an object")
    metadata = item.get("metadata")
    rid = _text(metadata.get("key")) if type(metadata) is dict else None
    return _gemini(item, line, rid)


_GEMINI_REPLY_KEYS = ("candidates", "promptFeedback", "prompt_feedback", "usageMetadata")


def read_object(obj: Any, line: int) -> Record:
    """Read one parsed results line of any supported format into a `Record` (pure).

    The format is recognized by the line's own keys, so files (and lines) may mix formats; a
    Gemini inlined response (`{response | error, metadata}`) is read too.
    """
    if type(obj) is not dict:
        return Record(
            line,
            RequestOutcome.UNKNOWN_SHAPE,
            message=f"a JSON {type(obj).__name__}, not an object",
        )
    if "custom_id" in obj:
        return _custom_id_line(obj, line)
    if "recordId" in obj or "modelInput" in obj or "modelOutput" in obj:
        return _bedrock(obj, line)
    elif "key" in obj:
        return _gemini(obj, line, _text(obj["key"]))
    elif "processed_time" in obj or "request" in obj:
        return _vertex(obj, line)
    elif any(key in obj for key in _GEMINI_REPLY_KEYS):  # a bare GenerateContentResponse
        return _gemini_reply(line, "gemini", None, obj, None)
    elif "response" in obj or "error" in obj or "metadata" in obj:  # a Gemini inlined response
        return read_item(obj, line)
    return _unknown_shape(obj, line)


def _custom_id_line(obj: dict[str, Any], line: int) -> Record:
    """A line keyed by `custom_id`: Anthropic's (a `result`) or OpenAI's (`response`/`error`)."""
    if type(obj.get("result")) is dict:
        return _anthropic(obj, line)
    if "response" in obj or "error" in obj:
        return _openai(obj, line)
    return _unknown_shape(obj, line)


def _unknown_shape(obj: dict[str, Any], line: int) -> Record:
    keys = ", ".join(repr(k) for k in list(obj)[:8])
    message = f"no batch results shape has keys [{keys}]"
    return Record(line, RequestOutcome.UNKNOWN_SHAPE, message=message)
