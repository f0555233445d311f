"""Conformance: the real replies in ../shared/corpus normalize to their labels.

Skipped when the corpus folder is absent. Every in-scope label is held as it stands, except the
few that DESIGN section 3 overrules (`OVERRULED`, each with the contract's answer, checked all
the same): no reply is skipped.
"""

from __future__ import annotations

import pytest

import stopkit
from tests._adapters import ADAPTER_OF_WIRE
from tests._corpus import CORPUS, Row, rows

if not (CORPUS / "labels.jsonl").is_file():
    pytest.skip(f"conformance corpus not found at {CORPUS}", allow_module_level=True)


def _cases(stream: bool) -> list[pytest.ParameterSet]:
    out = []
    for wire in ADAPTER_OF_WIRE:
        for row in rows(wire, stream=stream):
            out.append(pytest.param(row, id=row.file))
    return out


def _every(stream: bool) -> list[Row]:
    return [row for wire in ADAPTER_OF_WIRE for row in rows(wire, stream=stream)]


def _adapter_available(row: Row) -> None:
    if row.adapter not in {a.name for a in stopkit.registered_adapters()}:
        pytest.skip(f"adapter {row.adapter} is not in this checkout")


#: The labels DESIGN section 3 overrules, each with what the contract says instead (reported to
#: the corpus's keepers). Two Nova replies read through InvokeModel whose guardrail only masked
#: an account number (trace: one ANONYMIZED regex, nothing BLOCKED) are labelled `completed`;
#: the contract reads a guardrail that only masked as an intervention, `filtered`, through
#: Converse and InvokeModel alike (the corpus labels the same event `filtered` for Converse and
#: Titan replies), with `details["guardrail_masked_only"]` saying the masked answer is in `text`.
OVERRULED = {
    "bedrock_converse/openllmetry__test_nova.test_nova_completion__0.json": "filtered",
    "bedrock_converse/openllmetry__test_nova.test_nova_invoke_stream__0.sse.json": "filtered",
}


def _check(row: Row, stop: stopkit.Stop) -> None:
    expected = OVERRULED.get(row.file, row.label["expected"])
    assert (stop.provider, stop.reason.value) == (row.adapter, expected), stop.notes
    if row.file in OVERRULED:
        assert stop.details.get("guardrail_masked_only") is True


@pytest.mark.parametrize("row", _cases(stream=False))
def test_reply_matches_label(row: Row) -> None:
    """A recorded non-streaming reply is read by the right adapter and gets its label."""
    _adapter_available(row)
    _check(row, stopkit.normalize(row.load()))


@pytest.mark.parametrize("row", _cases(stream=True))
def test_stream_matches_label(row: Row) -> None:
    """A recorded stream (its list of events) is read by the right adapter and gets its label."""
    _adapter_available(row)
    _check(row, stopkit.normalize_stream(row.load()))


def test_every_overruled_label_is_in_the_corpus_and_says_otherwise() -> None:
    """Each label named above is an in-scope label that the contract answers differently."""
    labels = {row.file: row.label["expected"] for s in (False, True) for row in _every(s)}
    assert {file: labels.get(file) for file in OVERRULED} == dict.fromkeys(OVERRULED, "completed")


#: Wire formats read since the corpus was labelled: their labels still say out of scope, and each
#: is held as it stands all the same. (bedrock.invoke's Titan and Llama recordings are read in
#: tests/adapters/test_bedrock_invoke.py, which names the two labels it does not follow.)
ADDED = ("openai_completions", "ollama_generate", "cohere_v1")
ADDED_CASES = [
    pytest.param(row, id=row.file)
    for wire in ADDED
    for stream in (False, True)
    for row in rows(wire, stream=stream, every=True)
]


@pytest.mark.parametrize("row", ADDED_CASES)
def test_recording_of_an_added_format_matches_label(row: Row) -> None:
    """A recorded reply or stream of a format added since labelling gets its label."""
    _adapter_available(row)
    data = row.load()
    stop = stopkit.normalize_stream(data) if row.label["stream"] else stopkit.normalize(data)
    assert (stop.provider, stop.reason.value) == (row.adapter, row.label["expected"]), stop.notes


def test_the_added_formats_have_their_recordings() -> None:
    """The test above reads every recording of them: 64 legacy Completions, 7 v1, 3 generate."""
    assert len(ADDED_CASES) >= 74
