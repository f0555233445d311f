"""Recording real provider exchanges to payload files, and replaying them to the real SDK clients.

- `RecordingTransport` — an httpx transport that forwards each request and writes the exchange
  to a payload file, credentials redacted (see `stopkit._secrets` for what counts as one).
- `ReplayTransport` — an httpx transport that serves recorded payloads back, by order or by
  matching the request; `NoRecording` is what it raises for a request it has nothing for.
- `BotocoreRecorder`, `BotocoreReplay` — the same for a boto3 client, through botocore's
  `before-send` event (boto3 does not speak httpx).
- `Payload`, `load_payload`, `load_payloads` — reading payload files (recorded exchanges,
  case files, bare replies, streams).
- `read_cassette` — the exchanges of the recordings a project already has: vcrpy and
  pytest-recording cassettes (YAML or JSON, gzipped or not) and HAR files, as payloads.

The transports need httpx; reading payload files does not, so each name is imported on first
use.

Example:
    >>> from stopkit.record import ReplayTransport  # doctest: +SKIP
"""

from typing import TYPE_CHECKING

from stopkit._lazy import lazy_exports

if TYPE_CHECKING:
    from stopkit.record._botocore import BotocoreRecorder, BotocoreReplay
    from stopkit.record._payloads import Payload, load_payload, load_payloads
    from stopkit.record._recording import RecordingTransport
    from stopkit.record._recordings import read_cassette
    from stopkit.record._replay import NoRecording, ReplayTransport

__all__ = [
    "BotocoreRecorder",
    "BotocoreReplay",
    "NoRecording",
    "Payload",
    "RecordingTransport",
    "ReplayTransport",
    "load_payload",
    "load_payloads",
    "read_cassette",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "_botocore": ("BotocoreRecorder", "BotocoreReplay"),
        "_payloads": ("Payload", "load_payload", "load_payloads"),
        "_recording": ("RecordingTransport",),
        "_recordings": ("read_cassette",),
        "_replay": ("NoRecording", "ReplayTransport"),
    },
    globals(),
)
