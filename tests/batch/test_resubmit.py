"""The follow-up batch: which lines are sent again, the raised ceiling in each provider's place."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from stopkit import StopReason
from stopkit.batch import (
    BatchUsageError,
    Group,
    RequestOutcome,
    ResubmitOptions,
    audit,
    check_input,
    exit_status,
    resubmit,
)
from stopkit.batch._plan import plan, retryable, wanted
from stopkit.batch._requests import new_id
from tests.batch._fixtures import (
    ANTHROPIC,
    BEDROCK,
    CLAUDE,
    GPT,
    OPENAI,
    VERTEX,
    anthropic_ok,
    anthropic_request,
    bedrock_input,
    chat_body,
    gemini_request,
    gemini_response,
    message,
    openai_ok,
    openai_request,
    reasoning_only_body,
    responses_body,
    write_jsonl,
)


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _run(tmp_path: Path, results: list[Any], inputs: list[Any] | None, **options: Any
         ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Any]:  # fmt: skip
    res = write_jsonl(tmp_path / "results.jsonl", results)
    ins = [write_jsonl(tmp_path / "input.jsonl", inputs)] if inputs is not None else []
    out = tmp_path / "retry.jsonl"
    with audit([res], keep_requests=not ins) as report:
        done = resubmit(report, out, inputs=ins, options=ResubmitOptions(**options))
        skipped = {cause: list(report.skipped_ids(cause)) for cause in done.skipped}
    return _read(out), _read(Path(done.mapping)), (done, skipped)


def test_openai_chat_truncations_raise_the_field_the_request_used(tmp_path: Path) -> None:
    """A chat request's own ceiling field is doubled: max_tokens stays max_tokens, and so on."""
    results = [openai_ok(f"c-{i}", chat_body("length")) for i in (1, 2, 3)]
    results.append(openai_ok("c-4", chat_body("stop")))
    inputs = [
        openai_request("c-1", max_tokens=300),
        openai_request("c-2", max_completion_tokens=500),
        openai_request("c-3", max_tokens=100, max_completion_tokens=400),
        openai_request("c-4", max_tokens=300),
    ]
    lines, links, _ = _run(tmp_path, results, inputs)
    assert [line["custom_id"] for line in lines] == ["c-1-r1", "c-2-r1", "c-3-r1"]
    assert [line["body"] for line in lines] == [
        {**inputs[0]["body"], "max_tokens": 600},
        {**inputs[1]["body"], "max_completion_tokens": 1000},
        {**inputs[2]["body"], "max_completion_tokens": 800},
    ]
    assert all(line["url"] == "/v1/chat/completions" and line["method"] == "POST" for line in lines)
    assert links[0] == {"line": 1, "new_id": "c-1-r1", "old_id": "c-1", "result": "c-1",
                        "action": "raise_max_tokens", "field": "body.max_tokens",
                        "from": 300, "to": 600}  # fmt: skip


@pytest.mark.parametrize(
    ("body", "field", "to"),
    [
        ({"max_completion_tokens": None, "max_tokens": 50}, "max_tokens", 100),  # null: unset
        ({"max_tokens": None, "max_completion_tokens": 60}, "max_completion_tokens", 120),
        ({"max_tokens": 300.0}, "max_tokens", 600),  # a JSON number with a point, still whole
        ({}, "max_tokens", 32),  # legacy /v1/completions: unset is 16 tokens, not the model's max
    ],
)
def test_the_ceiling_raised_is_the_one_the_request_set(
    tmp_path: Path, body: dict[str, Any], field: str, to: int
) -> None:
    """The ceiling the request really had is raised: a null field is unset (the other counts)."""
    url = "/v1/chat/completions" if body else "/v1/completions"
    lines, links, _ = _run(tmp_path, [openai_ok("c-1", chat_body("length"))],
                           [openai_request("c-1", url=url, **body)])  # fmt: skip
    assert lines[0]["body"] == {**openai_request("c-1", **body)["body"], field: to}
    assert (links[0]["field"], links[0]["to"]) == (f"body.{field}", to)


