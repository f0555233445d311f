"""The Gemini stream accumulator, and the assembly of Vertex's streamed function-call arguments.

A `streamGenerateContent` stream is a list of whole `GenerateContentResponse` chunks. Text and
`functionCall` parts accumulate per candidate; the chunk carrying `finishReason` ends the
candidate. Vertex may stream one call's arguments in pieces: a `functionCall` with a `name`
and `willContinue: true` opens the call, chunks with `partialArgs` (a JSONPath and one value,
string values continued across pieces while the piece says `willContinue`) fill it, and a
`functionCall` without `willContinue` closes it (google-genai `types.py`: `FunctionCall`,
`PartialArg`). At `result()` the chunks are merged into the reply the stream amounts to, and
that reply is read exactly as a non-streaming one (`stop.raw` is that merged reply).
"""

from __future__ import annotations

import base64
from typing import Any

from stopkit._stop import Stop, StopReason
from stopkit.adapters._common import _is_plain_model, as_list, as_raw, field, make_stop
from stopkit.adapters._gemini_turns import plain
from stopkit.adapters.gemini import PROVIDER, normalize_reply, pick, read_candidate

__all__ = ["GeminiStream", "assemble_partial_args"]


def _path_tokens(path: Any) -> list[str | int] | None:
    """Split a JSONPath such as `$.a.b[0]['c d']` into keys and indexes; None when unreadable."""
    if not isinstance(path, str) or not path.startswith("$"):
        return None
    out: list[str | int] = []
    i, n = 1, len(path)
    while i < n:
        c = path[i]
        if c == ".":
            j = i + 1
            while j < n and path[j] not in ".[":
                j += 1
            if j == i + 1:
                return None
            out.append(path[i + 1 : j])
            i = j
        elif c == "[":
            j = path.find("]", i)
            if j < 0:
                return None
            inner = path[i + 1 : j]
            if len(inner) >= 2 and inner[0] in "'\"" and inner[-1] == inner[0]:
                out.append(inner[1:-1])
            elif inner.isdigit():
                out.append(int(inner))
            else:
                return None
            i = j + 1
        else:
            return None
    return out or None


def _put(root: dict[str, Any], tokens: list[str | int], value: Any) -> bool:
    """Set `value` at `tokens` inside `root`, creating objects and arrays on the way."""
    node: Any = root
    last = len(tokens) - 1
    for pos, key in enumerate(tokens):
        if isinstance(key, int):
            if not isinstance(node, list):
                return False
            node.extend([None] * (key + 1 - len(node)))
        elif not isinstance(node, dict):
            return False
        if pos == last:
            node[key] = value
            return True
        child = node[key] if isinstance(key, int) else node.get(key)
        if child is None:
            child = [] if isinstance(tokens[pos + 1], int) else {}
            node[key] = child
        node = child
    return False


def _partial_value(partial: Any) -> tuple[bool, Any]:
    """Return (is_string, value) of one `PartialArg` (dict or SDK object)."""
    text = pick(partial, "stringValue", "string_value")
    if text is not None:
        return True, text
    for camel, snake in (("numberValue", "number_value"), ("boolValue", "bool_value")):
        value = pick(partial, camel, snake)
        if value is not None:
            return False, value
    return False, None  # `nullValue: "NULL_VALUE"`, or nothing at all


def assemble_partial_args(
    base: dict[str, Any], partials: list[Any]
) -> tuple[dict[str, Any], str | None]:
    """Build the arguments object from `partialArgs` pieces, in order: (arguments, error).

    String pieces for one JSONPath are concatenated; other values replace. An unreadable
    JSONPath is an error (the call must not run).
    """
    strings: dict[str, list[str]] = {}
    values: dict[str, Any] = {}
    for partial in partials:
        path = pick(partial, "jsonPath", "json_path")
        if not isinstance(path, str):
            return base, "a partialArgs piece has no jsonPath"
        is_string, value = _partial_value(partial)
        if is_string and not isinstance(value, str):
            return base, "a partialArgs piece has a stringValue that is not a string"
        if is_string:
            strings.setdefault(path, []).append(value)
            values.setdefault(path, None)
        else:
            values[path] = value
    args: dict[str, Any] = dict(base)
    for path, value in values.items():
        tokens = _path_tokens(path)
        if tokens is None:
            return args, f"partialArgs jsonPath {path!r} is not readable"
        pieces = strings.get(path)
        if not _put(args, tokens, "".join(pieces) if pieces is not None else value):
            return args, f"partialArgs jsonPath {path!r} does not fit the arguments built so far"
    return args, None


def _signature(value: Any) -> Any:
    """A thought signature as the REST JSON carries it (the SDK holds decoded bytes)."""
    if isinstance(value, bytes | bytearray):
        return base64.urlsafe_b64encode(bytes(value)).decode("ascii")
    return value


