"""The Gemini stream accumulator: `streamGenerateContent` chunks in, the whole reply's `Stop` out.

A stream is a list of whole `GenerateContentResponse` chunks. Text and `functionCall` parts
accumulate per candidate; the chunk carrying `finishReason` ends the candidate (a blocked prompt
ends the stream at its first chunk). Vertex may stream one call's arguments in pieces: a
`functionCall` with a `name` and `willContinue: true` opens the call, chunks with `partialArgs`
or `args` fill it, and a `functionCall` without `willContinue` closes it (google-genai
`types.py`: `FunctionCall`, `PartialArg`). Each piece is appended where it belongs; at
`result()` the pieces are joined once into the reply the stream amounts to (`stop.raw`), which
the adapter's own reader reads: the stream and its non-streaming twin give the same `Stop`.

After a candidate's finishReason no text or call changes it (a note counts the chunks that
tried); a later finishReason replaces it only when at least as strict (a `SAFETY` is never
undone by a later `STOP`), and usage and metadata are still read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._gemini_args import assemble_partial_args
from stopkit.adapters._gemini_rules import (
    FINISH_REASONS,
    GEMINI_API_FINISH_NUMBERS,
    RULES,
    VERTEX_FINISH_NUMBERS,
    canonical,
)
from stopkit.adapters._gemini_turns import rest_bytes
from stopkit.adapters._reading import Reading
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import either, listed, raw_value, to_json, wire

__all__ = ["GeminiStream"]

# A finishReason that says none was set: the enum's zero value (what protobuf's JSON writes for
# every chunk when it emits defaults, as `0` or by name) or an empty string. It ends nothing.
_UNSET = frozenset({"", "FINISH_REASON_UNSPECIFIED"})

# What the reply keeps from its chunks, the latest value winning (REST name, SDK name).
_REPLY_FIELDS = (
    ("modelVersion", "model_version"),
    ("createTime", "create_time"),
    ("responseId", "response_id"),
)
_EXTRAS = (
    ("finishMessage", "finish_message"),
    ("safetyRatings", "safety_ratings"),
    ("citationMetadata", "citation_metadata"),
)


class _Text:
    """Consecutive text pieces of one kind (thought or visible), joined at `result()`."""

    __slots__ = ("pieces", "signature", "thought")

    def __init__(self, text: str, thought: bool) -> None:
        self.pieces = [text]
        self.thought = thought
        self.signature: Any = None


class _Call:
    """One `functionCall`, possibly sent in pieces: its `args`, and its `partialArgs` in order."""

    __slots__ = ("args", "call_id", "name", "open", "owned", "partials", "signature")

    def __init__(self, said: Mapping[str, Any], signature: Any) -> None:
        self.name = said.get("name")
        self.call_id = said.get("id")
        self.args: Any = said.get("args")
        self.owned = False  # whether `args` is this accumulator's own copy (safe to update)
        self.partials: list[Any] = listed(either(said, "partialArgs", "partial_args"))[:]
        self.signature = signature
        self.open = False

    def more(self, said: Mapping[str, Any], signature: Any) -> None:
        """Take a continuing piece: its partialArgs appended, its args merged in place."""
        partials = either(said, "partialArgs", "partial_args")
        if partials:
            self.partials.extend(listed(partials))
        args = said.get("args")
        held = self.args
        if isinstance(args, dict) and (held is None or isinstance(held, dict)):
            if not self.owned:  # the first merge copies what came on the wire, once
                held = self.args = dict(held) if held else {}
                self.owned = True
            held.update(args)  # in place: a copy per piece would be quadratic
        if signature is not None:
            self.signature = signature


class _Candidate:
    """One candidate being received: its parts, its open call, its finishReason and token."""

    __slots__ = ("extras", "finish", "late", "open_call", "parts", "token", "told")

    def __init__(self) -> None:
        self.late = 0  # chunks that sent it parts after its finishReason (not taken)
        self.parts: list[Any] = []
        self.open_call: _Call | None = None
        self.finish: Any = None
        self.token: Any = None
        self.extras: dict[str, Any] = {}
        self.told: list[str] = []  # its visible text, in the pieces it came in

    def feed_part(self, sent: Any) -> None:
        """Take one part of a chunk's candidate: a piece of text, of a call, or a whole part."""
        said = wire(sent)
        text = said.get("text")
        signature = either(said, "thoughtSignature", "thought_signature")
        if text is not None:
            if isinstance(text, str):
                self._text(text, said.get("thought") is True, signature)
            return
        fc = either(said, "functionCall", "function_call")
        if fc is None:
            self.parts.append(sent)  # executableCode, inlineData, ...: kept as sent
        else:
            self._call(wire(fc), signature)

    def _text(self, text: str, thought: bool, signature: Any) -> None:
        """A text piece: it extends the last text part of its kind, or starts one."""
        if text and not thought:
            self.told.append(text)
        last = self.parts[-1] if self.parts else None
        if type(last) is _Text and last.thought == thought and last.signature is None:
            last.pieces.append(text)
        else:
            last = _Text(text, thought)
            self.parts.append(last)
        if signature is not None:
            last.signature = signature

    def _call(self, call_said: Any, signature: Any) -> None:
        """A `functionCall` piece: it continues the open call (no name), or begins a call."""
        more = either(call_said, "willContinue", "will_continue") is True
        current = self.open_call
        if current is not None and not call_said.get("name"):
            current.more(call_said, signature)
            if not more:
                current.open, self.open_call = False, None
            return
        if current is not None:  # a new call began before the open one said it was done
            current.open, self.open_call = False, None
        call = _Call(call_said, signature)
        self.parts.append(call)
        if more:
            call.open, self.open_call = True, call

    def merged(self, index: int) -> dict[str, Any]:
        """The candidate the pieces amount to, as REST camelCase JSON."""
        parts: list[Any] = []
        for item in self.parts:
            kind = type(item)
            if kind is _Text:
                part: dict[str, Any] = {"text": "".join(item.pieces)}
                if item.thought:
                    part["thought"] = True
                if item.signature is not None:
                    part["thoughtSignature"] = rest_bytes(item.signature)
            elif kind is _Call:
                part = {"functionCall": _merged_call(item)}
                if item.signature is not None:
                    part["thoughtSignature"] = rest_bytes(item.signature)
            else:
                part = to_json(item, drop_none=True)
            parts.append(part)
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": index}
        if self.finish is not None:
            candidate["finishReason"] = self.finish
        if self.token is not None:
            candidate["continuationToken"] = rest_bytes(self.token)
        candidate.update(self.extras)
        return candidate


