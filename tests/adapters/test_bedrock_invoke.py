"""The bedrock.invoke adapter: its tables against their sources, detection, streams, the corpus."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

import stopkit
from stopkit.adapters._bedrock_invoke_rules import (
    COHERE_FINISH_REASON,
    LLAMA_STOP_REASON,
    MISTRAL_STOP_REASON,
    STREAM_ERRORS,
    TITAN_COMPLETION_REASON,
)
from stopkit.adapters._cohere_rules import FINISH_REASON as COHERE_V2_FINISH_REASON
from stopkit.adapters.bedrock_invoke import BedrockInvokeAdapter
from stopkit.testing import assert_stop
from tests._corpus import CORPUS
from tests._literals import literal_values
from tests._payloads import PAYLOADS, load_cases

ADAPTER = BedrockInvokeAdapter()
FOLDER = PAYLOADS / "bedrock_invoke"
CASES = load_cases(FOLDER)

# The values each family's page of the Bedrock user guide documents (read there: no SDK types
# these bodies; boto3 returns plain dicts). Titan's natural end arrives as `FINISH` on the wire
# (every recorded Titan reply), documented as `FINISHED`: the table keeps both.
DOCUMENTED = {
    "Titan completionReason": (
        TITAN_COMPLETION_REASON,
        {"FINISHED", "LENGTH", "STOP_CRITERIA_MET", "RAG_QUERY_WHEN_RAG_DISABLED",
         "CONTENT_FILTERED"},
    ),
    "Llama stop_reason": (LLAMA_STOP_REASON, {"stop", "length"}),
    "Mistral stop_reason": (MISTRAL_STOP_REASON, {"stop", "length"}),
    "Cohere finish_reason": (COHERE_FINISH_REASON, {"COMPLETE", "MAX_TOKENS", "ERROR",
                                                    "ERROR_TOXIC"}),
}  # fmt: skip


def _case(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FOLDER / name).read_text(encoding="utf-8"))
    return data


# --- the tables -----------------------------------------------------------------------------------


@pytest.mark.parametrize("title", list(DOCUMENTED))
def test_every_documented_value_is_mapped(title: str) -> None:
    """Each value a family's Bedrock page documents is in that family's table, listed by title."""
    table, documented = DOCUMENTED[title]
    assert documented <= set(table), documented - set(table)
    assert ADAPTER.tables[title] is table


def test_installed_cohere_sdk_finish_reasons_are_mapped() -> None:
    """Every value of the cohere SDK's own `FinishReason` (v1 generate and chat) is mapped."""
    types = pytest.importorskip("cohere.types")
    values = literal_values(types.FinishReason)
    assert values, "FinishReason has no Literal values any more"
    assert values == set(COHERE_FINISH_REASON), values ^ set(COHERE_FINISH_REASON)


def test_cohere_values_shared_with_v2_keep_the_v2_verdicts() -> None:
    """A value Cohere's v1 and v2 both send means the same thing in both tables."""
    for value in set(COHERE_FINISH_REASON) & set(COHERE_V2_FINISH_REASON):
        assert COHERE_FINISH_REASON[value] == COHERE_V2_FINISH_REASON[value], value


def test_stream_exceptions_are_the_service_models() -> None:
    """The exception members of InvokeModelWithResponseStream's `ResponseStream` are the table."""
    botocore = pytest.importorskip("botocore", reason="botocore is not installed here")
    folder = Path(botocore.__file__).parent / "data" / "bedrock-runtime"
    model = sorted(folder.glob("*/service-2.json*"))[-1]
    raw = model.read_bytes()
    shapes = json.loads(gzip.decompress(raw) if model.suffix == ".gz" else raw)["shapes"]
    members = {m for m in shapes["ResponseStream"]["members"] if m.endswith("Exception")}
    assert members == set(STREAM_ERRORS)


@pytest.mark.parametrize("name", sorted(STREAM_ERRORS))
def test_every_stream_exception_ends_the_stream(name: str) -> None:
    """Each exception event ends a stream as unknown, its name the raw reason."""
    chunk = {"generation": "Hi", "generation_token_count": 1, "stop_reason": None}
    stop = stopkit.normalize_stream([chunk, {name: {"message": "boom"}}])
    detail = "timeout" if name == "modelTimeoutException" else "error"
    assert_stop(stop, provider="bedrock.invoke", reason="unknown", detail=detail,
                raw_reason=name, text="Hi")  # fmt: skip


