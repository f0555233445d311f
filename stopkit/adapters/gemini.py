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

Example:
    >>> stop = GeminiAdapter().normalize({"candidates": [{"content": {"role": "model",
    ...     "parts": [{"text": "Hi"}]}, "finishReason": "STOP"}]})
    >>> (stop.reason.value, stop.text)
    ('completed', 'Hi')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters import _gemini_turns
from stopkit.adapters._common import as_list, as_raw, field, field2, make_stop, tool_call

if TYPE_CHECKING:
    from stopkit.adapters._gemini_stream import GeminiStream

__all__ = ["BLOCK_REASONS", "FINISH_REASONS", "GeminiAdapter", "pick"]

PROVIDER = "gemini"
# isinstance() tuples, built once (a `list | tuple` union is built anew at every call).
_SEQUENCES = (list, tuple)
_NOT_A_CANDIDATE = (str, int, float, list)
_NOT_A_REPLY = (dict, str, bytes, int, float, list, tuple)

# Source: google-genai google/genai/types.py, `class FinishReason` (24 members), and the
# proto comments of google/ai/generativelanguage/v1beta/generative_service.proto.
FINISH_REASONS: dict[str, tuple[StopReason, str | None]] = {
    "STOP": (StopReason.COMPLETED, None),  # also a stop sequence: Gemini does not say which
    "MAX_TOKENS": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "SAFETY": (StopReason.FILTERED, "safety"),
    "RECITATION": (StopReason.FILTERED, "recitation"),
    "LANGUAGE": (StopReason.FILTERED, "policy"),  # an unsupported language: a policy, not harm
    # A terminology blocklist is configured by the caller: a guardrail of theirs.
    "BLOCKLIST": (StopReason.FILTERED, "guardrail"),
    "PROHIBITED_CONTENT": (StopReason.FILTERED, "safety"),
    "SPII": (StopReason.FILTERED, "safety"),
    "IMAGE_SAFETY": (StopReason.FILTERED, "safety"),
    "IMAGE_PROHIBITED_CONTENT": (StopReason.FILTERED, "safety"),
    "IMAGE_RECITATION": (StopReason.FILTERED, "recitation"),
    "MODEL_ARMOR": (StopReason.FILTERED, "guardrail"),  # Vertex Model Armor templates
    "ESCALATION": (StopReason.FILTERED, "policy"),  # an escalation rule filtered the request
    "PUP_LIMITED_DISABLED": (StopReason.FILTERED, "policy"),  # account limited (Prohibited Use)
    "CONTINUATION": (StopReason.PAUSED, "continuation"),  # resume with the continuationToken
    "MALFORMED_FUNCTION_CALL": (StopReason.UNKNOWN, "error"),
    "UNEXPECTED_TOOL_CALL": (StopReason.UNKNOWN, "error"),
    "TOO_MANY_TOOL_CALLS": (StopReason.UNKNOWN, "error"),
    "MALFORMED_RESPONSE": (StopReason.UNKNOWN, "error"),
    "MISSING_THOUGHT_SIGNATURE": (StopReason.UNKNOWN, "error"),  # the request lacked one
    "OTHER": (StopReason.UNKNOWN, "error"),
    # Image generation stopped "for a reason not otherwise specified": the image twin of OTHER.
    "IMAGE_OTHER": (StopReason.UNKNOWN, "error"),
    # An image was expected and none came: calling that `completed` would hide the failure,
    # and nothing says it was filtered, so it is escalated as an error.
    "NO_IMAGE": (StopReason.UNKNOWN, "error"),
    # The proto default, "unused": no real stop signal was given.
    "FINISH_REASON_UNSPECIFIED": (StopReason.UNKNOWN, "missing"),
}

# Source: google-genai google/genai/types.py, `class BlockedReason` (8 members). Every value
# means the prompt was refused before any candidate was generated.
BLOCK_REASONS: dict[str, tuple[StopReason, str | None]] = {
    "SAFETY": (StopReason.FILTERED, "prompt_blocked"),
    "OTHER": (StopReason.FILTERED, "prompt_blocked"),
    "BLOCKLIST": (StopReason.FILTERED, "prompt_blocked"),
    "PROHIBITED_CONTENT": (StopReason.FILTERED, "prompt_blocked"),
    "IMAGE_SAFETY": (StopReason.FILTERED, "prompt_blocked"),
    "MODEL_ARMOR": (StopReason.FILTERED, "prompt_blocked"),
    "JAILBREAK": (StopReason.FILTERED, "prompt_blocked"),
    # The proto default; sent with no candidates, the prompt was still refused.
    "BLOCKED_REASON_UNSPECIFIED": (StopReason.FILTERED, "prompt_blocked"),
}

