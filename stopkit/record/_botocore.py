"""Recording and replaying a boto3 client's exchanges: botocore's `before-send` event.

boto3 does not speak httpx, so the transports cannot sit under it; botocore instead emits
`before-send` with each signed request, and a handler that returns a response answers the
request in place of the network. `BotocoreReplay` answers from recorded payloads (the same
files, the same matching as `ReplayTransport`); `BotocoreRecorder` sends the request itself
(with botocore's own `URLLib3Session`) and writes the exchange, in the recording file format.

What is redacted is what `RecordingTransport` redacts: SigV4's `Authorization` header (its
credential scope names the access key) and `X-Amz-Security-Token` are `REDACTED`;
`X-Amz-Date` is kept. Bedrock's streams are AWS event-stream frames (`_eventstream`): a
recording keeps each frame as the event an adapter reads, and replays it as the same frame.
While recording, a stream is read to its end before the SDK reads it (one response, not a live
stream): fine for tests, not for a user waiting on the text.

Example:
    >>> client = boto3.client("bedrock-runtime", region_name="us-east-1")  # doctest: +SKIP
    >>> BotocoreReplay("recordings").attach(client)  # doctest: +SKIP
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, Self

from stopkit._secrets import redact_text, redact_value
from stopkit.record._eventstream import CONTENT_TYPE, decode
from stopkit.record._files import RecordingFolder
from stopkit.record._framing import stream_chunks
from stopkit.record._payloads import Payload
from stopkit.record._redact import NOISE, WIRE, redact_headers, redact_request_body
from stopkit.record._replay import Recordings
from stopkit.record._wire import json_or_text

__all__ = ["BotocoreRecorder", "BotocoreReplay"]


class _Body(io.BytesIO):
    """A response body botocore reads: `read()` (a `StreamingBody`), or `stream()` (events).

    `stream()` gives one chunk per recorded event, as a real event stream arrives.
    """

    def __init__(self, chunks: list[bytes]) -> None:
        super().__init__(b"".join(chunks))
        self._chunks = chunks

    def stream(self, *args: Any, **kwargs: Any) -> Iterator[bytes]:
        """Yield the body, one recorded event (or the whole body) at a time."""
        yield from self._chunks


def _content(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode()
    if isinstance(body, bytes | bytearray):
        return bytes(body)
    data = body.read()  # a file-like body, read for the recording and rewound for sending
    body.seek(0)
    return data if isinstance(data, bytes) else str(data).encode()


def _headers(headers: Any) -> dict[str, str]:
    """A request's headers as text (botocore keeps some as bytes)."""
    return {
        name: value.decode("latin-1") if isinstance(value, bytes) else str(value)
        for name, value in headers.items()
    }


def _response(url: str, payload: Payload) -> Any:
    """The botocore response that serves `payload` (its recorded status, headers and body)."""
    from botocore.awsrequest import AWSResponse  # type: ignore[import-untyped]

    meta = payload.response
    recorded = meta.get("headers") or {}
    headers = {k: v for k, v in recorded.items() if k not in WIRE and k != "set-cookie"}
    if payload.events is not None:
        # boto3 reads its streams only as frames: a case file's, or another wire's recording
        # (Claude's SSE served as InvokeModel chunks), is framed so.
        content_type = CONTENT_TYPE
        framed = {**meta, "content_type": content_type}
        chunks = stream_chunks(Payload(payload.path, events=payload.events, response=framed))
    else:
        body = payload.reply
        content_type = meta.get("content_type") or "application/json"
        text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
        chunks = [text.encode()]
        headers["content-length"] = str(len(chunks[0]))
    headers["content-type"] = content_type
    return AWSResponse(url, int(meta.get("status", 200)), headers, _Body(chunks))


def _event_name(client: Any) -> str:
    """The `before-send` event of the client's service (`before-send.bedrock-runtime`)."""
    return f"before-send.{client.meta.service_model.service_id.hyphenize()}"


