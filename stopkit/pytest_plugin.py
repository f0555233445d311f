"""The stopkit pytest plugin: recorded payloads served to real SDK clients, one test per payload.

Active wherever stopkit is installed (the `pytest11` entry point); `-p no:stopkit` turns it off.

- `stopkit_replay` — a fixture giving a factory: `stopkit_replay(folder)` is a
  `ReplayTransport` over the folder's recordings; `stopkit_replay.client(folder)` and
  `stopkit_replay.async_client(folder)` are HTTP clients on it, of the library the SDKs take
  (`httpx2` when installed, else `httpx`; pass `library=` to choose), closed after the test.
- `@pytest.mark.stopkit_payloads(folder, pattern="*")` — runs the test once per payload file
  under `folder`, passing each as the `stopkit_payload` argument (a `stopkit.testing.Payload`).
  `stopkit.testing.payload_params(folder)` gives the same as a `parametrize` argument list.

Relative folders are looked up beside the test file first, then from the working directory.
Files in a payload folder that are not payloads (a `README.txt`, notes) are skipped.

The plugin is loaded into every test run of an environment where stopkit is installed, so it
costs next to nothing there: it imports only pytest at start, and stopkit's own modules when a
test uses the fixture or the marker. It works with pytest 7.0 and later, under pluggy 1.0 and
later (the lower bounds of the `stopkit[pytest]` extra); its one hook wrapper is an old-style
`hookwrapper`, which every pluggy 1.x runs (`wrapper=True` needs pluggy 1.2 and pytest 8).

Example:
    >>> @pytest.mark.stopkit_payloads("payloads/my_provider")  # doctest: +SKIP
    ... def test_my_adapter(stopkit_payload):
    ...     assert_stop(stopkit_payload, adapter=MyAdapter(), **stopkit_payload.expect)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pytest

if TYPE_CHECKING:  # imported when used: `import stopkit.pytest_plugin` loads nothing of stopkit
    from stopkit.record._payloads import Payload
    from stopkit.record._replay import ReplayTransport

__all__ = ["ReplayFactory"]

_MARKER = "stopkit_payloads"
# Where a test's factory is kept: the item's own attributes, a name of ours (`item.stash` would
# need pytest 7 at import time, and this module is imported by every pytest run).
_FACTORY = "_stopkit_replay_factory"


def _resolve(source: str | Path, base: Path | None) -> Path:
    path = Path(source)
    if not path.is_absolute() and base is not None and (base / path).exists():
        return base / path
    return path


class ReplayFactory:
    """Builds replay transports and HTTP clients over recorded payloads, for one test."""

    def __init__(self, base: Path | None = None) -> None:
        self.base = base
        self.transports: list[ReplayTransport] = []
        self._clients: list[Any] = []

    def __call__(
        self,
        source: str | Path | list[str | Path],
        *,
        match: Literal["order", "request"] = "order",
    ) -> ReplayTransport:
        """Return a `ReplayTransport` over `source` (a folder, a file or a list of files)."""
        from stopkit.record._replay import ReplayTransport

        if isinstance(source, str | Path):
            resolved: Any = _resolve(source, self.base)
        else:
            resolved = [_resolve(item, self.base) for item in source]
        transport = ReplayTransport(resolved, match=match)
        self.transports.append(transport)
        return transport

    def _library(self, library: str | None) -> Any:
        import importlib

        if library is not None:
            return importlib.import_module(library)
        try:
            return importlib.import_module("httpx2")
        except ImportError:
            return importlib.import_module("httpx")

    def client(
        self,
        source: str | Path | list[str | Path],
        *,
        match: Literal["order", "request"] = "order",
        library: Literal["httpx", "httpx2"] | None = None,
    ) -> Any:
        """Return a sync HTTP client replaying `source`; pass it as the SDK's `http_client`."""
        client = self._library(library).Client(transport=self(source, match=match))
        self._clients.append(client)
        return client

    def async_client(
        self,
        source: str | Path | list[str | Path],
        *,
        match: Literal["order", "request"] = "order",
        library: Literal["httpx", "httpx2"] | None = None,
    ) -> Any:
        """Return an async HTTP client replaying `source`."""
        client = self._library(library).AsyncClient(transport=self(source, match=match))
        self._clients.append(client)
        return client

    def close(self) -> None:
        """Close the sync clients made (async ones close with their event loop)."""
        for client in self._clients:
            if hasattr(client, "close"):
                client.close()


def pytest_configure(config: pytest.Config) -> None:
    """Register the `stopkit_payloads` marker (so that `--strict-markers` accepts it)."""
    config.addinivalue_line(
        "markers",
        f"{_MARKER}(folder, pattern='*'): run the test once per payload file under folder, "
        "as its stopkit_payload argument",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize `stopkit_payload` over the folder named by the `stopkit_payloads` marker."""
    marker = metafunc.definition.get_closest_marker(_MARKER)
    if marker is None or "stopkit_payload" not in metafunc.fixturenames:
        return
    from stopkit._testkit import payload_params

    folder = marker.args[0] if marker.args else marker.kwargs["folder"]
    pattern = marker.args[1] if len(marker.args) > 1 else marker.kwargs.get("pattern", "*")
    base = Path(str(metafunc.definition.path)).parent
    metafunc.parametrize("stopkit_payload", payload_params(_resolve(folder, base), pattern))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """On a failed test, list the requests its replay transports had no recording for.

    The SDKs wrap a transport's error in their own connection error; this names the request.
    """
    outcome = yield
    factory = getattr(item, _FACTORY, None)
    if factory is not None:
        report = outcome.get_result()
        misses = [str(miss) for transport in factory.transports for miss in transport.misses]
        if misses and report.failed:
            report.sections.append(("stopkit: requests with no recording", "\n".join(misses)))


# The fixtures are found by the names pytest gives them, not imported: their functions are private.
@pytest.fixture(name="stopkit_replay")
def _stopkit_replay(request: pytest.FixtureRequest) -> Iterator[ReplayFactory]:
    """Serve recorded payloads to real SDK clients: see `ReplayFactory`."""
    factory = ReplayFactory(Path(str(request.path)).parent)
    setattr(request.node, _FACTORY, factory)
    yield factory
    factory.close()


@pytest.fixture(name="stopkit_payload")
def _stopkit_payload() -> Payload:
    """One payload file, when the test is marked `@pytest.mark.stopkit_payloads(folder)`."""
    raise pytest.UsageError(
        "the stopkit_payload argument needs @pytest.mark.stopkit_payloads('folder') on the test"
    )