def test_openai_responses_truncation_raises_max_output_tokens(tmp_path: Path) -> None:
    """A /v1/responses request's ceiling is `body.max_output_tokens`."""
    results = [openai_ok("r-1", responses_body("incomplete", reason="max_output_tokens"))]
    body = {"model": "gpt-4.1", "input": "Write a story", "max_output_tokens": 700}
    inputs = [{"custom_id": "r-1", "method": "POST", "url": "/v1/responses", "body": body}]
    lines, links, _ = _run(tmp_path, results, inputs)
    assert lines == [{**inputs[0], "custom_id": "r-1-r1",
                      "body": {**inputs[0]["body"], "max_output_tokens": 1400}}]  # fmt: skip
    assert links[0]["field"] == "body.max_output_tokens"


def test_only_the_lines_that_deserve_it_are_resubmitted(tmp_path: Path) -> None:
    """Truncated, expired and retryable lines go; filtered, unknown and bad requests never do."""
    results = [c.line for c in OPENAI]
    inputs = [openai_request(c.line["custom_id"], max_tokens=256) for c in OPENAI]
    lines, links, (done, _) = _run(tmp_path, results, inputs)
    by_id = {link["old_id"]: link["action"] for link in links}
    assert by_id == {
        "o-2": "raise_max_tokens",  # chat length
        "o-8": "raise_max_tokens",  # responses incomplete
        "o-11": "as_is_retryable_error",  # 429
        "o-12": "as_is_retryable_error",  # 500
        "o-13": "as_is_expired",
    }
    untouched = [line for line in lines if line["custom_id"] in ("o-11-r1", "o-12-r1", "o-13-r1")]
    assert [line["body"]["max_tokens"] for line in untouched] == [256, 256, 256]
    assert done.written == {"raise_max_tokens": 2, "as_is_retryable_error": 2, "as_is_expired": 1}


def test_a_ceiling_at_the_models_cap_or_unset_is_listed_not_resent(tmp_path: Path) -> None:
    """Never an identical request: at the cap, or with no ceiling set, the line is held back."""
    results = [openai_ok(f"c-{i}", chat_body("length")) for i in range(1, 4)]
    inputs = [openai_request("c-1", max_tokens=16384),  # gpt-4o-mini's documented maximum
              openai_request("c-2"),  # no ceiling: the model's own maximum applied
              openai_request("c-3", max_tokens=10000)]  # fmt: skip
    _, links, (done, skipped) = _run(tmp_path, results, inputs)
    assert [(link["old_id"], link["to"]) for link in links] == [("c-3", 16384)]
    assert done.skipped == {"at_cap": 1, "no_ceiling": 1}
    assert skipped == {"at_cap": ["c-1"], "no_ceiling": ["c-2"]}


def test_max_tokens_cap_and_factor(tmp_path: Path) -> None:
    """`--factor` sets the multiplier and `--max-tokens-cap` clamps the raised ceiling."""
    results = [openai_ok("c-1", chat_body("length")), openai_ok("c-2", chat_body("length"))]
    inputs = [openai_request("c-1", max_tokens=1000), openai_request("c-2", max_tokens=100)]
    lines, _, _ = _run(tmp_path, results, inputs, factor=3, max_tokens_cap=2000)
    assert [line["body"]["max_tokens"] for line in lines] == [2000, 300]


@pytest.mark.parametrize(
    ("ceiling", "factor", "cap", "expect"),
    [
        (1, 1.5, None, 2),  # a one-token classifier: 1.5 x 1 rounds down to 1
        (100, 1.001, None, 101),
        (300, 2, None, 600),
        (16383, 2, None, 16384),  # gpt-4o-mini's documented maximum
        (16384, 2, None, "at_cap"),
        (500, 1.001, 500, "at_cap"),
    ],
)
def test_a_raised_ceiling_always_grows_below_the_caps(
    ceiling: int, factor: float, cap: int | None, expect: int | str
) -> None:
    """The new ceiling is at least one more token, never over a cap; at a cap, the line waits."""
    group = Group(GPT, RequestOutcome.REPLIED, StopReason.OUTPUT_LIMIT, "max_tokens")
    step = plan(group, openai_request("c-1", max_tokens=ceiling), "openai",
                ResubmitOptions(factor=factor, max_tokens_cap=cap))  # fmt: skip
    assert (step.new if step.line is not None else step.skip) == expect