class _Hook:
    """A `before-send` handler (its `send`): `attach` it to a client, `detach` it again."""

    send: Callable[..., Any]

    def attach(self, client: Any) -> Self:
        """Answer every request of `client` from now on; return this handler."""
        client.meta.events.register(_event_name(client), self.send, unique_id=id(self))
        return self

    def detach(self, client: Any) -> None:
        """Let `client` send its requests itself again."""
        client.meta.events.unregister(_event_name(client), unique_id=id(self))


class BotocoreReplay(Recordings, _Hook):
    """Serve recorded payloads to a boto3 client, by order or by request, with no network.

    `source` and `match` are `ReplayTransport`'s: a folder, a file or a list of payload files;
    a JSON reply is served as the operation's body, a stream as AWS event-stream frames. A
    request with nothing to serve raises `NoRecording` (botocore does not wrap it).

    Example:
        >>> replay = BotocoreReplay("recordings").attach(client)  # doctest: +SKIP
        >>> client.converse(modelId="m", messages=[...])  # doctest: +SKIP
    """

    def __init__(
        self,
        source: str | Path | Iterable[str | Path | Payload],
        *,
        match: Literal["order", "request"] = "order",
    ) -> None:
        super().__init__(source, match=match)

    def send(self, request: Any, **kwargs: Any) -> Any:
        """Answer one signed request (botocore's `before-send` handler)."""
        content_type = _headers(request.headers).get("Content-Type", "")
        payload = self.pick(request.method, request.url, _content(request.body), content_type)
        return _response(request.url, payload)


class BotocoreRecorder(_Hook):
    """Send a boto3 client's requests for real and write each exchange to a recording file.

    Files are `RecordingTransport`'s (`NNNN-<method>-<path>.json`, never overwritten), read back
    by `BotocoreReplay` and by every payload reader. `session` sends the requests (botocore's
    `URLLib3Session()` by default: the client's own proxy and TLS settings are not used).

    Example:
        >>> BotocoreRecorder("recordings").attach(client)  # doctest: +SKIP
    """

    def __init__(self, directory: str | Path, *, session: Any = None) -> None:
        self._folder = RecordingFolder(directory)
        self.directory = self._folder.directory
        self.written: list[Path] = self._folder.written
        """The files written so far, in order."""
        self._session = session

    def send(self, request: Any, **kwargs: Any) -> Any:
        """Send one signed request, record the exchange, answer with the recorded response."""
        if self._session is None:
            from botocore.httpsession import URLLib3Session  # type: ignore[import-untyped]

            self._session = URLLib3Session()
        response = self._session.send(request)
        data = response.content  # the whole body, a stream's frames too
        secrets: set[str] = set()
        headers = _headers(request.headers)
        summary = {
            "method": request.method,
            "url": redact_text(request.url, secrets),
            "headers": redact_headers(headers, secrets, drop=NOISE),
            "body": redact_request_body(
                _content(request.body), headers.get("Content-Type", ""), secrets
            ),
        }
        content_type = response.headers.get("content-type", "")
        meta: dict[str, Any] = {
            "status": response.status_code,
            "content_type": content_type,
            "headers": redact_headers(response.headers, secrets, response=True),
        }
        try:
            events, kinds = decode(data) if content_type.startswith(CONTENT_TYPE) else (None, [])
        except ValueError:  # no frames after all: kept as the body it is (the SDK reads its own)
            events = None
        if events is not None:
            meta.update(events=[redact_value(e, secrets) for e in events], aws_event_types=kinds)
        else:
            meta["body"] = redact_value(json_or_text(data), secrets)
        self._folder.write(summary, meta, secrets)
        from botocore.awsrequest import AWSResponse

        # The SDK reads what was received, unredacted, as it would have without the recorder.
        return AWSResponse(response.url, response.status_code, response.headers, _Body([data]))
