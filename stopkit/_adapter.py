"""The plug-in point: what an adapter is, and what a stream accumulator is.

Any object with these attributes is an adapter; nothing needs to inherit from anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from stopkit._stop import Stop, ToolResult

__all__ = ["Adapter", "StreamAccumulator"]


@runtime_checkable
class StreamAccumulator(Protocol):
    """Collects one streamed reply, event by event, into the `Stop` its whole reply would give."""

    def feed(self, event: Any) -> None:
        """Take one event or chunk (an SDK event object or the parsed JSON `data:` object)."""
        ...

    def result(self) -> Stop:
        """Return the `Stop` for what was fed so far (`stream_incomplete` before the end)."""
        ...


# An accumulator may also have `text_pieces() -> list[str] | None`: the visible text fed so far
# as the pieces it came in, one list only ever appended to, joining to `result().text`; None
# when it cannot say (then, and without the method, the loop reads the text off `result()`).
# The loop hands each new piece to `on_text` as it arrives: without it, telling the text as it
# grows costs a `result()` per event, quadratic in the stream's length.


@runtime_checkable
class Adapter(Protocol):
    """Reads one wire API's replies.

    `normalize` never raises for a reply of its shape: a malformed one is `UNKNOWN` with a
    detail and a note. `detects` must be cheap and must not raise.

    Optional:
    - `detect_keys`, the top-level keys a JSON body must hold at least one of for `detects` to
      accept it; auto-detection skips the adapter for a body with none of them.
    - `user_message(text) -> message`, a user message saying `text` in this wire API's format
      (the loop sends it for a `str` prompt, `ask_for_shorter` and the summing-up call); an
      adapter without it gets `{"role": "user", "content": text}`.
    - `otel_provider`, `otel_operation`: its OpenTelemetry `gen_ai.provider.name` (else its
      `name`) and `gen_ai.operation.name` (else `chat`).
    - `counts_apart`: what its usage counts leave out of the whole (`cache`: the input count
      leaves out cached prompt tokens; `reasoning`: the output count leaves out thinking); the
      loop's compaction and the telemetry add those parts back in.
    """

    name: str

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` (a JSON dict or an SDK object) is of this adapter's wire API."""
        ...

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is the first event/chunk of a stream of this wire API."""
        ...

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` of a reply (the first choice/candidate when there are several)."""
        ...

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        """Return one `Stop` per choice/candidate."""
        ...

    def stream(self) -> StreamAccumulator:
        """Return a fresh accumulator for one streamed reply."""
        ...

    def assistant_message(self, stop: Stop) -> Any:
        """Return the provider-format message(s) that append this reply to the conversation."""
        ...

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[Any]:
        """Return the provider-format messages that carry the tool results back."""
        ...

    def resume(self, stop: Stop) -> tuple[list[Any], dict[str, Any]]:
        """Return the messages to append and the call overrides that resume a paused reply."""
        ...