# Integer encodings (proto JSON with `enum-encoding=int`, e.g. Google's Go clients). The two
# APIs number their enums differently from 6 on. Gemini API: Candidate.FinishReason in
# google/ai/generativelanguage/v1beta/generative_service.proto.
GEMINI_API_FINISH_NUMBERS: dict[int, str] = {
    0: "FINISH_REASON_UNSPECIFIED", 1: "STOP", 2: "MAX_TOKENS", 3: "SAFETY", 4: "RECITATION",
    5: "OTHER", 6: "LANGUAGE", 7: "BLOCKLIST", 8: "PROHIBITED_CONTENT", 9: "SPII",
    10: "MALFORMED_FUNCTION_CALL", 11: "IMAGE_SAFETY", 12: "UNEXPECTED_TOOL_CALL",
    13: "TOO_MANY_TOOL_CALLS", 14: "IMAGE_PROHIBITED_CONTENT", 15: "IMAGE_OTHER",
    16: "NO_IMAGE", 17: "IMAGE_RECITATION",
}  # fmt: skip
# Vertex AI: google.cloud.aiplatform.v1 Candidate.FinishReason (content.proto).
VERTEX_FINISH_NUMBERS: dict[int, str] = {
    0: "FINISH_REASON_UNSPECIFIED", 1: "STOP", 2: "MAX_TOKENS", 3: "SAFETY", 4: "RECITATION",
    5: "OTHER", 6: "BLOCKLIST", 7: "PROHIBITED_CONTENT", 8: "SPII",
    9: "MALFORMED_FUNCTION_CALL", 10: "MODEL_ARMOR",
}  # fmt: skip
# PromptFeedback.BlockReason: the Gemini API proto, then Vertex's `BlockedReason`.
GEMINI_API_BLOCK_NUMBERS: dict[int, str] = {
    0: "BLOCKED_REASON_UNSPECIFIED", 1: "SAFETY", 2: "OTHER", 3: "BLOCKLIST",
    4: "PROHIBITED_CONTENT", 5: "IMAGE_SAFETY",
}  # fmt: skip
VERTEX_BLOCK_NUMBERS: dict[int, str] = {
    0: "BLOCKED_REASON_UNSPECIFIED", 1: "SAFETY", 2: "OTHER", 3: "BLOCKLIST",
    4: "PROHIBITED_CONTENT", 5: "MODEL_ARMOR", 6: "JAILBREAK",
}  # fmt: skip

# Parts that ran (or will run) on Google's side: never client tool calls.
_SERVER_PARTS = (
    ("executableCode", "executable_code"),
    ("codeExecutionResult", "code_execution_result"),
    ("toolCall", "tool_call"),
    ("toolResponse", "tool_response"),
)


def pick(obj: Any, camel: str, snake: str) -> Any:
    """Read a field spelled `camel` (REST JSON) or `snake` (SDK objects, some REST bodies).

    `field2` for dicts; on SDK objects only the snake_case attribute is read, because a missed
    attribute costs microseconds on a pydantic model (its `__getattr__` raises).
    """
    if type(obj) is dict:  # `field2` inlined for the JSON body: the usual case
        value = obj.get(camel)
        return obj.get(snake) if value is None else value
    if isinstance(obj, dict):
        return field2(obj, camel, snake)
    return field(obj, snake)


def _is_vertex(reply: Any) -> bool:
    """Vertex replies carry `createTime`; the Gemini API's never do (used for int enums)."""
    return pick(reply, "createTime", "create_time") is not None


def lookup(
    raw: Any,
    table: dict[str, tuple[StopReason, str | None]],
    numbers: dict[int, str],
    title: str,
    notes: list[str],
    details: dict[str, Any],
) -> tuple[StopReason, str | None]:
    """Map one raw enum value (a string, an SDK member or an int) through `table` (internal)."""
    if type(raw) is str:
        entry = table.get(raw)
        if entry is not None:
            return entry
        entry = table.get(raw.upper())
        if entry is not None:  # the SDK's enums are case-insensitive; so are we
            notes.append(f"{title} {raw!r} read as {raw.upper()!r} (case-insensitive)")
            return entry
        notes.append(f"{title} {raw!r} is not a known value: unknown, nothing is run")
        return StopReason.UNKNOWN, "unrecognized"
    if type(raw) is int:
        name = numbers.get(raw)
        if name is None:
            notes.append(f"{title} {raw} is not a known enum number: unknown, nothing is run")
            return StopReason.UNKNOWN, "unrecognized"
        vertex = numbers is VERTEX_FINISH_NUMBERS or numbers is VERTEX_BLOCK_NUMBERS
        numbering = "Vertex AI" if vertex else "Gemini API"
        notes.append(f"{title} {raw} decoded as {name!r} ({numbering} enum numbering)")
        details["decoded_reason"] = name
        return table[name]
    if raw is None:
        notes.append(f"no {title} on the candidate: the reply gave no stop signal")
        return StopReason.UNKNOWN, "missing"
    notes.append(f"{title} is a {type(raw).__name__}, not a string or enum number")
    return StopReason.UNKNOWN, "malformed"


