"""Client calls of the OpenAI Responses API: which output items are calls, and how each is answered.

Output items the caller must act on (openai/types/responses/response_output_item.py), how each
becomes a `ToolCall` (id = `call_id`, except `id` for mcp_approval_request), and the input item
that answers it (openai/types/responses/response_input_item.py):

| item type                 | ToolCall.name          | ToolCall.arguments                     |
|---------------------------|------------------------|----------------------------------------|
| function_call             | its `name`             | `arguments` (a JSON string) parsed     |
| custom_tool_call          | its `name`             | {"input": input}                       |
| computer_call             | "computer_call"        | {"action" or "actions", safety checks} |
| local_shell_call          | "local_shell_call"     | `action`                               |
| shell_call                | "shell_call"           | `action`                               |
| apply_patch_call          | "apply_patch_call"     | `operation`                            |
| tool_search_call (client) | "tool_search_call"     | `arguments`                            |
| mcp_approval_request      | "mcp_approval_request" | {"server_label", "name", "arguments"}  |

Built-in client tools are named by their item type so one callable serves them all (one
approver answers every MCP approval request: approve unless it raised). Everything else
(web_search_call, file_search_call, code_interpreter_call, image_generation_call, mcp_call,
mcp_list_tools, tool_search_call with execution "server", program, reasoning, compaction, ...)
ran on the provider's side and is not a tool call. A call whose answer item sits in the same
reply (a hosted shell's `shell_call_output`) ran on the provider's side too.

Example:
    >>> call_of({"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
    ...         "function_call").id
    'c1'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from stopkit._stop import ToolCall, ToolResult
from stopkit.adapters._calls import parse_arguments, tool_call
from stopkit.adapters._wire import listed, raw_value, to_json, wire

__all__ = [
    "CLIENT_CALL_TYPES",
    "OUTPUT_TYPE_OF",
    "answer",
    "answered_id",
    "answers",
    "call_of",
    "id_of",
    "input_items",
]

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
"""A client call item's `type` -> the input item `type` that carries its result back."""
CLIENT_CALL_TYPES = frozenset(OUTPUT_TYPE_OF)
"""The output item types that are calls the client must answer (a tool request)."""
_OUTPUT_TYPES = frozenset(OUTPUT_TYPE_OF.values())

# What a computer_call's arguments hold: one action, or a batch, and the safety checks.
_COMPUTER_FIELDS = ("action", "actions", "pending_safety_checks")

# item or content part type -> the fields the openai SDK's parsing helpers (`responses.parse()`,
# `responses.stream()`) add to it, which the API rejects as input ("Unknown parameter"):
# openai/types/responses/parsed_response.py (`ParsedResponseFunctionToolCall.parsed_arguments`,
# `ParsedResponseOutputText.parsed`, both in the SDK's own `__api_exclude__`); the input types,
# response_function_tool_call_param.py and response_output_text_param.py, have neither.
_PARSED_FIELDS: dict[str, tuple[str, ...]] = {
    "function_call": ("parsed_arguments",),
    "output_text": ("parsed",),
}


def id_of(fields: Mapping[str, Any], kind: str) -> Any:
    """The id a call item is answered by (`id` for mcp_approval_request, else `call_id`)."""
    return fields.get("id" if kind == "mcp_approval_request" else "call_id")


def answered_id(fields: Mapping[str, Any], kind: str) -> str | None:
    """The call id an answer item (`*_output`, mcp_approval_response) names; None if not one.

    An id that is not a string names no call (and could not be looked up).
    """
    if kind not in _OUTPUT_TYPES:
        return None
    key = "approval_request_id" if kind == "mcp_approval_response" else "call_id"
    # local_shell_call_output names its call by `id` (the call's call_id).
    value = fields.get(key) or fields.get("id")
    return value if type(value) is str else None


def call_of(fields: Mapping[str, Any], kind: str) -> ToolCall:
    """Build the `ToolCall` of one client-call output item (see the table above).

    An id that is not a string makes the call incomplete (`tool_call` checks it).
    """
    if kind == "function_call":
        return tool_call(fields.get("call_id"), fields.get("name"), fields.get("arguments"))
    if kind == "custom_tool_call":
        return tool_call(fields.get("call_id"), fields.get("name"), {"input": fields.get("input")})
    if kind == "mcp_approval_request":
        return _approval(fields)
    if kind == "computer_call":
        arguments: dict[str, Any] = {}
        for key in _COMPUTER_FIELDS:
            value = fields.get(key)
            if value:
                arguments[key] = (
                    to_json(value) if key == "action" else [to_json(v) for v in listed(value)]
                )
        return tool_call(fields.get("call_id"), kind, arguments)
    key = {"apply_patch_call": "operation", "tool_search_call": "arguments"}.get(kind, "action")
    return tool_call(fields.get("call_id"), kind, to_json(fields.get(key)))


def _approval(fields: Mapping[str, Any]) -> ToolCall:
    """An MCP approval request: the server, the tool, and the tool's parsed arguments."""
    arguments, raw_json, complete, error = parse_arguments(fields.get("arguments"))
    call = tool_call(
        fields.get("id"),
        "mcp_approval_request",
        {
            "server_label": fields.get("server_label"),
            "name": fields.get("name"),
            "arguments": arguments,
        },
    )
    # The nested arguments' own JSON and verdict belong to the call.
    return call.model_copy(
        update={
            "arguments_json": raw_json,
            "complete": call.complete and complete,
            "error": call.error or error,
        }
    )


