"""The OpenAI Responses API (`POST /v1/responses`): `status` x `incomplete_details.reason`.

A reply is a `Response` object (`object: "response"`), as a JSON dict or the openai SDK's
`openai.types.responses.Response`. Its stop signal is `status`, refined by
`incomplete_details.reason` (status `incomplete`) and `error.code` (status `failed`); the
output items then decide whether client tool calls are pending.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters._common import (
    as_list,
    as_raw,
    field,
    make_stop,
    parse_arguments,
    tool_call,
)

__all__ = ["OpenAIResponsesAdapter"]

PROVIDER = "openai.responses"

# `Response.status`: openai/types/responses/response_status.py (ResponseStatus).
# `incomplete` is decided by the next table; it is unknown only when no reason came with it.
STATUS: dict[str, tuple[StopReason, str | None]] = {
    "completed": (StopReason.COMPLETED, None),
    "incomplete": (StopReason.UNKNOWN, "missing"),
    "failed": (StopReason.UNKNOWN, "error"),
    "cancelled": (StopReason.UNKNOWN, "cancelled"),
    # Background mode: the response is still being generated; poll it (see `resume`).
    "queued": (StopReason.PAUSED, "background"),
    "in_progress": (StopReason.PAUSED, "background"),
}

# `Response.incomplete_details.reason`: openai/types/responses/response.py (IncompleteDetails).
INCOMPLETE_REASON: dict[str, tuple[StopReason, str | None]] = {
    "max_output_tokens": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "content_filter": (StopReason.FILTERED, "safety"),
    # `max_messages` is a ceiling on the number of items one response may produce, not a token
    # ceiling: every item sent is whole, so a bigger `max_output_tokens` cannot help and
    # dropping the reply would throw finished work away. The turn is continued instead, by
    # sending the items back (`resume`), like Anthropic's `pause_turn`.
    "max_messages": (StopReason.PAUSED, "continuation"),
    # Stopped at a safe boundary after a WebSocket `response.steer`; a successor follows.
    "steered": (StopReason.PAUSED, "steered"),
}

# `Response.error.code` of a `failed` response: openai/types/responses/response_error.py
# (ResponseError.code). The policy codes say a policy blocked the reply: filtered, not an error.
# Every other code (server_error, rate_limit_exceeded, invalid_prompt, the image codes, ...)
# keeps the `failed` row of STATUS: unknown/error, with the error in `details["error"]`.
ERROR_CODE: dict[str, tuple[StopReason, str | None]] = {
    "bio_policy": (StopReason.FILTERED, "policy"),
    "misalignment_policy_violation": (StopReason.FILTERED, "policy"),
    "image_content_policy_violation": (StopReason.FILTERED, "policy"),
}

# Output items the caller must act on (openai/types/responses/response_output_item.py), how
# each becomes a `ToolCall` (id = `call_id`, except `id` for mcp_approval_request), and the
# input item that answers it (openai/types/responses/response_input_item.py):
#
# | item type                 | ToolCall.name          | ToolCall.arguments               |
# |---------------------------|------------------------|----------------------------------|
# | function_call             | its `name`             | `arguments` (a JSON string) parsed |
# | custom_tool_call          | its `name`             | {"input": input}                 |
# | computer_call             | "computer_call"        | {"action" or "actions", safety checks} |
# | local_shell_call          | "local_shell_call"     | `action`                         |
# | shell_call                | "shell_call"           | `action`                         |
# | apply_patch_call          | "apply_patch_call"     | `operation`                      |
# | tool_search_call (client) | "tool_search_call"     | `arguments`                      |
# | mcp_approval_request      | "mcp_approval_request" | {"server_label", "name", "arguments"} |
#
# Answered by (see OUTPUT_TYPE_OF): function_call_output, custom_tool_call_output,
# computer_call_output, local_shell_call_output, shell_call_output, apply_patch_call_output,
# tool_search_output, mcp_approval_response.
#
# Built-in client tools are named by their item type so one callable serves them all (one
# approver answers every MCP approval request: approve unless it raised). Everything else
# (web_search_call, file_search_call, code_interpreter_call, image_generation_call, mcp_call,
# mcp_list_tools, tool_search_call with execution "server", program, reasoning, compaction, ...)
# ran on the provider's side and is not a tool call. A call whose answer item sits in the same
# reply (a hosted shell's `shell_call_output`) ran on the provider's side too.
CLIENT_CALL_TYPES = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "computer_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "tool_search_call",
        "mcp_approval_request",
    }
)
#: call item type -> the input item type that carries its result back
OUTPUT_TYPE_OF: dict[str, str] = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "computer_call": "computer_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "tool_search_call": "tool_search_output",
    "mcp_approval_request": "mcp_approval_response",
}
_OUTPUT_TYPES = frozenset(OUTPUT_TYPE_OF.values())


def as_dict(obj: Any) -> Any:
    """Return an SDK model as the JSON dict it was built from; other values unchanged."""
    if type(obj) is dict or not hasattr(obj, "model_dump"):
        return obj
    # warnings=False: the SDK keeps off-spec values as sent, and dumping them must not warn
    # (a warning is an exception under -W error); a value nested deeper than pydantic
    # serializes stays the SDK object.
    try:
        return obj.model_dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    except (ValueError, RecursionError):
        return obj


def _call_of(item: Any, kind: str) -> ToolCall:
    """Build the `ToolCall` of one client-action output item (see the table above)."""
    if kind == "function_call" and type(item) is dict:  # the JSON body's usual call
        return tool_call(item.get("call_id"), item.get("name"), item.get("arguments"))
    call_id = field(item, "call_id")
    if kind == "function_call":
        return tool_call(call_id, field(item, "name"), field(item, "arguments"))
    if kind == "custom_tool_call":
        return tool_call(call_id, field(item, "name"), {"input": field(item, "input")})
    if kind == "mcp_approval_request":
        arguments, raw_json, complete, error = parse_arguments(field(item, "arguments"))
        return ToolCall.model_construct(
            id=str(field(item, "id") or ""),
            name=kind,
            arguments={
                "server_label": field(item, "server_label"),
                "name": field(item, "name"),
                "arguments": arguments,
            },
            arguments_json=raw_json,
            complete=complete,
            error=error,
        )
    if kind == "computer_call":
        arguments = {}
        for key in ("action", "actions", "pending_safety_checks"):
            value = field(item, key)
            if value:
                arguments[key] = (
                    as_dict(value) if key == "action" else [as_dict(v) for v in as_list(value)]
                )
        return tool_call(call_id, kind, arguments)
    if kind == "apply_patch_call":
        return tool_call(call_id, kind, as_dict(field(item, "operation")))
    if kind == "tool_search_call":
        return tool_call(call_id, kind, as_dict(field(item, "arguments")))
    return tool_call(call_id, kind, as_dict(field(item, "action")))


def read_items(items: list[Any]) -> tuple[list[str], list[str], list[ToolCall], int]:
    """Walk output items: `(text parts, refusal parts, pending calls, executed)`.

    `executed` counts client-action items whose answer sits in the same reply (run by the
    provider); they are left out of the calls.
    """
    text: list[str] = []
    refusal: list[str] = []
    candidates: list[tuple[Any, str]] = []
    answered: set[Any] = set()
    for item in items:
        plain = type(item) is dict  # the JSON body: read with dict.get, same answers
        kind = item.get("type") if plain else field(item, "type")
        if type(kind) is not str:
            continue
        if kind == "message":
            for part in as_list(item.get("content") if plain else field(item, "content")):
                part_plain = type(part) is dict
                part_type = part.get("type") if part_plain else field(part, "type")
                if part_type == "output_text":
                    value = part.get("text") if part_plain else field(part, "text")
                    if isinstance(value, str):
                        text.append(value)
                elif part_type == "refusal":
                    value = field(part, "refusal")
                    if isinstance(value, str):
                        refusal.append(value)
        elif kind in CLIENT_CALL_TYPES:
            if kind != "tool_search_call" or as_raw(field(item, "execution")) == "client":
                candidates.append((item, kind))
        elif kind in _OUTPUT_TYPES:
            key = "approval_request_id" if kind == "mcp_approval_response" else "call_id"
            # local_shell_call_output names its call by `id` (the call's call_id).
            answer_to = field(item, key) or field(item, "id")
            if isinstance(answer_to, str):
                answered.add(answer_to)
    calls: list[ToolCall] = []
    executed = 0
    for item, kind in candidates:
        if answered:
            key = field(item, "id") if kind == "mcp_approval_request" else field(item, "call_id")
            if isinstance(key, str) and key in answered:
                executed += 1
                continue
        calls.append(_call_of(item, kind))
    return text, refusal, calls, executed


def _incomplete(call: ToolCall, error: str) -> ToolCall:
    return call.model_copy(update={"complete": False, "error": call.error or error})


def read_response(
    reply: Any,
    items: list[Any] | None = None,
    *,
    raw: Any = None,
) -> Stop:
    """Build the `Stop` of one Response (`items` replaces its `output` when given)."""
    notes: list[str] = []
    details: dict[str, Any] = {}
    get = reply.get if type(reply) is dict else partial(field, reply)
    status = get("status")
    if type(status) is not str:
        status = as_raw(status)
    reason: StopReason
    detail: str | None
    entry = STATUS.get(status) if type(status) is str else None
    if entry is not None:  # the usual case first
        reason, detail = entry
    elif status is None:
        reason, detail = StopReason.UNKNOWN, "missing"
        notes.append("no status: the reply says nothing about why it stopped")
    elif not isinstance(status, str):
        reason, detail = StopReason.UNKNOWN, "malformed"
        notes.append(f"status is a {type(status).__name__}, not a string")
    else:
        reason, detail = StopReason.UNKNOWN, "unrecognized"
        notes.append(f"status {status!r} is not one stopkit knows: treated as unknown")
    incomplete = get("incomplete_details")
    if incomplete is not None:
        details["incomplete_details"] = as_dict(incomplete)
    if status == "incomplete":
        why = as_raw(field(incomplete, "reason"))
        if why is None:
            notes.append("status 'incomplete' without incomplete_details.reason")
        elif isinstance(why, str) and why in INCOMPLETE_REASON:
            reason, detail = INCOMPLETE_REASON[why]
        else:
            reason, detail = StopReason.UNKNOWN, "unrecognized"
            notes.append(f"incomplete_details.reason {why!r} is not one stopkit knows")
    error = get("error")
    if error is not None:
        details["error"] = as_dict(error)
        if status == "failed":
            code = as_raw(field(error, "code"))
            if isinstance(code, str) and code in ERROR_CODE:
                reason, detail = ERROR_CODE[code]
                if reason is StopReason.FILTERED:
                    notes.append(f"status 'failed' with error code {code!r}: treated as filtered")

    if items is None:
        output = get("output")
        items = as_list(output)
        if output is not None and not items and not isinstance(output, list | tuple):
            reason, detail = StopReason.UNKNOWN, "malformed"
            notes.append(f"output is a {type(output).__name__}, not a list")
    text, refusals, calls, executed = read_items(items)
    if executed:
        notes.append(
            f"{executed} client-tool item(s) already have their output in the reply: "
            "executed by the provider, not pending"
        )
    refusal = "".join(refusals) if refusals else None

    # Reconciliation, first match wins (DESIGN section 3).
    if refusal is not None and reason is not StopReason.FILTERED:
        notes.append(f"status {status!r} with a refusal content part: treated as filtered")
        reason, detail = StopReason.FILTERED, "refusal"
    elif reason is StopReason.OUTPUT_LIMIT and calls:
        calls = [_incomplete(c, "the reply was cut off by the output limit") for c in calls]
        notes.append(f"{len(calls)} tool call(s) in a truncated reply: marked incomplete")
    elif reason is StopReason.COMPLETED and calls:
        notes.append(
            f"status 'completed' with {len(calls)} client tool call(s): treated as tool_request"
        )
        reason = StopReason.TOOL_REQUEST
    elif reason is StopReason.UNKNOWN and calls:
        notes.append(f"{len(calls)} tool call(s) under an unknown stop: listed, not to be run")
    return make_stop(
        reason,
        provider=PROVIDER,
        raw=reply if raw is None else raw,
        raw_reason=status,
        detail=detail,
        text="".join(text),
        tool_calls=tuple(calls),
        refusal=refusal,
        notes=notes,
        details=details,
    )


class OpenAIResponsesAdapter:
    """Reads OpenAI Responses API replies (`object: "response"`) and their streams.

    Example:
        >>> stop = OpenAIResponsesAdapter().normalize({"object": "response",
        ...     "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
        ...     "output": []})
        >>> (stop.reason.value, stop.detail)
        ('output_limit', 'max_tokens')
    """

    name = PROVIDER
    # A Response says `object: "response"`: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("object",)
    tables: dict[str, dict[str, tuple[StopReason, str | None]]] = {  # noqa: RUF012
        "status": STATUS,
        "incomplete_details.reason": INCOMPLETE_REASON,
        "error.code": ERROR_CODE,
    }
    stream_notes: tuple[str, ...] = (
        "The terminal event (response.completed / response.incomplete / response.failed) "
        "decides; a stream without one is unknown/stream_incomplete.",
        "An `error` event makes the stream unknown/error unless it was filtered, cut off or "
        "paused.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a Response (`object == "response"`, dict or SDK object)."""
        if type(reply) is dict:  # `field` inlined for the JSON body (tried for every dict)
            return bool(reply.get("object") == "response")
        return bool(field(reply, "object") == "response")

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a Responses stream event (`type` starts with `response.`).

        An `error` event counts only with its `sequence_number`, which other APIs' errors lack.
        """
        kind = field(event, "type")
        if kind == "error":
            return field(event, "sequence_number") is not None
        return isinstance(kind, str) and kind.startswith("response.")

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` of one Response."""
        return read_response(reply)

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        """Return the one `Stop` of a Response (it has no choices)."""
        return (read_response(reply),)

    def stream(self) -> Any:
        """Return a fresh accumulator for one streamed Response."""
        from stopkit.adapters._openai_responses_stream import ResponsesStream

        return ResponsesStream()

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the reply's output items as sent, as dicts (reasoning items included)."""
        return [as_dict(item) for item in _output_items(stop)]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one answer item per result: `function_call_output` or its tool's own kind."""
        by_id: dict[Any, Any] = {}
        for item in _output_items(stop):
            kind = field(item, "type")
            if kind in CLIENT_CALL_TYPES:
                key = "id" if kind == "mcp_approval_request" else "call_id"
                by_id[field(item, key)] = item
        return [_answer(by_id.get(result.call_id), result) for result in results]

    def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Return the messages and call overrides that continue a PAUSED reply.

        - `background` (status `queued` / `in_progress`): no messages, and the overrides
          `{"poll_response_id": <response id>}`. The caller's `call_model` must then retrieve
          that response (`client.responses.retrieve(poll_response_id)`, after a short wait)
          instead of creating a new one, and return it.
        - `steered` and `continuation` (`max_messages`): the output items are appended and the
          model is called again with the same overrides.

        Raises:
            ValueError: the stop is not a PAUSED Responses stop.
        """
        if stop.reason is not StopReason.PAUSED:
            raise ValueError(f"only a paused reply can be resumed, not {stop.reason.value!r}")
        if stop.detail == "background":
            return [], {"poll_response_id": field(_response_of(stop), "id")}
        return self.assistant_message(stop), {}

    def user_message(self, text: str) -> dict[str, Any]:
        """Return a user message saying `text`: a Responses `input` item (`EasyInputMessageParam`).

        Example:
            >>> OpenAIResponsesAdapter().user_message("Go on.")
            {'role': 'user', 'content': 'Go on.'}
        """
        return {"role": "user", "content": text}


def _response_of(stop: Stop) -> Any:
    return stop.raw


def _output_items(stop: Stop) -> list[Any]:
    return as_list(field(_response_of(stop), "output"))


def _answer(item: Any, result: ToolResult) -> dict[str, Any]:
    """Build the input item carrying `result` back for the call `item` (None: a function)."""
    kind = field(item, "type") if item is not None else "function_call"
    value = result.value
    if kind == "mcp_approval_request":
        answer: dict[str, Any] = {
            "type": "mcp_approval_response",
            "approval_request_id": result.call_id,
            "approve": not result.is_error,
        }
        if result.is_error and result.content:
            answer["reason"] = result.content
        return answer
    if kind == "local_shell_call":
        # LocalShellCallOutput names its call by `id` (the call's call_id).
        return {"type": "local_shell_call_output", "id": result.call_id, "output": result.content}
    answer = {"type": OUTPUT_TYPE_OF.get(kind, "function_call_output"), "call_id": result.call_id}
    if kind == "computer_call":
        answer["output"] = (
            value
            if isinstance(value, dict) and value.get("type") == "computer_screenshot"
            else {"type": "computer_screenshot", "image_url": result.content}
        )
    elif kind == "shell_call":
        answer["output"] = (
            value
            if isinstance(value, list)
            else [
                {
                    "stdout": "" if result.is_error else result.content,
                    "stderr": result.content if result.is_error else "",
                    "outcome": {"type": "exit", "exit_code": 1 if result.is_error else 0},
                }
            ]
        )
    elif kind == "apply_patch_call":
        answer["status"] = "failed" if result.is_error else "completed"
        answer["output"] = result.content
    elif kind == "tool_search_call":
        answer["execution"] = "client"
        answer["tools"] = value if isinstance(value, list) else []
    else:
        answer["output"] = result.content
        caller = field(item, "caller") if item is not None else None
        if caller is not None and as_raw(field(caller, "type")) == "program":
            # A call made by a program (programmatic tool calling) is answered to that program.
            answer["caller"] = as_dict(caller)
    return answer
