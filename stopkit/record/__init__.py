"""Recording real provider exchanges to payload files, and replaying them to the real SDK clients.

- `RecordingTransport` — an httpx transport that forwards each request and writes the exchange
  to a payload file, credentials redacted (see `stopkit._secrets` for what counts as one).
- `ReplayTransport` — an httpx transport that serves recorded payloads back, by order or by
  matching the request; `NoRecording` is what it raises for a request it has nothing for.
- `BotocoreRecorder`, `BotocoreReplay` — the same for a boto3 client, through botocore's
  `before-send` event (boto3 does not speak httpx).
- `read_cassette` — the exchanges of the recordings a project already has: vcrpy and
  pytest-recording cassettes (YAML or JSON, gzipped or not) and HAR files, as payloads.

The payload files themselves are read with `stopkit.testing.load_payload`. The transports need
httpx; reading cassettes does not, so each name is imported on first use.

Example:
    >>> from stopkit.record import ReplayTransport  # doctest: +SKIP
"""

import typing as _typing

from stopkit._lazy import exports as _exports
from stopkit._moved import RECORD as _MOVED

_EXPORTS = {
    "stopkit.record._recording": ("RecordingTransport",),
    "stopkit.record._replay": ("ReplayTransport", "NoRecording"),
    "stopkit.record._botocore": ("BotocoreRecorder", "BotocoreReplay"),
    "stopkit.record._recordings": ("read_cassette",),
}  # fmt: skip

if _typing.TYPE_CHECKING:  # generated from _EXPORTS by `python -m tests.test_public_api`
    from stopkit.record._botocore import BotocoreRecorder as BotocoreRecorder
    from stopkit.record._botocore import BotocoreReplay as BotocoreReplay
    from stopkit.record._recording import RecordingTransport as RecordingTransport
    from stopkit.record._recordings import read_cassette as read_cassette
    from stopkit.record._replay import NoRecording as NoRecording
    from stopkit.record._replay import ReplayTransport as ReplayTransport

__all__, __getattr__, __dir__ = _exports(globals(), _EXPORTS, _MOVED)
