"""stopkit: why did the model stop, and what must the agent loop do next?

Every LLM reply, from any provider, normalized onto one closed enum (`StopReason`), with the
provider's raw value kept beside it.

The front door holds the three uses (normalize, wrap, the loop's essentials), the result types,
the adapter protocol and the errors. Everything else lives in its subsystem's namespace:
`stopkit.loop` (the actions, controls and policies), `stopkit.loop.events`,
`stopkit.loop.journal`, `stopkit.adapters`, `stopkit.record`, `stopkit.testing`,
`stopkit.batch`, `stopkit.otel`, `stopkit.integrations`.

Example:
    >>> import stopkit
    >>> stopkit.normalize({"type": "message", "role": "assistant", "content": [],
    ...     "stop_reason": "max_tokens"}).reason
    <StopReason.OUTPUT_LIMIT: 'output_limit'>
"""

import typing as _typing

from stopkit._lazy import exports as _exports
from stopkit._moved import STOPKIT as _MOVED

# The public names, written once: module -> the names exported from it, in the order the API
# reference shows them. Each is imported on first use (PEP 562): `import stopkit` loads only
# this shell (`_lazy`, and `_moved`'s table), so that the pytest plugin, imported by every pytest
# run where stopkit is installed, costs nothing when unused; `stopkit.normalize` then loads the
# core (~65 ms, pydantic's BaseModel the most), the loop, `wrap` and the transports (httpx) load
# only when used.
_EXPORTS = {
    "stopkit._normalize": ("normalize", "normalize_all", "detect"),
    "stopkit._stream": ("normalize_stream", "anormalize_stream"),
    "stopkit._stop": ("StopReason", "Stop", "ToolCall", "ToolResult", "Usage"),
    "stopkit._adapter": ("Adapter", "StreamAccumulator"),
    "stopkit._registry": (
        "get_adapter", "register_adapter", "unregister_adapter", "registered_adapters",
    ),
    "stopkit._wrap": ("wrap",),
    "stopkit.loop._driver": ("run_loop", "arun_loop", "Loop", "resume_loop", "aresume_loop"),
    "stopkit.loop._settings": ("LoopSettings",),
    "stopkit.loop.events": ("Outcome", "Termination"),
    "stopkit.loop._tool": ("tool",),
    "stopkit._errors": (
        "StopkitError", "UnsupportedReply", "AdapterNotFound", "ModelCallError",
        "StopReasonError", "TruncatedReply", "FilteredReply", "PausedReply", "UnknownStopReason",
    ),
}  # fmt: skip

if _typing.TYPE_CHECKING:  # generated from _EXPORTS by `python -m tests.test_public_api`
    from stopkit._adapter import Adapter as Adapter
    from stopkit._adapter import StreamAccumulator as StreamAccumulator
    from stopkit._errors import AdapterNotFound as AdapterNotFound
    from stopkit._errors import FilteredReply as FilteredReply
    from stopkit._errors import ModelCallError as ModelCallError
    from stopkit._errors import PausedReply as PausedReply
    from stopkit._errors import StopkitError as StopkitError
    from stopkit._errors import StopReasonError as StopReasonError
    from stopkit._errors import TruncatedReply as TruncatedReply
    from stopkit._errors import UnknownStopReason as UnknownStopReason
    from stopkit._errors import UnsupportedReply as UnsupportedReply
    from stopkit._normalize import detect as detect
    from stopkit._normalize import normalize as normalize
    from stopkit._normalize import normalize_all as normalize_all
    from stopkit._registry import get_adapter as get_adapter
    from stopkit._registry import register_adapter as register_adapter
    from stopkit._registry import registered_adapters as registered_adapters
    from stopkit._registry import unregister_adapter as unregister_adapter
    from stopkit._stop import Stop as Stop
    from stopkit._stop import StopReason as StopReason
    from stopkit._stop import ToolCall as ToolCall
    from stopkit._stop import ToolResult as ToolResult
    from stopkit._stop import Usage as Usage
    from stopkit._stream import anormalize_stream as anormalize_stream
    from stopkit._stream import normalize_stream as normalize_stream
    from stopkit._wrap import wrap as wrap
    from stopkit.loop._driver import Loop as Loop
    from stopkit.loop._driver import aresume_loop as aresume_loop
    from stopkit.loop._driver import arun_loop as arun_loop
    from stopkit.loop._driver import resume_loop as resume_loop
    from stopkit.loop._driver import run_loop as run_loop
    from stopkit.loop._settings import LoopSettings as LoopSettings
    from stopkit.loop._tool import tool as tool
    from stopkit.loop.events import Outcome as Outcome
    from stopkit.loop.events import Termination as Termination

__version__ = "0.2.0"
"""This stopkit's version; the one place it is written (the package build reads it from here)."""

__all__, __getattr__, __dir__ = _exports(
    globals(), _EXPORTS, _MOVED, eager=("__version__",),
    submodules=("adapters", "batch", "cli", "integrations", "loop", "otel", "record", "testing"),
)  # fmt: skip