def _synthetic_id(name: Any, n: int) -> str:
    return f"{name}_{n}" if isinstance(name, str) and name else f"call_{n}"


def read_call(fc: Any, n: int, synthetic: list[str]) -> ToolCall:
    """Turn one `functionCall` (dict or SDK object) into a `ToolCall` (internal)."""
    if type(fc) is dict:
        name, call_id, args = fc.get("name"), fc.get("id"), fc.get("args")
        if args is not None:  # the JSON body's usual call: the steps below, `pick` inlined
            if type(call_id) is not str or not call_id:
                call_id = f"{name}_{n}" if type(name) is str and name else f"call_{n}"
                synthetic.append(call_id)
            call = tool_call(call_id, name, args)
            if "willContinue" not in fc and "will_continue" not in fc:
                return call  # a finished call: the usual case
            more = fc.get("willContinue")
            if more is None:
                more = fc.get("will_continue")
            if more is True:
                return call.model_copy(update={"complete": False, "error": _STILL_STREAMING})
            return call
    else:
        name, call_id, args = field(fc, "name"), field(fc, "id"), field(fc, "args")
    if not isinstance(call_id, str) or not call_id:
        call_id = _synthetic_id(name, n)
        synthetic.append(call_id)
    error: str | None = None
    if args is None:
        partial = pick(fc, "partialArgs", "partial_args")
        if partial:
            from stopkit.adapters._gemini_stream import assemble_partial_args

            args, error = assemble_partial_args({}, as_list(partial))
    call = tool_call(call_id, name, {} if args is None else args)
    if error is None and pick(fc, "willContinue", "will_continue") is True:
        error = _STILL_STREAMING
    if error is not None:
        return call.model_copy(update={"complete": False, "error": error})
    return call


_STILL_STREAMING = "the call's arguments were still streaming (willContinue) when the reply ended"


# (finishReason as sent, a str or an int; number of calls) -> the tool_request note; bounded.
_TOOL_NOTES: dict[tuple[Any, int], str] = {}


def _shown(raw_reason: Any) -> Any:
    """The finishReason as notes quote it: a string in quotes, a number as is."""
    return repr(raw_reason) if type(raw_reason) is str else raw_reason


def _phrase(n: int) -> str:
    return f"{n} function call" + ("" if n == 1 else "s")