def test_every_family_value_has_a_payload_case() -> None:
    """Each value of the four families' tables is shown by a recorded case that expects it."""
    covered = {c.expect.get("raw_reason") for c in CASES}
    for title, (table, _) in DOCUMENTED.items():
        assert set(table) <= covered, (title, set(table) - covered)


def test_every_stream_case_with_a_twin_names_a_real_file() -> None:
    """Each stream's twin exists, so the stream-equals-body check really runs."""
    twins = [c for c in CASES if c.data.get("twin")]
    assert len(twins) >= 2
    for case in twins:
        assert (case.path.parent / case.data["twin"]).is_file(), case.id


# --- detection: nothing stolen, nothing claimed that is another adapter's ------------------------

# The AI21 Jamba body through InvokeModel (Bedrock user guide, "AI21 Labs Jamba models",
# response body): a Chat completion.
JAMBA = {
    "id": "chatcmpl-8d6f3a2b",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Paris.",
                                         "tool_calls": None}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 14, "completion_tokens": 3, "total_tokens": 17},
    "meta": {"requestDurationMillis": 120},
    "model": "jamba-1.5-mini",
}  # fmt: skip


@pytest.mark.parametrize(("finish", "reason"), [("stop", "completed"), ("length", "output_limit")])
def test_a_jamba_body_is_read_by_openai_chat_with_the_right_reason(
    finish: str, reason: str
) -> None:
    """Jamba's Chat body is openai.chat's: its table maps Jamba's two values as documented."""
    body = json.loads(json.dumps(JAMBA))
    body["choices"][0]["finish_reason"] = finish
    assert not ADAPTER.detects(body)
    stop = stopkit.normalize(body)
    assert (stop.provider, stop.reason.value, stop.text) == ("openai.chat", reason, "Paris.")
    assert stop.usage is not None
    assert stop.usage.input_tokens == 14


