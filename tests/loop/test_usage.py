"""What a run cost: `Outcome.usage` (every reply's tokens) and `Outcome.wasted_usage` (thrown away).

No OpenTelemetry here: the cost of retries is known from the outcome alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import stopkit
from stopkit import ModelCallError, StopReason, Termination, Usage
from stopkit.loop import DEFAULT_HANDLERS, Retry
from stopkit.testing import ScriptedModel
from tests.loop._fake import FAKE, USER, call, reply
from tests.loop._shapes import PROVIDERS, TOOLS, Shapes, paris


@pytest.fixture(params=PROVIDERS, ids=lambda p: p.name)
def p(request: pytest.FixtureRequest) -> Shapes:
    provider: Shapes = request.param
    return provider


def run(p: Shapes, script: Sequence[Any], **settings: Any) -> stopkit.Outcome:
    settings.setdefault("tools", TOOLS)
    return stopkit.run_loop(ScriptedModel(script), [p.user], **settings)


def fake_run(script: Sequence[Any], **settings: Any) -> stopkit.Outcome:
    return stopkit.run_loop(ScriptedModel(script), [USER], adapter=FAKE, **settings)


def tokens(usage: Usage | None) -> tuple[int | None, int | None] | None:
    return None if usage is None else (usage.input_tokens, usage.output_tokens)


def test_usage_adds_up_every_reply(p: Shapes) -> None:
    """A tool turn and its answer: the run's usage is both replies' counts added up."""
    outcome = run(p, [p.tools([paris()]), p.text("18 °C.")])
    assert outcome.termination is Termination.COMPLETED
    assert tokens(outcome.usage) == (20, 10)  # each scripted reply says 10 in, 5 out
    assert outcome.wasted_usage is None


def test_truncated_reply_retried_is_wasted(p: Shapes) -> None:
    """A cut reply retried with a higher max_tokens: its tokens count in both usages."""
    outcome = run(p, [p.truncated("Paris is"), p.text("Paris is 18 °C.")], max_tokens=256)
    assert outcome.termination is Termination.COMPLETED
    assert tokens(outcome.usage) == (20, 10)
    assert tokens(outcome.wasted_usage) == (10, 5)


def test_truncated_twice_keeps_the_last_reply(p: Shapes) -> None:
    """Cut twice: the first reply was retried (wasted), the second is the outcome's own."""
    outcome = run(p, [p.truncated("Paris"), p.truncated("Paris is")], max_tokens=256)
    assert outcome.termination is Termination.OUTPUT_LIMIT
    assert tokens(outcome.usage) == (20, 10)
    assert tokens(outcome.wasted_usage) == (10, 5)


@pytest.mark.parametrize(
    ("script", "usage", "wasted", "unknown"),
    [
        pytest.param([reply("completed", "hi")], None, None, 1, id="no-reply-says-a-count"),
        pytest.param(
            [
                reply("tool_request", calls=[call("c1", a=1, b=2)], usage={"input_tokens": 7}),
                reply("completed", "3", usage={"output_tokens": 2, "reasoning_tokens": 1}),
            ],
            Usage(input_tokens=7, output_tokens=2, reasoning_tokens=1),
            None,
            2,  # each said one of its input and output counts
            id="counts-each-reply-said",
        ),
        pytest.param(
            [
                reply("output_limit", "cut", detail="max_tokens", usage={"output_tokens": 64}),
                reply("completed", "whole", usage={"output_tokens": 90}),
            ],
            Usage(output_tokens=154),
            Usage(output_tokens=64),
            2,
            id="retried-reply-wasted",
        ),
        pytest.param(
            [
                reply("output_limit", "cut", detail="max_tokens"),
                reply("completed", "whole", usage={"output_tokens": 90}),
            ],
            Usage(output_tokens=90),
            None,
            2,
            id="retried-reply-without-counts",
        ),
    ],
)
def test_usage_table(
    script: list[Any], usage: Usage | None, wasted: Usage | None, unknown: int
) -> None:
    """Counts add up field by field (None where no reply said one); short replies are counted."""
    outcome = fake_run(script, tools={"add": lambda a, b: a + b}, max_tokens=64)
    assert outcome.usage == usage
    assert outcome.wasted_usage == wasted
    assert outcome.usage_unknown == unknown


def test_usage_is_whole_when_every_reply_says_its_tokens(p: Shapes) -> None:
    """Every reply said its input and output tokens: `usage_unknown` is 0 on every provider."""
    outcome = run(p, [p.tools([paris()]), p.text("18 °C.")])
    assert outcome.usage_unknown == 0


def test_unusable_summing_up_reply_is_wasted() -> None:
    """The summing-up call's reply that cannot be the answer (it asks for a tool) is wasted."""
    script = [
        reply("completed", "", usage={"input_tokens": 10, "output_tokens": 1}),
        reply("tool_request", calls=[call("c1")], usage={"input_tokens": 12, "output_tokens": 8}),
    ]
    outcome = fake_run(script, synthesize_on_empty_final=True)
    assert outcome.text == ""
    assert outcome.turns == 2
    assert outcome.usage == Usage(input_tokens=22, output_tokens=9)
    assert outcome.wasted_usage == Usage(input_tokens=12, output_tokens=8)


def test_used_summing_up_reply_is_not_wasted() -> None:
    """A summing-up reply that becomes the answer cost tokens, none of them wasted."""
    script = [
        reply("completed", "", usage={"output_tokens": 1}),
        reply("completed", "Summed up.", usage={"output_tokens": 30}),
    ]
    outcome = fake_run(script, synthesize_on_empty_final=True)
    assert outcome.text == "Summed up."
    assert outcome.usage == Usage(output_tokens=31)
    assert outcome.wasted_usage is None


def test_a_retry_already_tried_ends_the_run_without_waste() -> None:
    """A handler retrying with overrides already tried ends the run: that reply is not wasted."""
    handlers = {**DEFAULT_HANDLERS, StopReason.UNKNOWN: lambda ctx: Retry({"seed": 1})}
    script = [
        reply("unknown", usage={"output_tokens": 3}),
        reply("unknown", usage={"output_tokens": 4}),
    ]
    outcome = fake_run(script, handlers=handlers)
    assert outcome.termination is Termination.UNKNOWN
    assert outcome.usage == Usage(output_tokens=7)
    assert outcome.wasted_usage == Usage(output_tokens=3)


def test_model_error_outcome_keeps_the_usage_so_far() -> None:
    """A run ended by a failed model call reports what the replies before it cost."""
    script = [
        reply("tool_request", calls=[call("c1", a=1, b=2)], usage={"input_tokens": 5}),
        RuntimeError("down"),
    ]
    with pytest.raises(ModelCallError) as raised:
        fake_run(script, tools={"add": lambda a, b: a + b})
    assert raised.value.outcome.usage == Usage(input_tokens=5)
