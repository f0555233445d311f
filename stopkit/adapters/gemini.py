"""The Gemini adapter: `generateContent` replies of the Gemini API and Vertex AI.

Reads the REST JSON (camelCase, and the snake_case some bodies use) and google-genai's
`GenerateContentResponse`. Each candidate says why it stopped in `finishReason`; its parts
decide the rest: `functionCall` parts are client tool calls (a `STOP` candidate with calls is a
tool request), `executableCode` / `codeExecutionResult` / server `toolCall` parts ran on
Google's side and are not. A reply with no candidates and a `promptFeedback.blockReason` is a
blocked prompt. Some servers send the enums as numbers; they are decoded with Google's proto
numbering and `raw_reason` keeps the number.

A `functionCall` without an `id` (the Gemini API leaves it out) gets a synthetic one,
`<name>_<n>` (n = its position among the candidate's calls); `tool_results` leaves such ids out
of the `functionResponse`, since the API never saw them.

Usage is `usageMetadata` as Gemini counts it (google-genai `GenerateContentResponseUsageMetadata`):
`promptTokenCount` (cached tokens included) as input, `candidatesTokenCount` as output (thoughts
NOT included), `thoughtsTokenCount` as reasoning, `cachedContentTokenCount` as cache reads,
`totalTokenCount` as the total; Gemini reports no cache writes.

Example:
    >>> stop = GeminiAdapter().normalize({"candidates": [{"content": {"role": "model",
    ...     "parts": [{"text": "Hi"}]}, "finishReason": "STOP"}]})
    >>> (stop.reason.value, stop.text)
    ('completed', 'Hi')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters import _gemini_turns
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._calls import cut, tool_call
from stopkit.adapters._gemini_args import assemble_partial_args
from stopkit.adapters._gemini_rules import (
    BLOCK_REASONS,
    BLOCK_TITLE,
    FINISH_REASONS,
    FINISH_TITLE,
    GEMINI_API_BLOCK_NUMBERS,
    GEMINI_API_FINISH_NUMBERS,
    RULES,
    VERTEX_BLOCK_NUMBERS,
    VERTEX_FINISH_NUMBERS,
    decode,
)
from stopkit.adapters._gemini_stream import GeminiStream
from stopkit.adapters._reading import Reading, identify, tokens
from stopkit.adapters._wire import either, listed, raw_value, wire

__all__ = ["GeminiAdapter"]

# isinstance() tuples, built once (a `list | tuple` union is built anew at every call).
_SEQUENCES = (list, tuple)
_NOT_AN_OBJECT = (str, bytes, int, float, list, tuple)
_NOT_A_REPLY = (*_NOT_AN_OBJECT, Mapping)

# Parts that ran (or will run) on Google's side: never client tool calls.
_SERVER_PARTS = (
    ("executableCode", "executable_code"),
    ("codeExecutionResult", "code_execution_result"),
    ("toolCall", "tool_call"),
    ("toolResponse", "tool_response"),
)

# The candidate's extras kept in `details` (under the snake_case name).
_CANDIDATE_DETAILS = (
    ("finishMessage", "finish_message"),
    ("safetyRatings", "safety_ratings"),
    ("citationMetadata", "citation_metadata"),
)

_STILL_STREAMING = "the call's arguments were still streaming (willContinue) when the reply ended"


def _read(reply: Any) -> Reading:
    """Read a reply's first candidate (a reply with none: its prompt feedback) into its facts.

    Example:
        >>> reading = _read({"candidates": [{"content": {"parts": [
        ...     {"functionCall": {"name": "f", "args": {"a": 1}}}]}, "finishReason": "STOP"}]})
        >>> (reading.raw_reason, [call.id for call in reading.calls])
        ('STOP', ['f_0'])
    """
    fields = wire(reply)
    candidates = fields.get("candidates")
    if type(candidates) is list and candidates:  # the usual reply
        return _candidate(reply, fields, candidates[0], 0)
    return _readings(reply)[0]


def _readings(reply: Any) -> list[Reading]:
    """Read every candidate of a reply into its facts, in order (a reply with none: one).

    Example:
        >>> [r.raw_reason for r in _readings({"promptFeedback": {"blockReason": "SAFETY"}})]
        ['SAFETY']
    """
    fields = wire(reply)
    candidates = fields.get("candidates")
    found = listed(candidates)
    if found:
        return [_candidate(reply, fields, c, i) for i, c in enumerate(found)]
    reading = Reading(reply)
    _reply_facts(reading, fields)
    if candidates is None or isinstance(candidates, _SEQUENCES):
        _prompt_feedback(reading, fields)
    else:
        reading.malformed = f"candidates is a {type(candidates).__name__}, not a list"
    return [reading]


def _vertex(fields: Mapping[str, Any]) -> bool:
    """Vertex replies carry `createTime`; the Gemini API's never do (used for enum numbers)."""
    return either(fields, "createTime", "create_time") is not None


