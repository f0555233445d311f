"""The Cohere v1 Chat adapter (`POST /v1/chat`): replies and their streams.

A reply is `{"response_id", "text", "generation_id", "finish_reason", "tool_calls": [{"name",
"parameters"}], "citations", "documents", "chat_history", "meta": {"tokens", "billed_units",
...}}` (cohere-python 7.3.1, `cohere/types/non_streamed_chat_response.py`). Tool calls carry no
id: each gets `call_<n>`, `n` its position among the reply's calls (stable between a reply and
its stream, and between runs), as Ollama's do. When the model calls tools, `text` is its plan
("an observation and a plan with next steps", Cohere's multi-step tool-use guide): kept in
`details["tool_plan"]`, never in the text, as v2's `tool_plan` is. Usage is `meta.tokens`, what
the model read and wrote; `billed_units` stays in `details["usage"]` (the `meta` object). The
stream accumulator lives in `_cohere_v1_stream.py`.

A conversation continues with `chat_history` (CHATBOT, USER and TOOL messages,
`cohere/types/message.py`), the new `message`, and the `tool_results` of the last turn: the
conversation turns are those messages, and the caller's `call_model` sends the last one as
`message` (or its `tool_results` as `tool_results`, with `message: ""`) and the others as
`chat_history`.

Example:
    >>> stop = CohereV1Adapter().normalize({"text": "Hi", "generation_id": "g",
    ...     "finish_reason": "COMPLETE"})
    >>> (stop.reason.value, stop.text)
    ('completed', 'Hi')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from stopkit._json import loads
from stopkit._stop import Stop, ToolCall, ToolResult
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._calls import stable_id, tool_call
from stopkit.adapters._cohere_usage import usage
from stopkit.adapters._cohere_v1_rules import FINISH_REASON, PROVIDER, RULES
from stopkit.adapters._cohere_v1_stream import EVENT_TYPES, CohereV1Stream
from stopkit.adapters._reading import Reading, Verdict, identify
from stopkit.adapters._wire import listed, wire

__all__ = ["CohereV1Adapter"]

_ABSENT: Any = object()
_SDK = "cohere."  # the module prefix of the cohere SDK's classes


def _read(reply: Any) -> Reading:
    """Read one v1 Chat reply (a JSON dict or the SDK's `NonStreamedChatResponse`).

    Example:
        >>> _read({"text": "Hi", "finish_reason": "COMPLETE"}).text
        'Hi'
    """
    fields = wire(reply)
    reading = Reading(reply, fields.get("finish_reason"))
    # cohere/types/non_streamed_chat_response.py: `response_id`; a v1 reply names no model.
    identify(reading, None, fields.get("response_id"))
    text = fields.get("text")
    if type(text) is not str:
        if text is not None:
            reading.malformed = f"text is a {type(text).__name__}, not a string"
        text = ""
    raw_calls = fields.get("tool_calls")
    if raw_calls is not None and not isinstance(raw_calls, list | tuple):
        reading.malformed = f"tool_calls is a {type(raw_calls).__name__}, not a list"
    calls = [_build_call(i, item) for i, item in enumerate(listed(raw_calls))]
    if calls:
        reading.calls = calls
        if text:
            reading.details["tool_plan"] = text  # with calls, the text is the model's plan
    else:
        reading.text = text
    citations = fields.get("citations")
    if citations:
        reading.details["citations"] = citations
    meta = fields.get("meta")
    if meta is not None:
        reading.details["usage"] = meta
        reading.usage = usage(meta)  # meta.tokens; billed_units stays in details
    return reading


def _build_call(position: int, item: Any) -> ToolCall:
    """Build the `ToolCall` of one `tool_calls` entry (`name`, `parameters`): id `call_<n>`.

    A call that does carry a string id (a proxy's) keeps it.

    Example:
        >>> _build_call(1, {"name": "f", "parameters": {"x": 1}}).id
        'call_1'
    """
    said = wire(item)
    return tool_call(stable_id(said.get("id"), position), said.get("name"), said.get("parameters"))


def _is_reply(obj: Any) -> bool:
    """A v1 reply: `text` beside `finish_reason` or `generation_id`, no `message`/`choices`.

    An object is one only when the cohere SDK made it: other libraries' replies say `text` and
    `finish_reason` too (pydantic-ai's `ModelResponse`), and are their own adapters' to read.
    """
    if type(obj) is not dict and not type(obj).__module__.startswith(_SDK):
        return False
    fields = wire(obj)
    return (
        fields.get("text", _ABSENT) is not _ABSENT
        and (
            fields.get("finish_reason", _ABSENT) is not _ABSENT
            or fields.get("generation_id", _ABSENT) is not _ABSENT
        )
        and fields.get("message", _ABSENT) is _ABSENT
        and fields.get("choices", _ABSENT) is _ABSENT
    )


class CohereV1Adapter(BaseAdapter):
    """Reads Cohere v1 Chat replies (JSON dicts or `cohere` SDK objects) and their streams.

    Example:
        >>> stop = CohereV1Adapter().normalize({"text": "", "generation_id": "g",
        ...     "finish_reason": "COMPLETE", "tool_calls": [
        ...         {"name": "get_weather", "parameters": {"city": "Paris"}}]})
        >>> (stop.reason.value, [c.id for c in stop.tool_calls])
        ('tool_request', ['call_0'])
    """

    name = PROVIDER
    rules = RULES
    otel_provider = "cohere"  # gen-ai-spans.md's well-known value
    read = staticmethod(_read)
    # A v1 Chat reply has a top-level `text`: auto-detection skips this adapter
    # for a JSON body without it.
    detect_keys: ClassVar[tuple[str, ...]] = ("text",)
    tables: ClassVar[dict[str, dict[str, Verdict]]] = {"finish_reason": FINISH_REASON}
    stream_notes = (
        "Streams are newline-delimited JSON events told apart by `event_type`; `stream-end` "
        "ends it, with its finish_reason and the whole reply in `response`.",
        "After stream-end no text or tool-call event changes the reply (a note counts them); "
        "a later stream-end is read for its meta, and for its finish_reason only when that is "
        "stricter.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a v1 Chat reply: `text` and `finish_reason`, no `message`."""
        return _is_reply(reply)

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a v1 Chat stream event (`event_type` such as `stream-start`)."""
        kind = wire(event).get("event_type")
        return type(kind) is str and kind in EVENT_TYPES

    def stream(self) -> CohereV1Stream:
        """Return a fresh accumulator for one v1 Chat stream."""
        return CohereV1Stream(_read)

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the `CHATBOT` message that appends this reply to `chat_history`.

        With tool calls, the message is the plan and the calls go back as the model sent them
        (`name`, `parameters`), as Cohere's `ChatbotMessage` holds them.

        Example:
            >>> CohereV1Adapter().assistant_message(stop)  # doctest: +SKIP
            [{'role': 'CHATBOT', 'message': 'I will look it up.', 'tool_calls': [...]}]
        """
        if not stop.tool_calls:
            return [{"role": "CHATBOT", "message": stop.text}]
        plan = stop.details.get("tool_plan")
        return [
            {
                "role": "CHATBOT",
                "message": plan if isinstance(plan, str) else stop.text,
                "tool_calls": [_as_sent(call) for call in stop.tool_calls],
            }
        ]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one `TOOL` message holding every result, in order, each with its `call`.

        v1 matches a result to its call by the call itself (`name` and `parameters`: calls have
        no ids). `outputs` is a list of objects: a result that is a JSON object is sent as it
        is, a JSON list of objects as that list, anything else as `{"result": text}`; Cohere has
        no error flag, so an error result is `{"error": text}`.

        Example:
            >>> CohereV1Adapter().tool_results(stop, [ToolResult(call_id="call_0",
            ...     name="get_weather", content='{"temp": 21}')])  # doctest: +SKIP
            [{'role': 'TOOL', 'tool_results': [{'call': {...}, 'outputs': [{'temp': 21}]}]}]
        """
        calls = {call.id: call for call in stop.tool_calls}
        entries = []
        for result in results:
            call = calls.get(result.call_id)
            sent = _as_sent(call) if call is not None else {"name": result.name, "parameters": {}}
            entries.append({"call": sent, "outputs": _outputs(result)})
        return [{"role": "TOOL", "tool_results": entries}]

    def user_message(self, text: str) -> dict[str, Any]:
        """Return a `USER` message saying `text`.

        Example:
            >>> CohereV1Adapter().user_message("Go on.")
            {'role': 'USER', 'message': 'Go on.'}
        """
        return {"role": "USER", "message": text}


def _as_sent(call: ToolCall) -> dict[str, Any]:
    """A call as v1 sends it: `name` and `parameters`."""
    return {"name": call.name, "parameters": dict(call.arguments)}


def _outputs(result: ToolResult) -> list[dict[str, Any]]:
    """A result as v1's `outputs`: a list of objects."""
    if result.is_error:
        return [{"error": result.content}]
    if result.content.lstrip()[:1] in ("{", "["):
        try:
            data = loads(result.content)
        except ValueError:
            data = None
        if isinstance(data, dict):
            return [data]
        if isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
            return data
    return [{"result": result.content}]