class _Text:
    __slots__ = ("pieces", "signature", "thought")

    def __init__(self, text: str, thought: bool) -> None:
        self.pieces = [text]
        self.thought = thought
        self.signature: Any = None


# SDK chunks are read through a view: the object's instance __dict__, which gives `pick` and
# `field` the same answers as the object (the declared fields, by their snake_case names) at a
# dict's cost. Only for a plain pydantic class (`field`'s own test) with no extras on the object
# and, per level, no class attribute named like a field read there; otherwise the object.
_EVENT_NAMES = ("error", "model_version", "create_time", "prompt_feedback", "candidates")
_CANDIDATE_NAMES = (
    "index", "content", "finish_reason", "continuation_token", "finish_message",
    "safety_ratings", "citation_metadata",
)  # fmt: skip
_PART_NAMES = ("text", "thought_signature", "thought", "function_call")
_VIEWABLE: dict[tuple[type, tuple[str, ...]], bool] = {}


def _view(obj: Any, names: tuple[str, ...]) -> Any:
    """Return what to read `names` from: an SDK object's __dict__ when that is the same answer."""
    kind = type(obj)
    if kind is dict:
        return obj
    ok = _VIEWABLE.get((kind, names))
    if ok is None:
        ok = (
            obj is not None
            and _is_plain_model(kind)
            and not any(
                hasattr(kind, name) or name in kind.__private_attributes__ for name in names
            )
        )
        if len(_VIEWABLE) < 512:
            _VIEWABLE[kind, names] = ok
    if ok and not getattr(obj, "__pydantic_extra__", None):
        return obj.__dict__
    return obj


class _Call:
    __slots__ = ("args", "call_id", "name", "open", "partials", "signature")

    def __init__(self, fc: Any, signature: Any) -> None:
        self.name = field(fc, "name")
        self.call_id = field(fc, "id")
        self.args = field(fc, "args")
        self.partials: list[Any] = list(as_list(pick(fc, "partialArgs", "partial_args")))
        self.signature = signature
        self.open = False


class _Candidate:
    __slots__ = ("extras", "finish", "open_call", "parts", "token")

    def __init__(self) -> None:
        self.parts: list[Any] = []
        self.open_call: _Call | None = None
        self.finish: Any = None
        self.token: Any = None
        self.extras: dict[str, Any] = {}

    def feed_part(self, sent: Any) -> None:
        part = sent if type(sent) is dict else _view(sent, _PART_NAMES)
        text = field(part, "text")
        signature = pick(part, "thoughtSignature", "thought_signature")
        if text is not None:
            if not isinstance(text, str):
                return
            thought = field(part, "thought") is True
            last = self.parts[-1] if self.parts else None
            if isinstance(last, _Text) and last.thought == thought and last.signature is None:
                last.pieces.append(text)
            else:
                last = _Text(text, thought)
                self.parts.append(last)
            if signature is not None:
                last.signature = signature
            return
        fc = pick(part, "functionCall", "function_call")
        if fc is None:
            self.parts.append(sent)  # executableCode, inlineData, ...: kept as sent
            return
        more = pick(fc, "willContinue", "will_continue") is True
        name = field(fc, "name")
        current = self.open_call
        if current is not None and not name:
            current.partials.extend(as_list(pick(fc, "partialArgs", "partial_args")))
            args = field(fc, "args")
            if isinstance(args, dict):
                current.args = {**(current.args or {}), **args}
            if signature is not None:
                current.signature = signature
            if not more:
                current.open, self.open_call = False, None
            return
        if current is not None:  # a new call began before the open one said it was done
            current.open, self.open_call = False, None
        call = _Call(fc, signature)
        self.parts.append(call)
        if more:
            call.open, self.open_call = True, call

    def merged(self, index: int) -> dict[str, Any]:
        parts: list[Any] = []
        for item in self.parts:
            if isinstance(item, _Text):
                part: dict[str, Any] = {"text": "".join(item.pieces)}
                if item.thought:
                    part["thought"] = True
                if item.signature is not None:
                    part["thoughtSignature"] = _signature(item.signature)
            elif isinstance(item, _Call):
                fc: dict[str, Any] = {}
                if item.call_id is not None:
                    fc["id"] = item.call_id
                if item.name is not None:
                    fc["name"] = item.name
                base = item.args if isinstance(item.args, dict) else None
                if item.partials:
                    args, error = assemble_partial_args(base or {}, item.partials)
                    if error is None:
                        fc["args"] = args
                    else:  # left for the reader, which reports the same error
                        fc["partialArgs"] = [plain(p) for p in item.partials]
                elif item.args is not None:
                    fc["args"] = item.args
                if item.open and self.finish is None:
                    fc["willContinue"] = True
                part = {"functionCall": fc}
                if item.signature is not None:
                    part["thoughtSignature"] = _signature(item.signature)
            else:
                part = plain(item)
            parts.append(part)
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": index}
        if self.finish is not None:
            candidate["finishReason"] = self.finish
        if self.token is not None:
            candidate["continuationToken"] = _signature(self.token)
        candidate.update(self.extras)
        return candidate


