"""`python -m benchmarks.plugin_start`: what the stopkit pytest plugin adds to a pytest start.

The plugin is loaded into every pytest run of an environment where stopkit is installed, also
where no test uses it. This times `pytest --collect-only` of a one-test suite in fresh
processes, with the plugin and with `-p no:stopkit`, alternating the two so that the machine's
load falls on both alike, and prints the medians and their difference — in CPU time (user +
system of the child), which a busy machine disturbs far less than wall time; then the
plugin's own import time (`python -X importtime`, wall). Not run by pytest.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RUNS = 30


def _pytest_start(suite: Path, *extra: str) -> float:
    """The CPU seconds of one `pytest --collect-only` of `suite`."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
               "-c", str(suite / "pytest.ini"), "--rootdir", str(suite), *extra,
               str(suite)]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _import_ms() -> float:
    code = "import pytest; import stopkit.pytest_plugin"
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], check=True, capture_output=True, text=True
    ).stderr
    line = next(x for x in err.splitlines() if x.rstrip().endswith("| stopkit.pytest_plugin"))
    return int(line.split("|")[1]) / 1000  # cumulative microseconds -> ms


def main() -> None:
    """Print the medians of a pytest start with and without the plugin, and its import time."""
    with tempfile.TemporaryDirectory() as folder:
        suite = Path(folder)
        (suite / "pytest.ini").write_text("[pytest]\n")
        (suite / "test_one.py").write_text("def test_one():\n    assert True\n")
        on: list[float] = []
        off: list[float] = []
        for _ in range(RUNS):
            on.append(_pytest_start(suite))
            off.append(_pytest_start(suite, "-p", "no:stopkit"))
    imports = sorted(_import_ms() for _ in range(RUNS))
    with_plugin, without = statistics.median(on) * 1000, statistics.median(off) * 1000
    print(f"pytest --collect-only, one test, CPU time, median of {RUNS} fresh processes each:")
    print(f"  with the stopkit plugin   {with_plugin:7.1f} ms")
    print(f"  with -p no:stopkit        {without:7.1f} ms")
    print(f"  difference                {with_plugin - without:7.1f} ms")
    median = statistics.median(imports)
    print(f"import stopkit.pytest_plugin after pytest: median {median:.1f} ms, "
          f"min {imports[0]:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
