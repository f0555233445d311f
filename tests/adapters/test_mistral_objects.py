"""mistralai's own objects read as the Chat JSON they were built from (`stopkit.adapters._wire`).

mistralai 3.x (Speakeasy-generated) fills every field a reply did not send with its `Unset`
placeholder, and keeps a value outside a field's documented ones as an `UnrecognizedStr`: read
as they are, a text reply had `message.tool_calls` "not a list" and `finish_reason
'model_length'` "not a string", both unknown/malformed. Each recording under
tests/recordings/mistral is built into the SDK's `ChatCompletionResponse` (and its stream into
`CompletionChunk`s) as `mistralai/client/utils/serializers.py` unmarshals them, and must give
the `Stop` its JSON gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mistralai.client.models import ChatCompletionResponse, CompletionChunk

import stopkit
from stopkit.record._payloads import load_payload
from tests._payloads import same_stop

RECORDINGS = sorted((Path(__file__).parent.parent / "recordings" / "mistral").glob("*.json"))


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_the_sdks_objects_give_the_stop_of_their_json(path: Path) -> None:
    """A mistralai reply (or its chunks) gives the `Stop` the JSON it was built from gives."""
    payload = load_payload(path)
    assert payload.expect is not None
    if payload.events is not None:
        chunks = [CompletionChunk.model_validate(event) for event in payload.events]
        got, want = stopkit.normalize_stream(chunks), stopkit.normalize_stream(payload.events)
    else:
        reply = ChatCompletionResponse.model_validate(payload.reply)
        got, want = stopkit.normalize(reply), stopkit.normalize(payload.reply)
    same_stop(got, want)
    assert got.reason == payload.expect["reason"]
    assert not any("malformed" in note for note in got.notes)
