"""`python -m benchmarks.interleaved [ROUNDS]`: the reading and stream ratios, sides in turns.

Each ratio's two sides (stopkit's `normalize` of a reply, the SDK's own parse, LiteLLM's and
pydantic-ai's reading; stopkit's accumulator and the SDK's) are timed in turns in this one
process, the best of ROUNDS rounds each (3 by default), so that a loaded machine slows both
sides alike. Prints one JSON object: per reply and per stream, each side's best time in seconds.
The same replies, streams and calls as `python -m benchmarks` (benchmarks/cases.py).
"""

from __future__ import annotations

import json
import os
import sys
import timeit
from collections.abc import Callable
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _timed(fn: Callable[[], Any], n: int) -> float:
    return min(timeit.repeat(fn, number=n, repeat=3)) / n


def _replies(rounds: int) -> dict[str, dict[str, float]]:
    import stopkit
    from benchmarks.cases import litellm_work, pydantic_ai_work, sdk_parser
    from benchmarks.replies import ADAPTERS, REPLIES

    out = {}
    for adapter in ADAPTERS:
        parse = sdk_parser(adapter)
        for case, reply in REPLIES[adapter].items():
            body, sdk = reply.body, parse(reply.body)
            works: dict[str, Callable[[], Any]] = {
                "dict": lambda b=body: stopkit.normalize(b),
                "sdk": lambda s=sdk: stopkit.normalize(s),
                "parse": lambda b=body, p=parse: p(b),
                "litellm": litellm_work(adapter, body),
                "pydantic_ai": pydantic_ai_work(adapter, body),
            }
            out[f"{adapter} {case}"] = _best(works, rounds, {"dict": 200, "sdk": 200})
    return out


def _streams(rounds: int) -> dict[str, dict[str, float]]:
    from benchmarks.cases import SDK_ACCUMULATOR, _sdk_events, _stream_sdk, _stream_stopkit
    from benchmarks.replies import ADAPTERS
    from benchmarks.streams import EVENTS, STREAMS

    out = {}
    for adapter in ADAPTERS:
        runs = {
            "dict events": _stream_stopkit(adapter, STREAMS[adapter]),
            "sdk events": _stream_stopkit(adapter, _sdk_events(adapter)),
        }
        if adapter in SDK_ACCUMULATOR:
            runs["sdk accumulator"] = _stream_sdk(adapter)
        best = _best(runs, rounds, {})
        out[adapter] = {name: value / EVENTS for name, value in best.items()}
    return out


def _best(works: dict[str, Callable[[], Any]], rounds: int, n: dict[str, int]) -> dict[str, float]:
    """Each work's best time over `rounds` rounds, the works taking turns within a round."""
    best: dict[str, float] = {}
    for work in works.values():
        work()  # lazy imports, caches
    for _ in range(rounds):
        for name, work in works.items():
            value = _timed(work, n.get(name, 2 if "events" in name or "accum" in name else 20))
            best[name] = min(best.get(name, value), value)
    return best


def main() -> None:
    """Print the best times of every reply's and stream's sides as one JSON object."""
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    print(json.dumps({"replies": _replies(rounds), "streams": _streams(rounds)}))


if __name__ == "__main__":
    main()
