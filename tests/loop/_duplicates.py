"""Two tool calls under one id, in each provider's shape: what the loop runs and sends back.

A provider matches a result to its call its own way, which decides what can be sent: by id
(and the Messages API wants one `tool_result` per `tool_use` id: one answer, the first), by name
and order (Ollama, which sends no ids: stopkit makes distinct ones, so both run), by the call
itself (Cohere v1). Each adapter's row in `tests/_adapters.py` says it (`Builtin.duplicates`),
built from the helpers here.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.loop._shapes import PROVIDERS

Answers = Callable[[list[Any]], list[tuple[str, str]]]
"""Reads the results a transcript sends back: (the id or name it answers, its status)."""


@dataclass(frozen=True)
class Duplicates:
    """One adapter's case: the reply, the final reply, how results are read, what is expected."""

    reply: Callable[[], Any]
    """A reply with two `get_weather` calls (Paris, then Tokyo) under the id `dup`."""
    done: Callable[[], Any]
    """The final reply, after the results."""
    answers: Answers
    ran: tuple[str, ...]
    """The cities that ran."""
    sent: tuple[tuple[str, str], ...]
    """The results sent back, as `answers` reads them."""


def payload(folder: str, name: str) -> Any:
    """A fresh copy of the reply of `tests/payloads/<folder>/<name>`."""
    from tests._payloads import PAYLOADS

    return copy.deepcopy(json.loads((PAYLOADS / folder / name).read_text())["reply"])


def _shapes(name: str) -> Any:
    return {s.name: s for s in PROVIDERS}[name]


def shaped(
    name: str,
    ran: tuple[str, ...],
    sent: tuple[tuple[str, str], ...],
    answers: Answers | None = None,
) -> Duplicates:
    """The case of a provider the loop tests have reply shapes for (tests/loop/_shapes.py).

    `answers`: how its results are read (by default, the shapes' own pairing of a transcript).
    """
    calls = [("dup", "get_weather", {"city": "Paris"}), ("dup", "get_weather", {"city": "Tokyo"})]

    def paired(messages: list[Any]) -> list[tuple[str, str]]:
        return [(i, "") for i in _shapes(name).pairs(messages)[1]]

    return Duplicates(
        lambda: _shapes(name).tools(calls),
        lambda: _shapes(name).text("done"),
        answers or paired,
        ran,
        sent,
    )


def bedrock_reply() -> Any:
    body = payload("bedrock", "tool_use_parallel.json")
    for block, city in zip(body["output"]["message"]["content"], ("Paris", "Tokyo"), strict=True):
        block["toolUse"].update(toolUseId="dup", name="get_weather", input={"city": city})
    return body


def cohere_reply() -> Any:
    body = payload("cohere", "tool_call.json")
    for item, city in zip(body["message"]["tool_calls"], ("Paris", "Tokyo"), strict=True):
        item.update(
            id="dup", function={"name": "get_weather", "arguments": json.dumps({"city": city})}
        )
    return body


def ollama_reply() -> Any:
    body = payload("ollama", "stop_tool_calls.json")
    for item, city in zip(body["message"]["tool_calls"], ("Paris", "Tokyo"), strict=True):
        item["function"] = {"name": "get_weather", "arguments": {"city": city}}
    return body


def cohere_v1_reply() -> Any:
    body = payload("cohere_v1", "tool_calls.json")
    for item, city in zip(body["tool_calls"], ("Paris", "Tokyo"), strict=True):
        item.update(name="get_weather", parameters={"city": city})
    return body


def cohere_v1_answers(messages: list[Any]) -> list[tuple[str, str]]:
    return [
        (r["call"]["name"], "")
        for m in messages if m.get("role") == "TOOL"
        for r in m["tool_results"]
    ]  # fmt: skip


def bedrock_answers(messages: list[Any]) -> list[tuple[str, str]]:
    return [
        (b["toolResult"]["toolUseId"], b["toolResult"]["status"])
        for m in messages if isinstance(m.get("content"), list)
        for b in m["content"] if "toolResult" in b
    ]  # fmt: skip


def xai_reply() -> Any:
    body = payload("xai", "tool_calls.json")
    call = body["outputs"][0]["message"]["tool_calls"][0]
    body["outputs"][0]["message"]["tool_calls"] = [
        {**call, "id": "dup",
         "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}
        for city in ("Paris", "Tokyo")
    ]  # fmt: skip
    return body


def by_role_tool(key: str, role: str = "tool") -> Answers:
    """Results sent as `{"role": role, key: ...}` messages, read by `key`."""

    def answers(messages: list[Any]) -> list[tuple[str, str]]:
        return [(m[key], "") for m in messages if m.get("role") == role]

    return answers
