"""Loop detection: the model asking for the same tool with the same arguments too often."""

from __future__ import annotations

import json
from collections import Counter, deque

from stopkit._logsafe import clip
from stopkit._stop import Stop, ToolCall
from stopkit.loop._arguments import size_of
from stopkit.loop._settings import LoopSettings

__all__ = ["LoopDetector"]


def _call_key(call: ToolCall, max_bytes: int, max_depth: int) -> tuple[str, str]:
    """Return what makes two calls the same for loop detection: name and arguments as JSON.

    The arguments are model-made, of any shape: only a structure within the loop's argument
    bounds is serialized (a cycle, or one list shared 2**60 times, must not hang the run).
    """
    raw = call.arguments_json
    size, depth = size_of(call.arguments, max_bytes, max_depth)
    if size <= max_bytes and depth <= max_depth:
        try:
            return call.name, json.dumps(call.arguments, sort_keys=True, default=str)
        except Exception:  # a str() that raises, a key that is no str
            pass
    return call.name, raw if type(raw) is str else clip(call.arguments, 4000)


class LoopDetector:
    """Remembers a run's last `loop_window` calls; says when a reply's calls repeat one too often.

    Example:
        >>> LoopDetector(LoopSettings(loop_threshold=2)).detected(stop)  # doctest: +SKIP
        False
    """

    def __init__(self, settings: LoopSettings) -> None:
        self.window = settings.loop_window
        self.threshold = settings.loop_threshold
        self.bounds = (settings.max_argument_bytes, settings.max_argument_depth)
        self.history: deque[tuple[str, str]] = deque(maxlen=settings.loop_window)

    def detected(self, stop: Stop) -> bool:
        """Say whether running this reply's calls repeats one too often; else record them."""
        keys = [_call_key(call, *self.bounds) for call in stop.runnable_tool_calls]
        if not keys:
            return False
        counts = Counter([*self.history, *keys][-self.window :])
        if any(counts[key] >= self.threshold for key in keys):
            return True
        self.history.extend(keys)
        return False
