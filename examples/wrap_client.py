"""Wrap the official Anthropic client: every reply's Stop reported, truncation raised.

Offline: the real `anthropic.Anthropic` client sends real HTTP requests, answered from the
recordings in examples/recordings/ by `stopkit.record.ReplayTransport` (record your own with
`stopkit.record.RecordingTransport`).
Run: pip install -e '.[anthropic]'; python examples/wrap_client.py
"""

from __future__ import annotations

from pathlib import Path

import anthropic
import httpx2  # the anthropic SDK's HTTP library (a fork of httpx under its own name)

import stopkit
import stopkit.record

RECORDINGS = Path(__file__).parent / "recordings"

replay = httpx2.Client(transport=stopkit.record.ReplayTransport(RECORDINGS))  # served in order
client = stopkit.wrap(
    anthropic.Anthropic(api_key="sk-not-needed", http_client=replay, max_retries=0),
    on_stop=lambda stop: print(f"on_stop: {stop.reason.value} (raw {stop.raw_reason!r})"),
    raise_on={"output_limit", "filtered", "unknown"},
)
ask = {"model": "claude-test-model", "max_tokens": 256,
       "messages": [{"role": "user", "content": "Weather in Paris?"}]}  # fmt: skip

message = client.messages.create(**ask)  # the SDK's own Message, untouched
print(type(message).__name__, [block.type for block in message.content])

try:
    client.messages.create(**ask)  # the second recording was cut at max_tokens
except stopkit.TruncatedReply as error:
    print(f"raised TruncatedReply; partial text kept on the Stop: {error.stop.text!r}")