def _prompt_feedback(reading: Reading, fields: Mapping[str, Any]) -> None:
    """A reply with no candidates: its stop value is the prompt feedback's `blockReason`."""
    feedback = wire(either(fields, "promptFeedback", "prompt_feedback"))
    reading.field = BLOCK_TITLE
    reading.raw_reason = raw_value(either(feedback, "blockReason", "block_reason"))
    if reading.raw_reason is None:
        reading.notes.append("the reply has no candidates")
    numbers = VERTEX_BLOCK_NUMBERS if _vertex(fields) else GEMINI_API_BLOCK_NUMBERS
    decode(reading, BLOCK_REASONS, numbers, BLOCK_TITLE)
    message = either(feedback, "blockReasonMessage", "block_reason_message")
    if message is not None:
        reading.details["block_reason_message"] = message


def _reply_facts(reading: Reading, fields: Mapping[str, Any]) -> None:
    """What the whole reply says beside its candidates: model, prompt feedback, usage."""
    details = reading.details
    version = either(fields, "modelVersion", "model_version")
    if version is not None:
        details["model_version"] = version
    # google-genai types.py `GenerateContentResponse`: `model_version`, `response_id`.
    identify(reading, version, either(fields, "responseId", "response_id"))
    feedback = either(fields, "promptFeedback", "prompt_feedback")
    if feedback is not None:
        details["prompt_feedback"] = feedback
    usage = either(fields, "usageMetadata", "usage_metadata")
    if usage is not None:
        # google-genai types.py `GenerateContentResponseUsageMetadata`: the prompt count
        # includes cached content; the candidates count excludes thoughts.
        details["usage"] = usage
        counts = wire(usage)
        reading.usage = tokens(
            either(counts, "promptTokenCount", "prompt_token_count"),
            either(counts, "candidatesTokenCount", "candidates_token_count"),
            either(counts, "thoughtsTokenCount", "thoughts_token_count"),
            either(counts, "cachedContentTokenCount", "cached_content_token_count"),
            None,
            either(counts, "totalTokenCount", "total_token_count"),
        )


def _candidate(reply: Any, fields: Mapping[str, Any], candidate: Any, position: int) -> Reading:
    """Read one candidate (`position` in the reply) into its facts."""
    said = wire(candidate)
    raw = either(said, "finishReason", "finish_reason")
    if type(raw) is not str:
        raw = raw_value(raw)  # an SDK enum member: its wire value
    reading = Reading(reply, raw)
    details = reading.details
    details["candidate_index"] = position
    parts = wire(said.get("content")).get("parts")
    if candidate is None or isinstance(candidate, _NOT_AN_OBJECT):
        reading.malformed = f"candidate {position} is a {type(candidate).__name__}, not an object"
    elif type(raw) is not str or raw not in FINISH_REASONS:
        numbers = VERTEX_FINISH_NUMBERS if _vertex(fields) else GEMINI_API_FINISH_NUMBERS
        decode(reading, FINISH_REASONS, numbers, FINISH_TITLE)
    if parts is not None and not isinstance(parts, _SEQUENCES):
        reading.malformed = f"content.parts is a {type(parts).__name__}, not a list"
    _parts(reading, listed(parts))
    token = either(said, "continuationToken", "continuation_token")
    if token is not None:
        details["continuation_token"] = token
    for camel, snake in _CANDIDATE_DETAILS:
        value = either(said, camel, snake)
        if value is not None:
            details[snake] = value
    _reply_facts(reading, fields)
    return reading