def test_anthropic_results_in_any_order_join_by_custom_id(tmp_path: Path) -> None:
    """Anthropic results come in any order: each is joined to its own request by custom_id."""
    results = [c.line for c in ANTHROPIC]
    random.Random(7).shuffle(results)
    inputs = [anthropic_request(c.line["custom_id"], max_tokens=3000) for c in ANTHROPIC]
    lines, links, _ = _run(tmp_path, results, inputs)
    actions = {link["old_id"]: link["action"] for link in links}
    assert actions == {"a-2": "raise_max_tokens", "a-8": "as_is_retryable_error",
                       "a-10": "as_is_expired"}  # fmt: skip
    [raised] = [line for line in lines if line["custom_id"] == "a-2-r1"]
    assert raised["params"]["max_tokens"] == 6000
    assert [line["custom_id"] for line in lines] == ["a-2-r1", "a-8-r1", "a-10-r1"]  # input order


def test_anthropic_create_body_in_create_body_out(tmp_path: Path) -> None:
    """A request file that is the API's `{"requests": [...]}` body gives the same form back."""
    from anthropic.types.messages import BatchCreateParams
    from pydantic import TypeAdapter

    results = write_jsonl(tmp_path / "results.jsonl", [c.line for c in ANTHROPIC])
    body = {"requests": [anthropic_request(c.line["custom_id"]) for c in ANTHROPIC]}
    inputs = tmp_path / "create.json"
    inputs.write_text(json.dumps(body, indent=2))
    out = tmp_path / "retry.json"
    with audit([results]) as report:
        done = resubmit(report, out, inputs=[inputs])
    again = json.loads(out.read_text())
    TypeAdapter(BatchCreateParams).validate_python(again)
    assert [r["custom_id"] for r in again["requests"]] == ["a-2-r1", "a-8-r1", "a-10-r1"]
    assert sum(done.written.values()) == 3


def test_anthropic_ceiling_is_clamped_to_the_models_documented_cap(tmp_path: Path) -> None:
    """claude-3-5-haiku writes at most 8,192 tokens: 6,000 x 2 becomes 8,192."""
    results = [anthropic_ok("a-1", message("max_tokens"))]
    lines, links, _ = _run(tmp_path, results, [anthropic_request("a-1", max_tokens=6000)])
    assert lines[0]["params"]["max_tokens"] == 8192
    assert (links[0]["field"], links[0]["from"], links[0]["to"]) == (
        "params.max_tokens",
        6000,
        8192,
    )


def test_resubmitted_requests_are_valid_sdk_request_lines(tmp_path: Path) -> None:
    """What is written validates as the SDKs' own batch request types."""
    from anthropic.types.messages.batch_create_params import Request
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
    from pydantic import TypeAdapter

    lines, _, _ = _run(tmp_path, [c.line for c in ANTHROPIC],
                       [anthropic_request(c.line["custom_id"]) for c in ANTHROPIC])  # fmt: skip
    for line in lines:
        TypeAdapter(Request).validate_python(line)
    lines, _, _ = _run(tmp_path, [openai_ok("c-1", chat_body("length"))],
                       [openai_request("c-1", max_completion_tokens=64)])  # fmt: skip
    TypeAdapter(CompletionCreateParamsNonStreaming).validate_python(lines[0]["body"])


@pytest.mark.parametrize(
    ("config", "path"),
    [
        ({"generationConfig": {"maxOutputTokens": 512, "temperature": 0.2}},
         ("generationConfig", "maxOutputTokens")),
        ({"generation_config": {"max_output_tokens": 512}},
         ("generation_config", "max_output_tokens")),
    ],
)  # fmt: skip
def test_gemini_raises_max_output_tokens_in_the_lines_own_spelling(
    tmp_path: Path, config: dict[str, Any], path: tuple[str, str]
) -> None:
    """`request.generationConfig.maxOutputTokens` (or the snake_case the Python docs use)."""
    results = [{"key": "g-1", "response": gemini_response("MAX_TOKENS")},
               {"key": "g-2", "response": gemini_response("STOP")}]  # fmt: skip
    inputs = [{"key": k, "request": {"contents": [{"parts": [{"text": "Hi"}]}], **config}}
              for k in ("g-1", "g-2")]  # fmt: skip
    lines, links, _ = _run(tmp_path, results, inputs)
    assert [line["key"] for line in lines] == ["g-1-r1"]
    section, field = path
    assert lines[0]["request"][section][field] == 1024
    assert lines[0]["request"]["contents"] == inputs[0]["request"]["contents"]
    assert links[0]["field"] == f"request.{section}.{field}"


