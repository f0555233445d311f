"""Smoke test of an installed stopkit: run by .ci/run in a fresh venv, from outside the checkout.

Usage: python smoke.py VERSION. Checks that the installed package is the release being built
(its metadata and `__version__` say VERSION), that it reads a reply, and that its console script
answers `--version` and runs the offline demo.
"""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import stopkit

version = sys.argv[1]
where = Path(stopkit.__file__).resolve()
assert "site-packages" in where.parts, f"stopkit imported from {where}, not the installed copy"
assert metadata.version("stopkit") == stopkit.__version__ == version, (
    metadata.version("stopkit"),
    stopkit.__version__,
    version,
)

reply = {"candidates": [{"index": 0, "finishReason": "STOP", "content": {"role": "model",
         "parts": [{"functionCall": {"name": "get_order", "args": {"id": 7}}}]}}]}  # fmt: skip
stop = stopkit.normalize(reply)
read = (stop.reason, stop.raw_reason, stop.tool_calls[0].name)
assert read == ("tool_request", "STOP", "get_order"), read

script = Path(sys.executable).with_name("stopkit")
said = subprocess.run([script, "--version"], check=True, capture_output=True, text=True).stdout
assert said.strip() == f"stopkit {version}", said
demo = subprocess.run([script, "demo"], check=True, capture_output=True, text=True).stdout
# The demo's runs: most complete (a cut reply is retried, a pause resumed); one is escalated as
# filtered, one as unknown.
for reason in ("completed", "filtered", "unknown"):
    assert f"ended: {reason}" in demo, f"the demo did not end a run as {reason}:\n{demo}"
print(f"smoke test passed: stopkit {version} installed at {where.parent}")
