"""stopkit: why did the model stop, and what must the agent loop do next?

Every LLM reply, from any provider, normalized onto one closed enum (`StopReason`), with the
provider's raw value kept beside it.

Example:
    >>> import stopkit
    >>> stopkit.normalize({"type": "message", "role": "assistant", "content": [],
    ...     "stop_reason": "max_tokens"}).reason
    <StopReason.OUTPUT_LIMIT: 'output_limit'>
"""

from stopkit._adapter import Adapter, StreamAccumulator
from stopkit._errors import (
    AdapterNotFound,
    FilteredReply,
    PausedReply,
    StopkitError,
    StopReasonError,
    TruncatedReply,
    UnknownStopReason,
    UnsupportedReply,
)
from stopkit._normalize import detect, normalize, normalize_all
from stopkit._registry import (
    get_adapter,
    register_adapter,
    registered_adapters,
    unregister_adapter,
)
from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit._stream import anormalize_stream, normalize_stream

__version__ = "0.1.0"

__all__ = [
    "Adapter",
    "AdapterNotFound",
    "FilteredReply",
    "PausedReply",
    "Stop",
    "StopReason",
    "StopReasonError",
    "StopkitError",
    "StreamAccumulator",
    "ToolCall",
    "ToolResult",
    "TruncatedReply",
    "UnknownStopReason",
    "UnsupportedReply",
    "__version__",
    "anormalize_stream",
    "detect",
    "get_adapter",
    "normalize",
    "normalize_all",
    "normalize_stream",
    "register_adapter",
    "registered_adapters",
    "unregister_adapter",
]
