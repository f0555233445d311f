"""Compaction at a threshold: `compact` runs before the call that passes `compact_at_tokens`.

Scripted runs over the real adapters, whose replies report their input tokens in each wire
format's own field (set here per reply), in `run_loop` and `arun_loop`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

import stopkit
from stopkit import Termination
from stopkit.loop.events import Compacted
from tests.loop._controls import MODES, scripted
from tests.loop._fake import FAKE, USER, reply
from tests.loop._shapes import PROVIDERS, Shapes, paris, tokyo

PARIS = {"id": "a", "name": "get_weather", "args": {"city": "Paris"}}

# Where each wire format says a reply's input tokens.
_INPUT_FIELD = {
    "anthropic": ("usage", "input_tokens"),
    "openai.chat": ("usage", "prompt_tokens"),
    "openai.responses": ("usage", "input_tokens"),
    "gemini": ("usageMetadata", "promptTokenCount"),
}


def sent(p: Shapes, reply: dict[str, Any], input_tokens: int) -> dict[str, Any]:
    """`reply` as the provider reports it after reading `input_tokens` of input."""
    reply = copy.deepcopy(reply)
    block, field = _INPUT_FIELD[p.name]
    reply[block][field] = input_tokens
    return reply


def keep_first_and_last_two(messages: list[Any]) -> list[Any]:
    """A compaction: the first message and the last turn's two (the reply and its result)."""
    return [messages[0], *messages[-2:]]


@pytest.mark.parametrize("mode", MODES)
def test_compaction_happens_before_the_call_past_the_threshold(mode: str, p: Shapes) -> None:
    """Input 50 then 150 of 100: compacted before the third call, which gets what compact gave."""
    compacted: list[list[Any]] = []

    def compact(messages: list[Any]) -> list[Any]:
        compacted.append(keep_first_and_last_two(messages))
        return compacted[-1]

    script = [
        sent(p, p.tools([paris()]), 50),
        sent(p, p.tools([tokyo()]), 150),
        sent(p, p.text("Paris 18 °C, Tokyo 24 °C."), 60),
    ]
    outcome, model, events = scripted(
        mode, script, [p.user], compact=compact, compact_at_tokens=100
    )
    assert outcome.termination is Termination.COMPLETED
    assert len(compacted) == 1
    assert list(model.calls[2].messages) == compacted[0]
    [event] = [e for e in events if isinstance(e, Compacted)]
    assert (event.turn, event.tokens_before, event.tokens_after) == (3, 150, None)
    # Before: the user's message and two turns of the same shape; after: what compact gave.
    before = 2 * len(model.calls[1].messages) - 1
    assert (event.messages_before, event.messages_after) == (before, len(compacted[0]))
    assert outcome.messages[: len(compacted[0])] == compacted[0]


@pytest.mark.parametrize("mode", MODES)
def test_an_estimate_measures_the_transcript_instead(mode: str) -> None:
    """`estimate_tokens` decides: 40 tokens a message, past 100 at three messages."""
    script = [reply("tool_request", calls=[PARIS]), reply("completed", "Done.")]
    outcome, model, events = scripted(
        mode,
        script,
        [USER],
        adapter=FAKE,
        compact=lambda messages: messages[-1:],
        compact_at_tokens=100,
        estimate_tokens=lambda messages: 40 * len(messages),
    )
    assert outcome.termination is Termination.COMPLETED
    assert len(model.calls[1].messages) == 1
    [event] = [e for e in events if isinstance(e, Compacted)]
    assert (event.turn, event.messages_before, event.messages_after) == (2, 3, 1)
    assert (event.tokens_before, event.tokens_after) == (120, 40)


# How each wire format reports a prompt of which `cached` tokens were read from its cache:
# Anthropic counts them apart from its input tokens; OpenAI and Gemini include them.
_CACHED = {
    "anthropic": lambda total, cached: {
        "usage": {"input_tokens": total - cached, "cache_read_input_tokens": cached,
                  "output_tokens": 5}},
    "openai.chat": lambda total, cached: {
        "usage": {"prompt_tokens": total, "prompt_tokens_details": {"cached_tokens": cached},
                  "completion_tokens": 5, "total_tokens": total + 5}},
    "openai.responses": lambda total, cached: {
        "usage": {"input_tokens": total, "input_tokens_details": {"cached_tokens": cached},
                  "output_tokens": 5, "total_tokens": total + 5}},
    "gemini": lambda total, cached: {
        "usageMetadata": {"promptTokenCount": total, "cachedContentTokenCount": cached,
                          "candidatesTokenCount": 5, "totalTokenCount": total + 5}},
}  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
def test_a_prompt_read_from_the_cache_counts_in_full(mode: str, p: Shapes) -> None:
    """150 tokens read, 140 of them from the prompt cache: past 100, whatever the wire format."""
    script = [
        {**p.tools([paris()]), **_CACHED[p.name](150, 140)},
        p.text("Paris 18 °C."),
    ]
    outcome, model, events = scripted(
        mode, script, [p.user], compact=lambda messages: messages[-2:], compact_at_tokens=100
    )
    assert outcome.termination is Termination.COMPLETED
    assert [(e.turn, e.tokens_before) for e in events if isinstance(e, Compacted)] == [(2, 150)]
    assert len(model.calls[1].messages) == 2