@pytest.mark.parametrize(
    "body",
    [
        # Cohere Command R through InvokeModel ("Cohere Command R and Command R+ models"): a
        # Cohere v1 Chat reply, read by that wire format's adapter.
        {"response_id": "r1", "text": "Paris.", "generation_id": "g1", "finish_reason": "COMPLETE",
         "chat_history": [{"role": "USER", "message": "Capital?"},
                          {"role": "CHATBOT", "message": "Paris."}]},
        # The legacy Gemini Interactions body: `outputs` of typed contents, no stop_reason.
        {"id": "int_123", "role": "model", "outputs": [{"type": "text", "text": "Hi"}]},
        # LangChain's LLMResult dumped: `generations` is a list of lists.
        {"generations": [[{"text": "Hi", "generation_info": {"finish_reason": "stop"}}]]},
        # DeepSeek-R1 through InvokeModel: `choices[].text` with `stop_reason`.
        {"choices": [{"text": "Paris.", "stop_reason": "stop"}]},
        # An Anthropic Messages body through InvokeModel.
        {"id": "m1", "type": "message", "role": "assistant", "content": [],
         "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}},
    ],
    ids=["cohere-command-r", "gemini-interactions-outputs", "langchain-llmresult", "deepseek-r1",
         "anthropic"],
)  # fmt: skip
def test_bodies_of_other_shapes_are_not_claimed(body: dict[str, Any]) -> None:
    """A body that holds one of the keys but is not one of the four families is left alone."""
    assert not ADAPTER.detects(body)


def test_an_anthropic_invoke_stream_chunk_is_not_claimed() -> None:
    """boto3's event holding an Anthropic stream event is not a chunk of these families."""
    event = {"chunk": {"bytes": json.dumps({"type": "message_start", "message": {}}).encode()}}
    assert not ADAPTER.detects_event(event)


# --- streams ----------------------------------------------------------------------------------


def test_boto3_events_give_the_same_stop_as_decoded_chunks() -> None:
    """The events `invoke_model_with_response_stream` yields (`chunk.bytes`) read as decoded."""
    chunks = _case("titan_length.stream.json")["events"]
    events = [{"chunk": {"bytes": json.dumps(c).encode()}} for c in chunks]
    assert ADAPTER.detects_event(events[0])
    stop = stopkit.normalize_stream(events)
    assert stop == stopkit.normalize_stream(chunks)
    assert (stop.reason.value, stop.raw_reason) == ("output_limit", "LENGTH")


def test_a_chunk_whose_bytes_are_not_json_is_ignored_with_a_note() -> None:
    """Bytes that hold no JSON object are counted and ignored, never raised."""
    chunks = _case("llama_length.stream.json")["events"]
    stop = stopkit.normalize_stream([*chunks[:2], {"chunk": {"bytes": b"\x00not json"}},
                                     *chunks[2:]])  # fmt: skip
    assert (stop.reason.value, stop.raw_reason) == ("output_limit", "length")
    assert any("1 event(s) that are not chunks of this stream" in n for n in stop.notes)


def test_an_exception_after_the_last_chunk_still_ends_the_stream_as_an_error() -> None:
    """An exception event after the stop value is stricter than `stop`: unknown/error."""
    chunks = _case("llama_length.stream.json")["events"]
    chunks[-1]["stop_reason"] = "stop"
    stop = stopkit.normalize_stream([*chunks, {"internalServerException": {"message": "x"}}])
    assert_stop(stop, reason="unknown", detail="error", raw_reason="internalServerException")


def test_a_titan_stream_without_its_output_count_takes_it_from_the_metrics() -> None:
    """Each count the chunks lack comes from `amazon-bedrock-invocationMetrics`."""
    chunks = json.loads(json.dumps(_case("titan_length.stream.json")["events"]))
    del chunks[-1]["totalOutputTextTokenCount"]
    stop = stopkit.normalize_stream(chunks)
    assert stop.usage is not None
    assert (stop.usage.input_tokens, stop.usage.output_tokens) == (5, 10)
    assert stop.details["usage"] == {"inputTextTokenCount": 5}


# --- the guardrail rule is the Converse adapter's -------------------------------------------------


def _trace(*actions: str) -> dict[str, Any]:
    entities = [{"type": "PHONE", "action": action} for action in actions]
    return {"guardrail": {"outputs": [{"g": {"sensitiveInformationPolicy": {
        "piiEntities": entities}}}]}}  # fmt: skip


@pytest.mark.parametrize(
    "trace",
    [None, _trace("BLOCKED"), _trace("ANONYMIZED", "BLOCKED"), _trace("ANONYMIZED", "NONE")],
    ids=["no-trace", "blocked", "masked-and-blocked", "masked-only"],
)
def test_a_guardrail_decides_as_it_does_for_a_nova_body(trace: Any) -> None:
    """The same intervention and trace give the same decision on a Titan and a Nova body."""
    fields = {"amazon-bedrock-guardrailAction": "INTERVENED", "amazon-bedrock-trace": trace}
    titan = {**_case("titan_finish.json")["reply"], **fields}
    nova = {**json.loads((PAYLOADS / "bedrock" / "end_turn.json").read_text())["reply"], **fields}
    a, b = stopkit.normalize(titan), stopkit.normalize(nova)
    assert (a.provider, b.provider) == ("bedrock.invoke", "bedrock")
    filtered = (stopkit.StopReason.FILTERED, "guardrail")
    assert (a.reason, a.detail) == (b.reason, b.detail) == filtered
    assert ("guardrail_masked_only" in a.details) is ("guardrail_masked_only" in b.details)
    assert [n for n in a.notes if "guardrail" in n] == [n for n in b.notes if "guardrail" in n]


def test_a_stream_cut_after_a_guardrail_that_only_masked_is_incomplete() -> None:
    """Masking replaced nothing: a Titan stream cut before its last chunk is still incomplete."""
    (chunk,) = _case("titan_guardrail_masked.stream.json")["events"]
    cut = {key: value for key, value in chunk.items() if key != "completionReason"}
    stop = stopkit.normalize_stream([cut])
    assert (stop.reason, stop.detail) == (stopkit.StopReason.UNKNOWN, "stream_incomplete")
    blocked = _case("titan_input_blocked.stream.json")["events"]
    assert stopkit.normalize_stream(blocked).reason is stopkit.StopReason.FILTERED


# --- several outputs, and the conversation ------------------------------------------------------


def test_normalize_all_gives_one_stop_per_generation() -> None:
    """Cohere's num_generations=2 body: one Stop each, in order."""
    stops = stopkit.normalize_all(_case("cohere_two_generations.json")["reply"])
    assert [(s.reason.value, s.raw_reason) for s in stops] == [
        ("completed", "COMPLETE"),
        ("output_limit", "MAX_TOKENS"),
    ]
    assert [s.text for s in stops] == [" Paris is the capital of France.", " Paris, on the Seine"]


def test_a_malformed_output_beside_a_good_one_is_its_own_unknown() -> None:
    """An output that is not an object is unknown/malformed; the first output still reads."""
    body = _case("cohere_two_generations.json")["reply"]
    body["generations"][1] = "not an object"
    first, second = stopkit.normalize_all(body)
    assert first.reason.value == "completed"
    assert (second.reason.value, second.detail) == ("unknown", "malformed")
    assert any("generations[1] is a str, not an object" in n for n in second.notes)


def test_the_conversation_is_plain_text_messages() -> None:
    """A reply is appended as role/content text; there are no tool results and no resume."""
    stop = stopkit.normalize(_case("llama_stop.json")["reply"])
    assert ADAPTER.assistant_message(stop) == {
        "role": "assistant",
        "content": "Paris is the capital of France.",
    }
    assert ADAPTER.user_message("Go on.") == {"role": "user", "content": "Go on."}
    with pytest.raises(ValueError, match="carry no tool calls"):
        ADAPTER.tool_results(stop, [])
    with pytest.raises(ValueError, match="cannot be resumed"):
        ADAPTER.resume(stop)


def test_a_loop_over_a_llama_model_answers_and_asks_for_shorter() -> None:
    """run_loop detects the body, raises the limit on `length`, and returns the final text."""
    model = stopkit.testing.ScriptedModel(
        [_case("llama_length.json")["reply"], _case("llama_stop.json")["reply"]]
    )
    outcome = stopkit.run_loop(model, "Capital of France?", max_tokens=64)
    assert outcome.text == "Paris is the capital of France."
    assert outcome.stop is not None
    assert outcome.stop.provider == "bedrock.invoke"
    assert all(m["role"] in ("user", "assistant") for m in outcome.messages)


# --- the shared corpus: every recorded Titan and Llama reply, in scope or not yet ---------------

#: Titan replies whose guardrail only masked an account number (trace: one ANONYMIZED regex,
#: nothing BLOCKED): labelled `filtered`, and read so (DESIGN section 3: a guardrail that only
#: masked is still an intervention), with the entry saying the masked answer is in `text`.
MASKED_ONLY = {
    "other/openllmetry__test_bedrock_guardrails_metrics.test_titan_invoke_model_guardrail__0.json",
    "other/openllmetry__test_bedrock_guardrails_metrics.test_titan_invoke_stream_guardrail__0"
    ".sse.json",
}


def _corpus_rows() -> list[dict[str, Any]]:
    labels = CORPUS / "labels.jsonl"
    if not labels.is_file():
        return []
    rows = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if r["wire_format"] in ("bedrock_titan", "bedrock_meta")]


@pytest.mark.parametrize("row", _corpus_rows(), ids=lambda r: r["file"])
def test_recorded_titan_and_llama_replies(row: dict[str, Any]) -> None:
    """Each recorded body or stream is read by bedrock.invoke and gets its label (see above)."""
    data = json.loads((CORPUS / row["file"]).read_text(encoding="utf-8"))
    stop = stopkit.normalize_stream(data) if row["stream"] else stopkit.normalize(data)
    assert (stop.provider, stop.reason.value) == ("bedrock.invoke", row["expected"]), stop.notes
    assert ("guardrail_masked_only" in stop.details) is (row["file"] in MASKED_ONLY)


def test_the_corpus_holds_the_recorded_replies() -> None:
    """The corpus test above runs over every recorded Titan and Llama reply (19 today)."""
    if not (CORPUS / "labels.jsonl").is_file():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    rows = _corpus_rows()
    assert len(rows) >= 19
    assert {r["file"] for r in rows} >= MASKED_ONLY
