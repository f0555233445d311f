"""Write your own adapter, and unit-test it against recorded payloads with stopkit.testing.

"Acme" is an invented wire format: `{"acme": 1, "halt": "DONE", "output": {...}}`. The adapter
is one table plus the reconciliation steps stopkit's own adapters use (calls present -> tool
request, whatever the field says; unknown values -> unknown, raw kept). The tests run once per
payload file in examples/acme_payloads/ through the stopkit pytest plugin's marker.
Run: python examples/own_adapter.py   (runs the tests below with pytest)
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any, ClassVar

import pytest

import stopkit
from stopkit import Stop, StopReason, ToolCall
from stopkit.testing import Payload, assert_stop

# The provider's documented halt values (a real adapter cites its source here).
ACME_HALTS: dict[str, tuple[StopReason, str | None]] = {
    "DONE": (StopReason.COMPLETED, None),
    "NEEDS_TOOL": (StopReason.TOOL_REQUEST, None),
    "CUT": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "BLOCKED": (StopReason.FILTERED, "safety"),
}


class AcmeAdapter:
    """Reads Acme replies."""

    name = "acme"
    tables: ClassVar = {"halt": ACME_HALTS}  # what `stopkit table` would print for it

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is an Acme reply (cheap, never raises)."""
        return isinstance(reply, dict) and reply.get("acme") == 1

    def normalize(self, reply: dict[str, Any]) -> Stop:
        """Return why an Acme reply stopped."""
        raw = reply.get("halt")
        output = reply.get("output") or {}
        calls = tuple(
            ToolCall(id=c["id"], name=c["tool"], arguments=c.get("args", {}))
            for c in output.get("calls", [])
        )
        reason, detail = ACME_HALTS.get(raw, (StopReason.UNKNOWN, "unrecognized"))
        notes = []
        if raw is None:
            reason, detail = StopReason.UNKNOWN, "missing"
        elif reason is StopReason.COMPLETED and calls:
            reason = StopReason.TOOL_REQUEST
            notes.append(f"halt {raw!r} with {len(calls)} call(s): treated as tool_request")
        elif reason is StopReason.OUTPUT_LIMIT and calls:
            calls = tuple(c.model_copy(update={"complete": False, "error": "cut off"})
                          for c in calls)  # fmt: skip
        return Stop(reason=reason, raw_reason=raw, provider=self.name, detail=detail,
                    text=output.get("text", ""), tool_calls=calls, notes=tuple(notes),
                    raw=reply)  # fmt: skip


@pytest.mark.stopkit_payloads("acme_payloads")  # one test per payload file in the folder
def test_acme_payloads(stopkit_payload: Payload) -> None:
    """Each recorded Acme reply gives the Stop its file expects."""
    assert stopkit_payload.expect is not None
    assert_stop(stopkit_payload, adapter=AcmeAdapter(), **stopkit_payload.expect)


def test_registered_adapter_joins_auto_detection() -> None:
    """Once registered, plain `stopkit.normalize` finds the Acme adapter by itself."""
    stopkit.register_adapter(AcmeAdapter())
    try:
        assert stopkit.normalize({"acme": 1, "halt": "DONE"}).provider == "acme"
    finally:
        stopkit.unregister_adapter("acme")


if __name__ == "__main__":
    # In a fresh interpreter, so that pytest loads the stopkit plugin before stopkit is imported,
    # and with a configuration of its own (none): this file needs only stopkit and pytest, not
    # the settings of the project it sits in (this repository's need pytest-asyncio).
    here = os.path.dirname(os.path.abspath(__file__))
    command = [sys.executable, "-m", "pytest", __file__, "-q", "-p", "no:cacheprovider",
               "-c", os.devnull, "--rootdir", here]  # fmt: skip
    sys.exit(subprocess.call(command))