def test_gemini_lines_without_keys_join_by_position(tmp_path: Path) -> None:
    """Results with no `key` are matched to the request on the same line (the API keeps order)."""
    results = [gemini_response("STOP"), gemini_response("MAX_TOKENS")]
    inputs = [gemini_request(None, maxOutputTokens=100), gemini_request(None, maxOutputTokens=200)]
    lines, links, _ = _run(tmp_path, results, inputs)
    assert lines == [
        {"request": {**inputs[1]["request"], "generationConfig": {"maxOutputTokens": 400}}}
    ]
    assert (links[0]["new_id"], links[0]["old_id"], links[0]["result"]) == (
        None, None, f"{tmp_path / 'results.jsonl'}:2")  # fmt: skip


def test_vertex_results_carry_their_requests(tmp_path: Path) -> None:
    """Vertex lines echo the request: no request file is needed, the ceiling is in the request."""
    lines, links, _ = _run(tmp_path, [c.line for c in VERTEX], None)
    assert lines == [{"request": {**VERTEX[1].line["request"],
                                  "generationConfig": {"maxOutputTokens": 512}}}]  # fmt: skip
    assert links[0]["field"] == "request.generationConfig.maxOutputTokens"


def test_vertex_results_take_no_request_file(tmp_path: Path) -> None:
    """Vertex lines have no id and no promised order: a request file for them is refused."""
    with pytest.raises(BatchUsageError, match="Vertex"):
        _run(tmp_path, [c.line for c in VERTEX], [{"request": c.line["request"]} for c in VERTEX])


@pytest.mark.parametrize(
    ("line", "listed"),
    [
        ({k: v for k, v in BEDROCK[1].line.items() if k != "modelInput"}, "CALL0000002"),
        ({k: v for k, v in VERTEX[1].line.items() if k != "request"}, "results.jsonl:1"),
    ],
)
def test_an_echoing_line_without_its_request_is_listed_not_lost(
    tmp_path: Path, line: dict[str, Any], listed: str
) -> None:
    """A Vertex or Bedrock truncation that echoes no request is held back as `no_request`."""
    # (the other line under an id of its own: one id on two results lines is a conflict)
    results = [line, dict(BEDROCK[1].line, recordId="CALL0000012") if "recordId" in line
               else VERTEX[1].line]  # fmt: skip
    lines, _, (done, skipped) = _run(tmp_path, results, None)
    assert (len(lines), done.skipped) == (1, {"no_request": 1})
    assert [s.rsplit("/", 1)[-1] for s in skipped["no_request"]] == [listed]


def test_bedrock_raises_model_input_max_tokens(tmp_path: Path) -> None:
    """Bedrock: `modelInput.max_tokens` (Claude) or `inferenceConfig.maxTokens` (Converse)."""
    results = [c.line for c in BEDROCK]
    lines, _, _ = _run(tmp_path, results, None)
    by_id = {line["recordId"]: line["modelInput"] for line in lines}
    assert by_id["CALL0000002R1"] == bedrock_input(1024)
    assert by_id["CALL0000003R1"]["inferenceConfig"] == {"maxTokens": 100}
    assert by_id["CALL0000005R1"] == bedrock_input(512)  # 429: as it was
    assert set(by_id) == {"CALL0000002R1", "CALL0000003R1", "CALL0000005R1"}
    # The same with the request file given: joined by recordId, same lines out.
    inputs = [{"recordId": c.line["recordId"], "modelInput": c.line["modelInput"]} for c in BEDROCK]
    again, _, _ = _run(tmp_path, results, inputs)
    assert again == lines