def read_candidate(candidate: Any, position: int, reply: Any) -> Stop:
    """Return the `Stop` of one candidate: the table, then the reconciliation steps (internal)."""
    notes: list[str] = []
    details: dict[str, Any] = {"candidate_index": position}
    plain = type(candidate) is dict  # the JSON body: `field` / `pick` inlined (same answers)
    content = candidate.get("content") if plain else field(candidate, "content")
    raw_parts = content.get("parts") if type(content) is dict else field(content, "parts")
    malformed: str | None = None
    if candidate is None or isinstance(candidate, _NOT_A_CANDIDATE):
        malformed = f"candidate {position} is a {type(candidate).__name__}, not an object"
    elif raw_parts is not None and not isinstance(raw_parts, _SEQUENCES):
        malformed = f"content.parts is a {type(raw_parts).__name__}, not a list"
    texts: list[str] = []
    calls: list[ToolCall] = []
    synthetic: list[str] = []
    server = 0
    for part in as_list(raw_parts):
        if type(part) is dict:  # the JSON body's text and call parts, read without helpers
            text = part.get("text")
            if text is not None:
                if isinstance(text, str) and part.get("thought") is not True:
                    texts.append(text)
                continue
            fc = part.get("functionCall")
            if fc is None:
                fc = part.get("function_call")
            if fc is not None:
                calls.append(read_call(fc, len(calls), synthetic))
                continue
        text = field(part, "text")
        if text is not None:
            if isinstance(text, str) and field(part, "thought") is not True:
                texts.append(text)
            continue
        fc = pick(part, "functionCall", "function_call")
        if fc is not None:
            calls.append(read_call(fc, len(calls), synthetic))
        elif any(pick(part, camel, snake) is not None for camel, snake in _SERVER_PARTS):
            server += 1
    if server:
        notes.append(
            f"{server} server-side part(s) (code execution, built-in tools): not tool calls"
        )
    if synthetic:
        details["synthetic_call_ids"] = tuple(synthetic)

    raw_reason = pick(candidate, "finishReason", "finish_reason")
    if type(raw_reason) is not str:
        raw_reason = as_raw(raw_reason)
    entry = FINISH_REASONS.get(raw_reason) if type(raw_reason) is str else None
    if entry is not None:  # lookup's first step, inlined: the usual case
        reason, detail = entry
    else:
        # The enum numbering (Vertex or Gemini API) matters only for an int.
        vertex = type(raw_reason) is int and _is_vertex(reply)
        numbers = VERTEX_FINISH_NUMBERS if vertex else GEMINI_API_FINISH_NUMBERS
        title = "finishReason"
        reason, detail = lookup(raw_reason, FINISH_REASONS, numbers, title, notes, details)
    if malformed is not None:
        notes.append(malformed)
        reason, detail = StopReason.UNKNOWN, "malformed"
    token = pick(candidate, "continuationToken", "continuation_token")
    if token is not None:
        details["continuation_token"] = token

    if reason is StopReason.OUTPUT_LIMIT and calls:
        shown = _shown(raw_reason)
        notes.append(f"finishReason {shown} cut {_phrase(len(calls))}: marked incomplete")
        calls = [_cut(call) for call in calls]
    elif reason is StopReason.COMPLETED and calls:
        broken = [call for call in calls if not call.complete]
        if broken:
            notes.append(
                f"finishReason {_shown(raw_reason)} with {_phrase(len(calls))}, "
                f"{len(broken)} unreadable "
                f"({broken[0].error}): unknown, nothing is run"
            )
            reason, detail = StopReason.UNKNOWN, "malformed"
        else:
            note = _TOOL_NOTES.get((raw_reason, len(calls)))  # the same words, built once
            if note is None:
                shown = _shown(raw_reason)
                note = f"finishReason {shown} with {_phrase(len(calls))}: treated as tool_request"
                if len(_TOOL_NOTES) < 64:
                    _TOOL_NOTES[raw_reason, len(calls)] = note
            notes.append(note)
            reason, detail = StopReason.TOOL_REQUEST, None
    elif reason is StopReason.PAUSED and not token:
        notes.append(
            f"finishReason {_shown(raw_reason)} without a continuationToken: nothing to resume from"
        )
        reason, detail = StopReason.UNKNOWN, "missing"
    elif calls and reason is not StopReason.TOOL_REQUEST:
        notes.append(
            f"{_phrase(len(calls))} under finishReason {_shown(raw_reason)}: listed, not run"
        )

    for camel, snake in _CANDIDATE_DETAILS:
        if plain:
            value = candidate.get(camel)
            if value is None:
                value = candidate.get(snake)
        else:
            value = pick(candidate, camel, snake)
        if value is not None:
            details[snake] = value
    _reply_details(reply, details)
    return make_stop(
        reason,
        provider=PROVIDER,
        raw=reply,
        raw_reason=raw_reason,
        detail=detail,
        text="".join(texts),
        tool_calls=tuple(calls),
        notes=notes,
        details=details,
    )


# The candidate's extras kept in `details` (under the snake_case name).
_CANDIDATE_DETAILS = (
    ("finishMessage", "finish_message"),
    ("safetyRatings", "safety_ratings"),
    ("citationMetadata", "citation_metadata"),
)


def _cut(call: ToolCall) -> ToolCall:
    return call.model_copy(
        update={"complete": False, "error": call.error or "cut off by MAX_TOKENS"}
    )


def _reply_details(reply: Any, details: dict[str, Any]) -> None:
    if type(reply) is dict:  # the JSON body: `pick` inlined (once per reply, on the hot path)
        version = reply.get("modelVersion")
        if version is None:
            version = reply.get("model_version")
        feedback = reply.get("promptFeedback")
        if feedback is None:
            feedback = reply.get("prompt_feedback")
    else:
        version = pick(reply, "modelVersion", "model_version")
        feedback = pick(reply, "promptFeedback", "prompt_feedback")
    if version is not None:
        details["model_version"] = version
    if feedback is not None:
        details["prompt_feedback"] = feedback