def _parts(reading: Reading, parts: list[Any]) -> None:
    """Read a candidate's parts: visible text, client calls, server-side parts (counted)."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    synthetic: list[str] = []
    server = 0
    open_last = False
    for part in parts:
        said = wire(part)
        text = said.get("text")
        open_last = False
        if text is not None:
            if isinstance(text, str) and said.get("thought") is not True:
                texts.append(text)
            continue
        fc = either(said, "functionCall", "function_call")
        if fc is not None:
            call, open_last = _call(wire(fc), len(calls), synthetic)
            calls.append(call)
        elif any(either(said, camel, snake) is not None for camel, snake in _SERVER_PARTS):
            server += 1
    reading.text = "".join(texts)
    reading.calls = calls
    reading.cut_in_call = open_last
    if server:
        reading.notes.append(
            f"{server} server-side part(s) (code execution, built-in tools): not tool calls"
        )
    if synthetic:
        reading.details["synthetic_call_ids"] = tuple(synthetic)


def _call(said: Mapping[str, Any], n: int, synthetic: list[str]) -> tuple[ToolCall, bool]:
    """Build one `functionCall` (the `n`th of its candidate); say whether it is still open."""
    name, call_id, args = said.get("name"), said.get("id"), said.get("args")
    if call_id is None or call_id == "":
        # The Gemini API sends no ids: one is made up, and `tool_results` leaves it out.
        call_id = f"{name}_{n}" if type(name) is str and name else f"call_{n}"
        synthetic.append(call_id)
    error: str | None = None
    if args is None:
        partials = either(said, "partialArgs", "partial_args")
        if partials:
            args, error = assemble_partial_args({}, listed(partials))
    call = tool_call(call_id, name, {} if args is None else args)
    still_open = either(said, "willContinue", "will_continue") is True
    if error is None and still_open:
        error = _STILL_STREAMING
    if error is not None:
        call = cut(call, error)
    return call, still_open


class GeminiAdapter(BaseAdapter):
    """Reads Gemini API / Vertex AI `generateContent` replies and streams, and continues them.

    Example:
        >>> stopkit.get_adapter("gemini").normalize(response).reason  # doctest: +SKIP
        <StopReason.TOOL_REQUEST: 'tool_request'>
    """

    name = "gemini"
    rules = RULES
    # A reply says nothing of which Google endpoint sent it: `gcp.gen_ai` ("may be used when
    # specific backend is unknown"); a wrapped google-genai client says which.
    otel_provider = "gcp.gen_ai"
    otel_operation = "generate_content"  # the listed value for generateContent
    # `candidatesTokenCount` leaves out thinking (`thoughtsTokenCount`).
    counts_apart = frozenset({"reasoning"})
    read = staticmethod(_read)
    readings = staticmethod(_readings)
    # The keys `detects` accepts a body on: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = (
        "candidates", "promptFeedback", "prompt_feedback", "usageMetadata"
    )  # fmt: skip
    tables: ClassVar[dict[str, dict[str, tuple[StopReason, str | None]]]] = {
        "finishReason": FINISH_REASONS,
        "promptFeedback.blockReason": BLOCK_REASONS,
    }
    stream_notes = (
        "Chunks are whole responses: text and functionCall parts accumulate, and the reply has "
        "ended at the chunk carrying finishReason (a stream without one is "
        "unknown/stream_incomplete).",
        "After that chunk no text or call is taken (a note counts the chunks); a stricter "
        "finishReason still wins, and usage and metadata are still read.",
        "A blocked prompt arrives as the first and only chunk, with promptFeedback.blockReason.",
        "Vertex may stream function-call arguments in pieces (partialArgs / willContinue); "
        "they are assembled, and a call still open at the finishReason, or when the stream "
        "breaks, is complete=False.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a `generateContent` reply (dict or SDK object)."""
        if type(reply) is dict:
            return (
                "candidates" in reply
                or "promptFeedback" in reply
                or "prompt_feedback" in reply
                or ("usageMetadata" in reply and "modelVersion" in reply)
            )
        if reply is None or isinstance(reply, _NOT_A_REPLY):
            return False
        fields = wire(reply)
        return "candidates" in fields and "prompt_feedback" in fields

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a chunk of a `streamGenerateContent` stream."""
        return self.detects(event)

    def stream(self) -> GeminiStream:
        """Return a fresh accumulator for one streamed reply (SDK chunks or JSON dicts)."""
        return GeminiStream(_read)

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the model content to append: `{"role": "model", "parts": [...]}` as sent.

        Parts go back as the model sent them, thought parts and `thoughtSignature` fields
        included (Gemini needs the signatures back), except blank text parts without a
        signature, which Vertex rejects; SDK objects are dumped to camelCase JSON. A reply
        without content (a blocked prompt) gives `[]`.
        """
        return _gemini_turns.assistant_message(stop)

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one user content of `functionResponse` parts, one per call, in the calls' order.

        `response` is `{"error": ...}` for a failed call, the JSON object itself when the
        result is one, else `{"result": ...}`. `id` is sent when the call had one (not for the
        synthetic ids stopkit made up). Results for ids the reply did not ask for follow.
        """
        return _gemini_turns.tool_results(stop, results)

    def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Return what resumes a `CONTINUATION` reply: no messages, and the continuation token.

        The overrides are `{"continuation_token": <base64 str>}`: pass it as
        `GenerateContentConfig(continuation_token=...)` with google-genai, or as the request
        body's top-level `continuationToken` over REST. The request is sent again unchanged,
        as google-genai's own automatic continuation does (`models.py`,
        `_generate_content_with_continuation`): the token carries the generation state, so
        the paused model content is not appended; the next reply continues it. Raises
        `ValueError` for a Stop that is not paused.
        """
        return _gemini_turns.resume(stop)

    def user_message(self, text: str) -> dict[str, Any]:
        """Return a user message saying `text`: a `Content` with one text part.

        Example:
            >>> GeminiAdapter().user_message("Go on.")
            {'role': 'user', 'parts': [{'text': 'Go on.'}]}
        """
        return {"role": "user", "parts": [{"text": text}]}