def test_a_deeply_nested_request_is_kept_and_written_as_read(tmp_path: Path) -> None:
    """A request nested past orjson's writing depth (254) is still kept and resubmitted."""
    deep: Any = []
    for _ in range(300):
        deep = [deep]
    model_input = {**bedrock_input(), "metadata": {"nested": deep}}
    line = {**BEDROCK[1].line, "modelInput": model_input}
    lines, _, _ = _run(tmp_path, [line], None)
    raised = {**model_input, "max_tokens": 1024}
    assert lines == [{"recordId": "CALL0000002R1", "modelInput": raised}]


def test_reasoning_budget_resubmits_held_truncations(tmp_path: Path) -> None:
    """`context_window` lines are listed only; with a reasoning budget they go with that budget."""
    results = [anthropic_ok("a-1", message("model_context_window_exceeded"))]
    inputs = [anthropic_request("a-1", max_tokens=4000,
                                thinking={"type": "enabled", "budget_tokens": 3000})]  # fmt: skip
    lines, _, (done, _) = _run(tmp_path, results, inputs)
    assert (lines, done.written, done.skipped) == ([], {}, {})
    lines, links, _ = _run(tmp_path, results, inputs, reasoning_budget=1024)
    assert lines[0]["params"]["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert lines[0]["params"]["max_tokens"] == 4000  # a full window is never given more
    assert (links[0]["action"], links[0]["from"], links[0]["to"]) == (
        "reasoning_budget",
        3000,
        1024,
    )


def test_a_reply_that_spent_its_ceiling_thinking_waits_for_a_budget(tmp_path: Path) -> None:
    """`output_limit/reasoning` (only reasoning, no text) is listed; a budget resubmits it."""
    results = [openai_ok("r-1", reasoning_only_body(256))]
    body = {"model": "o4-mini", "input": "Prove it", "max_output_tokens": 256}
    inputs = [{"custom_id": "r-1", "method": "POST", "url": "/v1/responses", "body": body}]
    lines, _, (done, _) = _run(tmp_path, results, inputs)
    assert (lines, done.written) == ([], {})
    lines, links, _ = _run(tmp_path, results, inputs, reasoning_budget=1024)
    assert lines[0]["body"]["max_output_tokens"] == 1280  # room for 1,024 reasoning tokens more
    assert (links[0]["action"], links[0]["field"]) == ("reasoning_budget", "body.max_output_tokens")


@pytest.mark.parametrize(
    ("fmt", "line", "expect"),
    [
        ("anthropic", anthropic_request("x", max_tokens=2000),
         {"params.max_tokens": 4000, "params.thinking": {"type": "enabled", "budget_tokens": 512}}),
        ("gemini", gemini_request("x", maxOutputTokens=2000),
         {"request.generationConfig.maxOutputTokens": 4000,
          "request.generationConfig.thinkingConfig": {"thinkingBudget": 512}}),
        # Gemini 3's level and a budget together are refused (HTTP 400): the budget replaces it.
        ("gemini", gemini_request("x", maxOutputTokens=2000, thinkingConfig={
            "thinkingLevel": "low", "includeThoughts": True}),
         {"request.generationConfig.thinkingConfig": {"thinkingBudget": 512,
                                                      "includeThoughts": True}}),
        ("gemini", {"key": "x", "request": {"contents": [], "generation_config": {
            "max_output_tokens": 2000, "thinking_config": {"thinking_level": "high"}}}},
         {"request.generation_config.thinking_config": {"thinking_budget": 512}}),
        ("openai", openai_request("x", max_completion_tokens=2000),
         {"body.max_completion_tokens": 2512}),
    ],
)  # fmt: skip
def test_reasoning_truncation_plan_per_provider(
    fmt: str, line: dict[str, Any], expect: dict[str, Any]
) -> None:
    """A `reasoning` truncation: ceiling raised, thinking budget set (OpenAI: ceiling + budget)."""
    group = Group(None, RequestOutcome.REPLIED, StopReason.OUTPUT_LIMIT, "reasoning")
    assert not wanted(group, ResubmitOptions())  # held back unless a budget is given
    step = plan(group, line, fmt, ResubmitOptions(reasoning_budget=512))
    assert step.action == "reasoning_budget"
    assert step.line is not None
    for path, value in expect.items():
        found: Any = step.line
        for key in path.split("."):
            found = found[key]
        assert found == value, path


@pytest.mark.parametrize(
    ("fmt", "line", "model", "detail"),
    [
        ("anthropic", anthropic_request("x", max_tokens=4096, thinking={
            "type": "enabled", "budget_tokens": 512}), CLAUDE, "context_window"),
        ("anthropic", anthropic_request("x", max_tokens=8192, thinking={
            "type": "enabled", "budget_tokens": 512}), CLAUDE, "reasoning"),  # 8,192: at the cap
        ("gemini", gemini_request("x", maxOutputTokens=2000, thinkingConfig={
            "thinkingBudget": 512}), "gemini-2.5-flash", "context_window"),
    ],
)  # fmt: skip
def test_a_budget_the_request_already_has_is_not_sent_again(
    fmt: str, line: dict[str, Any], model: str, detail: str
) -> None:
    """--reasoning-budget equal to the request's own budget (ceiling unmoved) resends nothing."""
    group = Group(model, RequestOutcome.REPLIED, StopReason.OUTPUT_LIMIT, detail)
    step = plan(group, line, fmt, ResubmitOptions(reasoning_budget=512))
    assert (step.line, step.skip) == (None, "same_budget")


def test_budget_must_stay_below_the_ceiling() -> None:
    """Anthropic requires budget_tokens < max_tokens: a larger budget is held back, not sent."""
    group = Group(CLAUDE, RequestOutcome.REPLIED, StopReason.OUTPUT_LIMIT, "context_window")
    step = plan(group, anthropic_request("x", max_tokens=1000), "anthropic",
                ResubmitOptions(reasoning_budget=1000))  # fmt: skip
    assert (step.line, step.skip) == (None, "budget_not_below_ceiling")


@pytest.mark.parametrize(
    ("code", "expected"),
    [("overloaded_error", True), ("api_error", True), ("rate_limit_exceeded", True),
     ("RESOURCE_EXHAUSTED", True), ("http_503", True), ("429", True), ("500", True),
     ("invalid_request_error", False), ("400", False), ("INVALID_ARGUMENT", False),
     ("authentication_error", False), (None, False)],
)  # fmt: skip
def test_retryable_error_codes(code: str | None, expected: bool) -> None:
    """Overloads, rate limits and server errors are retried unchanged; bad requests are not."""
    assert retryable(code) is expected


@pytest.mark.parametrize(
    ("old", "fmt", "new"),
    [("req-1", "openai", "req-1-r1"), ("req-1-r1", "openai", "req-1-r2"),
     ("req-1-r01", "openai", "req-1-r01-r1"), ("CALL0000001", "bedrock", "CALL0000001R1"),
     ("CALL0000001R3", "bedrock", "CALL0000001R4"), ("k", "gemini", "k-r1")],
)  # fmt: skip
def test_new_ids(old: str, fmt: str, new: str) -> None:
    """New ids count the retries; Bedrock's stay alphanumeric."""
    assert new_id(old, fmt) == new


def test_new_ids_never_collide_and_fit_anthropics_limit() -> None:
    """Distinct old ids give distinct new ids, each within Anthropic's 64 characters."""
    olds = ["a", "a-r1", "a-r2", "a-r01", "a-r1-r1", "x" * 64, "x" * 63 + "y", "x" * 62]
    news = [new_id(old, "anthropic") for old in olds]
    assert len(set(news)) == len(news)
    assert all(len(n) <= 64 for n in news)


def test_input_of_another_provider_is_a_usage_error(tmp_path: Path) -> None:
    """An Anthropic request file given for OpenAI results is refused, naming the line."""
    res = write_jsonl(tmp_path / "results.jsonl", [openai_ok("c-1", chat_body("length"))])
    ins = write_jsonl(tmp_path / "input.jsonl", [anthropic_request("c-1")])
    with audit([res]) as report, pytest.raises(BatchUsageError, match="anthropic request line"):
        resubmit(report, tmp_path / "out.jsonl", inputs=[ins])


def test_a_refused_resubmission_leaves_the_output_files_as_they_were(tmp_path: Path) -> None:
    """A request file found foreign midway writes nothing: no partial OUT, no mapping."""
    res = write_jsonl(tmp_path / "results.jsonl",
                      [openai_ok(f"c-{i}", chat_body("length")) for i in (1, 2)])  # fmt: skip
    ins = write_jsonl(tmp_path / "input.jsonl",
                      [openai_request("c-1", max_tokens=10), anthropic_request("c-2")])  # fmt: skip
    out = tmp_path / "retry.jsonl"
    out.write_text("yesterday's retry file\n")
    with audit([res]) as report, pytest.raises(BatchUsageError, match="anthropic request line"):
        resubmit(report, out, inputs=[ins])
    assert out.read_text() == "yesterday's retry file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.jsonl", "results.jsonl",
                                                           "retry.jsonl"]  # fmt: skip