def test_a_compact_that_does_not_shrink_is_called_once_per_crossing() -> None:
    """A compact giving the same transcript back is called once per crossing of the mark.

    Not again while the input stays past the mark; again once it dropped to the mark or below
    and crossed it anew.
    """
    p = PROVIDERS[1]
    calls: list[int] = []

    def compact(messages: list[Any]) -> list[Any]:
        calls.append(len(messages))
        return list(messages)

    inputs = [150, 160, 170, 90, 180, 190]
    cities = ["Paris", "Tokyo", "Rome", "Oslo", "Lima", "Cairo"]
    script = [
        sent(p, p.tools([(f"c{i}", "get_weather", {"city": city})]), tokens)
        for i, (city, tokens) in enumerate(zip(cities, inputs, strict=True))
    ]
    script.append(sent(p, p.text("Done."), 200))
    outcome, model, events = scripted(
        "run_loop", script, [p.user], compact=compact, compact_at_tokens=100
    )
    assert outcome.termination is Termination.COMPLETED
    # Before call 2 (150 read) it is called; 160, 170: not again; 90 re-arms; 180: once more.
    assert len(calls) == 2
    assert [e.turn for e in events if isinstance(e, Compacted)] == [2, 6]
    assert len(model.calls) == 7


def test_a_compact_that_shrinks_but_not_enough_is_called_again() -> None:
    """Each compaction made the transcript smaller: the next call past the mark compacts again."""
    p = PROVIDERS[0]
    script = [
        sent(p, p.tools([paris("c1")]), 150),
        sent(p, p.tools([tokyo("c2")]), 150),
        sent(p, p.text("Done."), 150),
    ]
    compacted = []

    def compact(messages: list[Any]) -> list[Any]:
        compacted.append(len(messages))
        return messages[-2:]

    scripted("run_loop", script, [p.user], compact=compact, compact_at_tokens=100)
    assert compacted == [3, 4]


def test_the_context_window_path_stays_the_last_resort() -> None:
    """A reply cut by the full window still calls `compact` once, with the threshold set too."""
    calls: list[int] = []

    def compact(messages: list[Any]) -> list[Any]:
        calls.append(len(messages))
        return messages[:1]

    script = [
        reply("output_limit", "partial", detail="context_window"),
        reply("completed", "Done."),
    ]
    outcome, model, _ = scripted(
        "run_loop",
        script,
        [USER],
        adapter=FAKE,
        compact=compact,
        compact_at_tokens=10_000,
    )
    assert outcome.termination is Termination.COMPLETED
    assert calls == [1]
    assert len(model.calls) == 2


def test_no_input_count_and_no_estimate_means_no_compaction() -> None:
    """Replies without usage and no estimate: nothing measures, nothing is compacted."""
    script = [reply("tool_request", calls=[PARIS]), reply("completed", "Done.")]
    calls: list[int] = []
    outcome, _, _ = scripted(
        "run_loop",
        script,
        [USER],
        adapter=FAKE,
        compact=lambda messages: calls.append(1) or messages,
        compact_at_tokens=1,
    )
    assert outcome.termination is Termination.COMPLETED
    assert calls == []


@pytest.mark.parametrize(
    ("settings", "error", "names"),
    [
        ({"compact": list, "compact_at_tokens": 0}, ValueError, "compact_at_tokens"),
        ({"compact": list, "compact_at_tokens": -5}, ValueError, "compact_at_tokens"),
        ({"compact": list, "compact_at_tokens": "100"}, ValueError, "compact_at_tokens"),
        ({"compact": list, "compact_at_tokens": 10.5}, ValueError, "compact_at_tokens"),
        ({"compact_at_tokens": 100}, ValueError, "compact="),
        ({"compact": list, "estimate_tokens": len}, ValueError, "compact_at_tokens"),
        ({"compact": "shorter", "compact_at_tokens": 100}, TypeError, "compact"),
        (
            {"compact": list, "compact_at_tokens": 100, "estimate_tokens": 4},
            TypeError,
            "estimate_tokens",
        ),
    ],
    ids=[
        "zero", "negative", "str", "float", "no-compact", "estimate-alone", "compact-not-callable",
        "estimate-not-callable",
    ],
)  # fmt: skip
def test_bad_compaction_settings_are_refused(
    settings: dict[str, Any], error: type[Exception], names: str
) -> None:
    """A bad threshold, or a setting without its partner, raises naming it."""
    with pytest.raises(error, match=names):
        stopkit.LoopSettings(**settings)


@pytest.mark.parametrize(
    ("compact", "estimate", "names"),
    [
        (lambda messages: "shorter", None, "compact"),
        (lambda messages: None, None, "compact"),
        (lambda messages: messages, lambda messages: "many", "estimate_tokens"),
        (lambda messages: messages, lambda messages: -1, "estimate_tokens"),
    ],
    ids=["compact-str", "compact-none", "estimate-str", "estimate-negative"],
)
def test_bad_values_from_the_hooks_are_refused_at_the_call(
    compact: Callable[[list[Any]], Any], estimate: Any, names: str
) -> None:
    """`compact` must return messages and `estimate_tokens` an int >= 0: a TypeError naming it."""
    script = [reply("tool_request", calls=[{"id": "a", "name": "get_weather", "args": {}}])]
    settings: dict[str, Any] = {"compact": compact, "compact_at_tokens": 1}
    if estimate is not None:
        settings["estimate_tokens"] = estimate
    else:
        script = [{**script[0], "usage": {"input_tokens": 50, "output_tokens": 1}}]
    with pytest.raises(TypeError, match=names):
        scripted(
            "run_loop", [*script, reply("completed", "Done.")], [USER], adapter=FAKE, **settings
        )