def input_items(items: Sequence[Any]) -> list[Any]:
    """Return output items as the input items that send them back: JSON dicts, as sent.

    Only the fields the SDK's parsing helpers add (see `_PARSED_FIELDS`) are left out, from an
    item and from a message's content parts; the reply itself is not changed.

    Example:
        >>> input_items([{"type": "function_call", "call_id": "c1", "name": "f",
        ...               "arguments": "{}", "parsed_arguments": {}}])
        [{'type': 'function_call', 'call_id': 'c1', 'name': 'f', 'arguments': '{}'}]
    """
    sent = [_unparsed(to_json(item)) for item in items]
    for item in sent:
        if isinstance(item, dict) and isinstance(item.get("content"), list):
            item["content"] = [_unparsed(part) for part in item["content"]]
    return sent


def _unparsed(fields: Any) -> Any:
    """A copy of one JSON item or part without its parsing helpers' fields (others as given)."""
    if not isinstance(fields, dict):
        return fields
    kind = fields.get("type")
    added = _PARSED_FIELDS.get(kind, ()) if type(kind) is str else ()  # any type, as sent
    return {k: v for k, v in fields.items() if k not in added}


def answers(items: Sequence[Any], results: Sequence[ToolResult]) -> list[dict[str, Any]]:
    """Build one answer item per result, each of the kind its call item in `items` needs.

    A result whose call id names no call item is answered as a function's.

    Example:
        >>> call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
        >>> answers([call], [ToolResult(call_id="c1", name="f", content="ok")])[0]["type"]
        'function_call_output'
    """
    by_id: dict[str, Any] = {}
    for item in items:
        fields = wire(item)
        kind = fields.get("type")
        if type(kind) is str and kind in CLIENT_CALL_TYPES:
            call_id = id_of(fields, kind)
            if type(call_id) is str:  # another type could never be a result's call_id
                by_id[call_id] = item
    return [answer(by_id.get(result.call_id), result) for result in results]


def answer(item: Any, result: ToolResult) -> dict[str, Any]:
    """Build the input item carrying `result` back for the call `item` (None: a function)."""
    fields = wire(item)
    kind = fields.get("type") if item is not None else "function_call"
    if type(kind) is not str:
        kind = "function_call"
    if kind == "mcp_approval_request":
        approval: dict[str, Any] = {
            "type": "mcp_approval_response",
            "approval_request_id": result.call_id,
            "approve": not result.is_error,
        }
        if result.is_error and result.content:
            approval["reason"] = result.content
        return approval
    if kind == "local_shell_call":
        # LocalShellCallOutput names its call by `id` (the call's call_id).
        return {"type": "local_shell_call_output", "id": result.call_id, "output": result.content}
    out: dict[str, Any] = {
        "type": OUTPUT_TYPE_OF.get(kind, "function_call_output"),
        "call_id": result.call_id,
    }
    out.update(_RESULT_OF.get(kind, _plain_result)(result, fields))
    return out


def _screenshot(result: ToolResult, fields: Any) -> dict[str, Any]:
    """A computer_call's result: the screenshot the tool returned, or its content as the URL."""
    value = result.value
    if isinstance(value, dict) and value.get("type") == "computer_screenshot":
        return {"output": value}
    return {"output": {"type": "computer_screenshot", "image_url": result.content}}


def _shell_output(result: ToolResult, fields: Any) -> dict[str, Any]:
    """A shell_call's result: the tool's own output list, or one run's stdout/stderr and exit."""
    if isinstance(result.value, list):
        return {"output": result.value}
    failed = result.is_error
    run = {
        "stdout": "" if failed else result.content,
        "stderr": result.content if failed else "",
        "outcome": {"type": "exit", "exit_code": 1 if failed else 0},
    }
    return {"output": [run]}


def _patch_applied(result: ToolResult, fields: Any) -> dict[str, Any]:
    """An apply_patch_call's result: whether the patch applied, and what the tool said."""
    return {"status": "failed" if result.is_error else "completed", "output": result.content}


def _tools_found(result: ToolResult, fields: Any) -> dict[str, Any]:
    """A client tool_search_call's result: the tools it found (a list the tool returned)."""
    return {"execution": "client", "tools": result.value if isinstance(result.value, list) else []}


def _plain_result(result: ToolResult, fields: Any) -> dict[str, Any]:
    """A function's (or custom tool's) result: its content, answered to the program that called."""
    out: dict[str, Any] = {"output": result.content}
    caller = fields.get("caller")
    if caller is not None and raw_value(wire(caller).get("type")) == "program":
        # A call made by a program (programmatic tool calling) is answered to that program.
        out["caller"] = to_json(caller)
    return out


#: The fields of an answer item beside its type and call_id, by the call item's type.
_RESULT_OF: dict[str, Callable[[ToolResult, Any], dict[str, Any]]] = {
    "computer_call": _screenshot,
    "shell_call": _shell_output,
    "apply_patch_call": _patch_applied,
    "tool_search_call": _tools_found,
}