def test_an_output_that_is_a_symlink_is_written_through(tmp_path: Path) -> None:
    """OUT a symlink: the file it points at gets the requests, and the link stays a link."""
    res = write_jsonl(tmp_path / "results.jsonl", [openai_ok("c-1", chat_body("length"))])
    ins = write_jsonl(tmp_path / "input.jsonl", [openai_request("c-1", max_tokens=10)])
    (tmp_path / "shared").mkdir()
    target = tmp_path / "shared" / "retry.jsonl"
    target.write_text("old\n")
    (tmp_path / "retry.jsonl").symlink_to(target)
    with audit([res]) as report:
        resubmit(report, tmp_path / "retry.jsonl", inputs=[ins])
    assert (tmp_path / "retry.jsonl").is_symlink()
    assert [line["custom_id"] for line in _read(target)] == ["c-1-r1"]


def test_results_without_their_requests_need_the_request_file(tmp_path: Path) -> None:
    """OpenAI results do not echo requests: resubmitting them without --input is refused."""
    res = write_jsonl(tmp_path / "results.jsonl", [openai_ok("c-1", chat_body("length"))])
    with audit([res]) as report, pytest.raises(BatchUsageError, match="--input"):
        resubmit(report, tmp_path / "out.jsonl")


def test_unreadable_results_lines_are_not_results_without_a_request(tmp_path: Path) -> None:
    """A results line that could not be read is listed once, as what it is, not as no_input."""
    res = write_jsonl(tmp_path / "results.jsonl", [openai_ok("c-1", chat_body("stop"))])
    with res.open("a") as f:
        f.write('not json\n{"custom_id": "c-2", "respo')
    ins = write_jsonl(tmp_path / "input.jsonl", [openai_request("c-1"), openai_request("c-2")])
    with audit([res]) as report:
        check_input(report, [ins])
        assert report.count(outcome=RequestOutcome.NO_INPUT) == 0
        assert list(report.ids(Group(None, RequestOutcome.NO_RESULT))) == ["c-2"]
        assert report.count(outcome=RequestOutcome.TRUNCATED_LINE) == 1