def _reply_stop(reply: Any) -> Stop:
    """The `Stop` of a reply with no candidates: a blocked prompt, or no signal at all."""
    notes: list[str] = []
    details: dict[str, Any] = {}
    feedback = pick(reply, "promptFeedback", "prompt_feedback")
    block = as_raw(pick(feedback, "blockReason", "block_reason"))
    _reply_details(reply, details)
    if block is None:
        notes.append("no candidates and no promptFeedback.blockReason: no stop signal")
        return make_stop(
            StopReason.UNKNOWN, provider=PROVIDER, raw=reply, detail="missing",
            notes=notes, details=details,
        )  # fmt: skip
    numbers = VERTEX_BLOCK_NUMBERS if _is_vertex(reply) else GEMINI_API_BLOCK_NUMBERS
    title = "promptFeedback.blockReason"
    reason, detail = lookup(block, BLOCK_REASONS, numbers, title, notes, details)
    message = pick(feedback, "blockReasonMessage", "block_reason_message")
    if message is not None:
        details["block_reason_message"] = message
    if reason is StopReason.FILTERED:
        notes.append("no candidates: the prompt itself was blocked")
    return make_stop(
        reason, provider=PROVIDER, raw=reply, raw_reason=block, detail=detail,
        notes=notes, details=details,
    )  # fmt: skip


def _candidates(reply: Any) -> list[Any] | Stop:
    candidates = reply.get("candidates") if type(reply) is dict else field(reply, "candidates")
    if type(candidates) is list and candidates:  # the usual reply
        return candidates
    if candidates is None or (isinstance(candidates, _SEQUENCES) and not candidates):
        return _reply_stop(reply)
    if not isinstance(candidates, _SEQUENCES):
        return make_stop(
            StopReason.UNKNOWN, provider=PROVIDER, raw=reply, detail="malformed",
            notes=(f"candidates is a {type(candidates).__name__}, not a list",),
        )  # fmt: skip
    return as_list(candidates)


def normalize_reply(reply: Any) -> Stop:
    """Return the `Stop` of a reply's first candidate (internal; the stream uses it too)."""
    found = _candidates(reply)
    if isinstance(found, Stop):
        return found
    return read_candidate(found[0], 0, reply)


class GeminiAdapter:
    """Reads Gemini API / Vertex AI `generateContent` replies and streams, and continues them.

    Example:
        >>> stopkit.get_adapter("gemini").normalize(response).reason  # doctest: +SKIP
        <StopReason.TOOL_REQUEST: 'tool_request'>
    """

    name = "gemini"
    # The keys `detects` accepts a body on: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = (
        "candidates", "promptFeedback", "prompt_feedback", "usageMetadata"
    )
    tables: ClassVar[dict[str, dict[str, tuple[StopReason, str | None]]]] = {
        "finishReason": FINISH_REASONS,
        "promptFeedback.blockReason": BLOCK_REASONS,
    }
    stream_notes: ClassVar[tuple[str, ...]] = (
        "Chunks are whole responses: text and functionCall parts accumulate, and the reply has "
        "ended at the chunk carrying finishReason (a stream without one is "
        "unknown/stream_incomplete).",
        "A blocked prompt arrives as the first and only chunk, with promptFeedback.blockReason.",
        "Vertex may stream function-call arguments in pieces (partialArgs / willContinue); "
        "they are assembled, and a call still open when the stream breaks is complete=False.",
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
        if isinstance(reply, _NOT_A_REPLY) or reply is None:
            return False
        return hasattr(reply, "candidates") and hasattr(reply, "prompt_feedback")

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a chunk of a `streamGenerateContent` stream."""
        return self.detects(event)

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` of the reply's first candidate; never raises for this shape."""
        if type(reply) is dict:  # the usual JSON body: `normalize_reply`'s first step inlined
            candidates = reply.get("candidates")
            if type(candidates) is list and candidates:
                return read_candidate(candidates[0], 0, reply)
        return normalize_reply(reply)

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        """Return one `Stop` per candidate (a blocked prompt gives one filtered `Stop`)."""
        found = _candidates(reply)
        if isinstance(found, Stop):
            return (found,)
        return tuple(read_candidate(c, i, reply) for i, c in enumerate(found))

    def stream(self) -> GeminiStream:
        """Return a fresh accumulator for one streamed reply (SDK chunks or JSON dicts)."""
        from stopkit.adapters._gemini_stream import GeminiStream

        return GeminiStream()

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