def _merged_call(call: _Call) -> dict[str, Any]:
    """One streamed call as the non-streaming reply would hold it."""
    fc: dict[str, Any] = {}
    if call.call_id is not None:
        fc["id"] = call.call_id
    if call.name is not None:
        fc["name"] = call.name
    if call.partials:
        base = call.args if isinstance(call.args, dict) else {}
        args, error = assemble_partial_args(base, call.partials)
        if error is None:
            fc["args"] = args
        else:  # left for the reader, which reports the same error
            fc["partialArgs"] = [to_json(p, drop_none=True) for p in call.partials]
    elif call.args is not None:
        fc["args"] = call.args
    if call.open:  # never closed: its twin says willContinue too, and is not run
        fc["willContinue"] = True
    return fc


def _late_content(parts: list[Any]) -> bool:
    """Whether parts sent after the finishReason would have changed the reply (not blank)."""
    for part in parts:
        text = wire(part).get("text")
        if text is None or text != "":
            return True
    return False


class GeminiStream(Accumulator[Reading]):
    """Accumulates one `streamGenerateContent` stream (SDK chunks or JSON dicts) into a `Stop`.

    Given the adapter's reader (`gemini.read`), which reads the reply the chunks amount to.

    Example:
        >>> from stopkit.adapters.gemini import _read as read
        >>> acc = GeminiStream(read)
        >>> acc.feed({"candidates": [{"content": {"parts": [{"text": "Hi"}]},
        ...     "finishReason": "STOP"}]})
        >>> acc.result().reason.value
        'completed'
    """

    rules = RULES

    def __init__(self, read: Callable[[Any], Reading]) -> None:
        super().__init__(read)
        self._candidates: dict[int, _Candidate] = {}
        self._reply: dict[str, Any] = {}
        self._usage: dict[str, Any] = {}
        self._late = 0
        self._blocked = False
        self._error: Any = None

    def feed(self, event: Any) -> None:
        """Take one chunk: a `GenerateContentResponse` (SDK object or its JSON dict)."""
        self._cached = None
        fields = wire(event)
        error = fields.get("error")
        if error is not None:
            if self._ended():
                self._late += 1
            else:
                self._error = error
            return
        self._around(fields)
        late = False
        for position, sent in enumerate(listed(fields.get("candidates"))):
            said = wire(sent)
            if self._blocked:  # the prompt was blocked: no candidate follows it
                late = late or bool(listed(wire(said.get("content")).get("parts")))
            else:
                self._candidate(position, said)
        if late:
            self._late += 1

    def _around(self, fields: Any) -> None:
        """Take what a chunk says beside its candidates: ids, prompt feedback, usage."""
        reply = self._reply
        for camel, snake in _REPLY_FIELDS:
            value = either(fields, camel, snake)
            if value is not None:
                reply[camel] = value
        feedback = either(fields, "promptFeedback", "prompt_feedback")
        if feedback is not None:
            reply["promptFeedback"] = feedback
            blocked = either(wire(feedback), "blockReason", "block_reason") is not None
            self._blocked = self._blocked or (blocked and not self._candidates)
        usage = either(fields, "usageMetadata", "usage_metadata")
        if usage is not None:
            # Each chunk's counts are the totals so far: a later count replaces an earlier one.
            for name, value in wire(usage).items():
                if value is not None:
                    self._usage[name] = value

    def _candidate(self, position: int, said: Any) -> None:
        """Take one candidate of a chunk (its `index`, else its position): parts, finish."""
        index = said.get("index")
        key = index if type(index) is int else position
        state = self._candidates.get(key)
        if state is None:
            state = self._candidates[key] = _Candidate()
        parts = listed(wire(said.get("content")).get("parts"))
        if state.finish is None:
            for part in parts:
                state.feed_part(part)
        elif parts and _late_content(parts):
            state.late += 1  # the candidate has ended: nothing it sends changes it
        self._finish(state, said)

    def text_pieces(self) -> list[str] | None:
        """The first candidate's visible text so far, as its pieces (see `StreamAccumulator`)."""
        if not self._candidates:
            return None
        return self._candidates[min(self._candidates)].told

    def _finish(self, state: _Candidate, said: Mapping[str, Any]) -> None:
        """Take a candidate's finishReason (unless a stricter one is held), token and extras."""
        finish = raw_value(either(said, "finishReason", "finish_reason"))
        token = either(said, "continuationToken", "continuation_token")
        named: Any = None  # the table's name for it, worked out once per chunk
        if finish is not None:
            numbers = (
                VERTEX_FINISH_NUMBERS if "createTime" in self._reply else GEMINI_API_FINISH_NUMBERS
            )
            named = canonical(finish, numbers)
            if type(named) is str and named in _UNSET:
                finish = None  # the enum's unset value, as protobuf emits it in every chunk
        if finish is not None:
            held = canonical(state.finish, numbers) if state.finish is not None else None
            if stricter(FINISH_REASONS, held, named):
                state.finish = finish
                if token is not None:
                    state.token = token
                elif named != "CONTINUATION":
                    state.token = None  # as google-genai does: a final stop ends resumability
        elif token is not None and state.finish is None:
            state.token = token  # a checkpoint: the request can be resumed from here
        for camel, snake in _EXTRAS:
            value = either(said, camel, snake)
            if value is not None:
                state.extras[camel] = value

    def _ended(self) -> bool:
        """Whether the stream reached its end: a blocked prompt, or the first candidate's finish."""
        if self._blocked or not self._candidates:
            return self._blocked
        return self._candidates[min(self._candidates)].finish is not None

    def merged_reply(self) -> dict[str, Any]:
        """Return the reply the chunks so far amount to, as REST camelCase JSON."""
        reply = dict(self._reply)
        if self._candidates:
            reply["candidates"] = [
                state.merged(index) for index, state in sorted(self._candidates.items())
            ]
        if self._usage:
            reply["usageMetadata"] = dict(self._usage)
        return reply

    def _reading(self) -> Reading:
        first = self._candidates[min(self._candidates)] if self._candidates else None
        ended = self._ended()
        error = to_json(self._error, drop_none=True) if self._error is not None else None
        said = wire(error)
        reading = self._settle(
            self._read(self.merged_reply()),
            end="finishReason chunk",
            ended=ended,
            late=self._late + (first.late if first is not None else 0),
            error=error,
            error_note=f"the stream carried an error object ({said.get('status')}: "
            f"{said.get('message')})",
        )
        notes = reading.notes
        if first is None:
            return reading
        if not ended and first.token is not None:
            notes.append("a continuationToken arrived: the request can be resumed from it")
        elif ended and first.open_call is not None:
            notes.append(
                f"the streamed call {first.open_call.name!r} was still open (willContinue) at "
                "the finishReason: incomplete, not run"
            )
        return reading