@pytest.mark.parametrize(
    ("results", "inputs", "no_result", "conflicts", "written"),
    [
        # a request line given twice: the first joins, the other is listed
        (["a-2", "a-1"], ["a-1", "a-2", "a-2"], ["a-2"], [], ["a-2-r1"]),
        # a result line given twice: a conflict, never resubmitted (its request is answered)
        (["a-2", "a-10", "a-2"], ["a-2", "a-10"], [], ["a-2", "a-2"], ["a-10-r1"]),
        # both: no way to pair them
        (["a-2", "a-2"], ["a-2", "a-2"], ["a-2"], ["a-2", "a-2"], []),
    ],
)
def test_a_duplicated_id_is_resubmitted_at_most_once_and_the_extra_lines_listed(
    tmp_path: Path, results: list[str], inputs: list[str], no_result: list[str],
    conflicts: list[str], written: list[str],
) -> None:  # fmt: skip
    """An id on two request lines joins once; on two results lines it is a conflict, not sent."""
    by_id = {c.line["custom_id"]: c.line for c in ANTHROPIC}
    res = write_jsonl(tmp_path / "results.jsonl", [by_id[i] for i in results])
    ins = write_jsonl(tmp_path / "input.jsonl", [anthropic_request(i) for i in inputs])
    with audit([res]) as report:
        resubmit(report, tmp_path / "retry.jsonl", inputs=[ins])
        assert list(report.ids(Group(None, RequestOutcome.NO_INPUT))) == []
        assert list(report.ids(Group(None, RequestOutcome.NO_RESULT))) == no_result
        assert list(report.ids(Group(None, RequestOutcome.DUPLICATE_ID))) == conflicts
    assert [line["custom_id"] for line in _read(tmp_path / "retry.jsonl")] == written