_EXTRAS = (
    ("finishMessage", "finish_message"),
    ("safetyRatings", "safety_ratings"),
    ("citationMetadata", "citation_metadata"),
)


class GeminiStream:
    """Accumulates one `streamGenerateContent` stream (SDK chunks or JSON dicts) into a `Stop`.

    Example:
        >>> acc = GeminiStream()
        >>> acc.feed({"candidates": [{"content": {"parts": [{"text": "Hi"}]},
        ...     "finishReason": "STOP"}]})
        >>> acc.result().reason.value
        'completed'
    """

    def __init__(self) -> None:
        """Start empty: no chunk seen."""
        self._candidates: dict[int, _Candidate] = {}
        self._reply: dict[str, Any] = {}
        self._chunks = 0
        self._error: Any = None

    def feed(self, event: Any) -> None:
        """Take one chunk: a `GenerateContentResponse` (SDK object or its JSON dict)."""
        self._chunks += 1
        if type(event) is not dict:
            event = _view(event, _EVENT_NAMES)
        error = field(event, "error")
        if error is not None:
            self._error = error
            return
        for camel, snake in (("modelVersion", "model_version"), ("createTime", "create_time")):
            value = pick(event, camel, snake)
            if value is not None:
                self._reply[camel] = value
        feedback = pick(event, "promptFeedback", "prompt_feedback")
        if feedback is not None:
            self._reply["promptFeedback"] = feedback
        for position, sent in enumerate(as_list(field(event, "candidates"))):
            candidate = sent if type(sent) is dict else _view(sent, _CANDIDATE_NAMES)
            index = field(candidate, "index")
            key = index if type(index) is int else position
            state = self._candidates.get(key)
            if state is None:
                state = self._candidates[key] = _Candidate()
            for part in as_list(field(field(candidate, "content"), "parts")):
                state.feed_part(part)
            finish = as_raw(pick(candidate, "finishReason", "finish_reason"))
            token = pick(candidate, "continuationToken", "continuation_token")
            if finish is not None:
                state.finish = finish
                if token is None and finish != "CONTINUATION":
                    state.token = None  # as google-genai does: a final stop ends resumability
            if token is not None:
                state.token = token
            for camel, snake in _EXTRAS:
                value = pick(candidate, camel, snake)
                if value is not None:
                    state.extras[camel] = value

    def merged_reply(self) -> dict[str, Any]:
        """Return the reply the chunks so far amount to, as REST camelCase JSON."""
        reply = dict(self._reply)
        if self._candidates:
            reply["candidates"] = [
                state.merged(index) for index, state in sorted(self._candidates.items())
            ]
        return reply

    def result(self) -> Stop:
        """Return the `Stop` for the chunks so far (`stream_incomplete` before a finishReason)."""
        reply = self.merged_reply()
        blocked = pick(reply.get("promptFeedback"), "blockReason", "block_reason") is not None
        if self._candidates:
            first = min(self._candidates)
            state = self._candidates[first]
            stop = read_candidate(reply["candidates"][0], 0, reply)
            finished = state.finish is not None
        else:
            stop = normalize_reply(reply)
            finished = blocked
        if finished and self._error is None:
            still_open = (
                self._candidates[min(self._candidates)].open_call if self._candidates else None
            )
            if still_open is None:
                return stop
            note = (
                f"the streamed call {still_open.name!r} was still open (willContinue) at the "
                "finishReason: closed with the arguments received"
            )
            return stop.model_copy(update={"notes": (*stop.notes, note)})
        notes = list(stop.notes) if finished else [n for n in stop.notes if "finishReason" not in n]
        details = dict(stop.details)
        detail = "stream_incomplete"
        if self._error is not None:
            details["error"] = self._error
            detail = "error"
            notes.append("the stream carried an error object: unknown, nothing is run")
        else:
            notes.append(
                f"the stream ended after {self._chunks} chunk(s) without a finishReason: "
                "unknown, what arrived is kept"
            )
        if details.get("continuation_token") is not None:
            notes.append("a continuationToken arrived: the request can be resumed from it")
        return make_stop(
            StopReason.UNKNOWN,
            provider=PROVIDER,
            raw=reply,
            raw_reason=stop.raw_reason if finished else None,
            detail=detail,
            text=stop.text,
            tool_calls=stop.tool_calls,
            notes=notes,
            details=details,
        )
