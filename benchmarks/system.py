"""The rows that are not a call timed in a loop: import time and memory growth.

Both need fresh interpreters, so they run as subprocesses of the benchmark. Import time is taken
inside each fresh interpreter around the `import` statement alone (interpreter start-up
excluded), which is what "the cost of importing the library" means; pyperf's `bench_command`
would time the whole process instead. Memory is the process's RSS (psutil) before and after a
million normalizations, after a warm-up, in a fresh interpreter per repeat.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from typing import Any

from benchmarks.cases import needs, skipped

__all__ = ["IMPORTS", "import_check", "import_times", "memory_growth"]

#: What is imported, in the order rows appear: label -> statement. `import pydantic` is lazy
#: (BaseModel and its machinery load on first use), so the cost of any library defining a
#: pydantic model starts at the `from pydantic import BaseModel` row.
IMPORTS = {
    "stopkit": "import stopkit",
    "pydantic": "import pydantic",
    "pydantic.BaseModel": "from pydantic import BaseModel",
    "litellm": "import litellm",
    "pydantic_ai": "import pydantic_ai",
}

_TIME_IMPORT = (
    "import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
)

_CHECK_IMPORT = """
import sys, json
import stopkit
heavy = ("anthropic", "openai", "google.genai", "httpx", "httpcore", "httpx_sse", "litellm",
         "pydantic_ai", "boto3", "cohere", "ollama")
print(json.dumps(sorted(m for m in sys.modules if m in heavy or m.startswith(
    tuple(h + "." for h in heavy)))))
"""

_MEMORY = """
import gc, json, sys
import psutil
import stopkit
from benchmarks.replies import replies
bodies = [r.body for r in replies()]
count = int(sys.argv[1])
normalize = stopkit.normalize
for body in bodies * 200:  # warm-up: adapters loaded, caches filled
    normalize(body)
gc.collect()
process = psutil.Process()
before = process.memory_info().rss
n = len(bodies)
for i in range(count):
    normalize(bodies[i % n])
gc.collect()
after = process.memory_info().rss
print(json.dumps({"before": before, "after": after}))
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network fetch at import
    return env


def _stats(values: list[float]) -> dict[str, Any]:
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "values": values,
    }


def import_times(repeats: int) -> dict[str, dict[str, Any]]:
    """Time `import <module>` in `repeats` fresh interpreters per module (seconds).

    The modules take turns (stopkit, pydantic, ..., pydantic_ai, stopkit, ...) so that
    a slow spell of the machine falls on all of them alike.
    """
    times: dict[str, list[float]] = {}
    for module in IMPORTS:  # a peer not installed has no row (the others need no extra)
        why = needs(module.split(".")[0])()
        if why is None:
            times[module] = []
        else:
            skipped(f"import {module}", why)
    env = _env()
    for _ in range(repeats):
        for module in times:
            statement = IMPORTS[module]
            out = subprocess.run(
                [sys.executable, "-c", _TIME_IMPORT.format(statement=statement)],
                capture_output=True, text=True, check=True, env=env,
            )
            times[module].append(float(out.stdout.strip().splitlines()[-1]))
    return {module: _stats(values) for module, values in times.items()}


def import_check() -> list[str]:
    """Return the provider SDKs, HTTP clients and peers `import stopkit` loaded (want: none)."""
    out = subprocess.run(
        [sys.executable, "-c", _CHECK_IMPORT], capture_output=True, text=True, check=True,
        env=_env(),
    )
    loaded: list[str] = json.loads(out.stdout.strip().splitlines()[-1])
    return loaded


def memory_growth(count: int, repeats: int) -> dict[str, Any] | None:
    """RSS growth in bytes over `count` normalizations, in `repeats` fresh interpreters.

    None, said on stderr, without psutil (what measures the process's memory).
    """
    why = needs("psutil")()
    if why is not None:
        skipped("RSS growth", why)
        return None
    growth: list[float] = []
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", _MEMORY, str(count)], capture_output=True, text=True,
            check=True, env=_env(), cwd=root,
        )
        data = json.loads(out.stdout.strip().splitlines()[-1])
        growth.append(float(data["after"] - data["before"]))
    return {**_stats(growth), "count": count}