def test_an_id_on_two_results_lines_is_a_conflict_whatever_came_first(tmp_path: Path) -> None:
    """A filtered result and a truncated one under one id: a conflict, never resubmitted."""
    results = [
        openai_ok("c-9", chat_body("length")),  # an unrelated truncation, seen first
        openai_ok("c-1", chat_body("content_filter")),  # never to be resubmitted
        openai_ok("c-1", chat_body("length")),
    ]
    inputs = [openai_request("c-1", max_tokens=10), openai_request("c-9", max_tokens=10)]
    lines, links, (done, _) = _run(tmp_path, results, inputs)
    assert [line["custom_id"] for line in lines] == ["c-9-r1"]
    assert [link["old_id"] for link in links] == ["c-9"]
    assert done.written == {"raise_max_tokens": 1}
    res, ins = tmp_path / "results.jsonl", tmp_path / "input.jsonl"
    with audit([res]) as report:
        check_input(report, [ins])
        duplicates = report.entries(Group(None, RequestOutcome.DUPLICATE_ID))
        assert [(e.id, e.line) for e in duplicates] == [
            ("c-1", 2), ("c-1", 3),
        ]  # fmt: skip
        assert report.count(outcome=RequestOutcome.NO_INPUT) == 0
        assert report.count(outcome=RequestOutcome.NO_RESULT) == 0
        assert exit_status(report) == 1


def test_an_echoed_request_whose_id_is_on_two_results_lines_is_not_resubmitted(
    tmp_path: Path,
) -> None:
    """Bedrock results echo their requests: a recordId on two lines is a conflict there too."""
    truncated = next(c.line for c in BEDROCK if c.name == "max_tokens")
    results = [truncated, dict(truncated, modelInput=bedrock_input(64))]
    results.append(dict(truncated, recordId="CALL0000009"))
    lines, _, _ = _run(tmp_path, results, None)
    assert [line["recordId"] for line in lines] == ["CALL0000009R1"]
    with audit([tmp_path / "results.jsonl"], keep_requests=True) as report:
        resubmit(report, tmp_path / "again.jsonl")
        assert list(report.ids(Group(None, RequestOutcome.DUPLICATE_ID))) == ["CALL0000002"] * 2


def test_a_request_file_named_twice_is_read_once(tmp_path: Path) -> None:
    """The same request file given twice (by another spelling too) joins each request once."""
    res = write_jsonl(tmp_path / "results.jsonl", [openai_ok("c-1", chat_body("length"))])
    ins = write_jsonl(tmp_path / "input.jsonl", [openai_request("c-1", max_tokens=10)])
    with audit([res]) as report:
        done = resubmit(report, tmp_path / "retry.jsonl",
                        inputs=[ins, tmp_path / "." / "input.jsonl"])  # fmt: skip
        assert report.count(outcome=RequestOutcome.NO_RESULT) == 0
    assert done.written == {"raise_max_tokens": 1}


def test_join_finds_results_without_requests_and_requests_without_results(tmp_path: Path) -> None:
    """Ids on one side only are counted and listed; bad request lines are listed by line."""
    res = write_jsonl(tmp_path / "results.jsonl",
                      [openai_ok(f"c-{i}", chat_body("stop")) for i in (1, 2, 3)])  # fmt: skip
    ins = write_jsonl(tmp_path / "input.jsonl", [openai_request("c-1"), openai_request("c-3"),
                                                 openai_request("c-4")])  # fmt: skip
    with ins.open("a") as f:
        f.write("{broken\n")
    with audit([res]) as report:
        check_input(report, [ins])
        assert list(report.ids(Group(None, RequestOutcome.NO_INPUT))) == ["c-2"]
        assert list(report.ids(Group(None, RequestOutcome.NO_RESULT))) == ["c-4"]
        assert list(report.ids(Group(None, RequestOutcome.NOT_JSON))) == [f"{ins}:4"]
