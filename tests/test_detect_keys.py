"""`detect_keys`: the top-level keys auto-detection looks for before it asks an adapter.

For a JSON body, `normalize` skips an adapter whose `detect_keys` are all absent, without calling
its `detects`. That is only right if the keys are a necessary condition: a body `detects`
accepts always holds one of them. These tests pin that for every built-in, on every recorded
reply and on generated bodies, and check that detection with the shortcut answers exactly as
trying every adapter in order would.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import stopkit
from stopkit._registry import detect_keys
from tests._adapters import ADAPTER_OF_WIRE, NAMES
from tests._corpus import rows
from tests._payloads import load_cases

BUILTINS = NAMES


def _in_order(reply: dict[str, Any]) -> str | None:
    """The oracle: the first adapter, in detection order, whose `detects` accepts the body."""
    for adapter in stopkit.registered_adapters():
        if adapter.detects(reply):
            return adapter.name
    return None


def _detected(reply: dict[str, Any]) -> str | None:
    try:
        return stopkit.detect(reply).name
    except stopkit.UnsupportedReply:
        return None


def _recorded_bodies() -> list[dict[str, Any]]:
    bodies = [c.data["reply"] for c in load_cases() if "reply" in c.data]
    for wire in ADAPTER_OF_WIRE:
        bodies += [r.load() for r in rows(wire, stream=False, every=True)]
    return [b for b in bodies if type(b) is dict]


@pytest.mark.parametrize("name", BUILTINS)
def test_every_builtin_declares_its_keys(name: str) -> None:
    """Each built-in names the keys it needs, so no JSON body pays for adapters it cannot be."""
    keys = detect_keys(stopkit.get_adapter(name))
    assert keys, f"{name} declares no detect_keys"


def test_recorded_bodies_hold_a_key_of_every_adapter_that_accepts_them() -> None:
    """On every payload case and corpus reply, an accepting adapter finds one of its keys."""
    bodies = _recorded_bodies()
    assert len(bodies) > 250  # 262 payload cases; about 1,000 more with the corpus
    for body in bodies:
        for name in BUILTINS:
            adapter = stopkit.get_adapter(name)
            if adapter.detects(body):
                keys = detect_keys(adapter) or ()
                assert any(k in body for k in keys), (name, sorted(body))
        assert _detected(body) == _in_order(body)


# Bodies built from the keys and values the built-ins look at, so that near-misses (a `type`
# that is not "message", `choices` that is not a list, `output` without `message`) are common.
_KEYS = st.sampled_from(
    [
        "type", "role", "content", "object", "choices", "candidates", "promptFeedback",
        "prompt_feedback", "usageMetadata", "modelVersion", "output", "message", "done",
        "model", "created_at", "finish_reason", "index", "stop_reason", "id", "status",
    ]
)  # fmt: skip
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(["message", "assistant", "response", "chat.completion", "text_completion"]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["message", "usage", "type"]), st.none(), max_size=2),
)


@given(st.dictionaries(_KEYS, _VALUES, max_size=8))
def test_detection_answers_as_trying_every_adapter_in_order(body: dict[str, Any]) -> None:
    """The shortcut never changes which adapter claims a body, nor whether one does."""
    for name in BUILTINS:
        adapter = stopkit.get_adapter(name)
        if adapter.detects(body):
            assert any(k in body for k in detect_keys(adapter) or ()), name
    assert _detected(body) == _in_order(body)


@given(st.dictionaries(_KEYS, _VALUES, max_size=8))
def test_chat_and_responses_never_claim_the_same_body(body: dict[str, Any]) -> None:
    """Their order in detection is free (Chat goes first, being the commoner) only while so."""
    chat, responses = stopkit.get_adapter("openai.chat"), stopkit.get_adapter("openai.responses")
    assert not (chat.detects(body) and responses.detects(body))


def test_a_body_saying_response_is_never_a_chat_completion() -> None:
    """`object: "response"` beside a `choices` list is still read by the Responses adapter."""
    body = {"object": "response", "choices": [], "status": "completed", "output": []}
    assert stopkit.detect(body).name == "openai.responses"


class _Tagged:
    """A user adapter for bodies carrying `tag`; counts how often it is asked."""

    name = "tagged"
    detect_keys = ("tag",)

    def __init__(self) -> None:
        self.asked = 0

    def detects(self, reply: object) -> bool:
        self.asked += 1
        return isinstance(reply, dict) and reply.get("tag") == "mine"

    def normalize(self, reply: Any) -> stopkit.Stop:
        return stopkit.Stop(reason=stopkit.StopReason.COMPLETED, provider=self.name, raw=reply)


def test_user_adapter_keys_skip_it_and_keep_it_first() -> None:
    """A user adapter's keys spare it bodies without them; with them, it is still tried first."""
    tagged = _Tagged()
    stopkit.register_adapter(tagged)
    try:
        chat = {"object": "chat.completion", "choices": []}
        assert stopkit.detect(chat).name == "openai.chat"
        assert tagged.asked == 0
        assert stopkit.detect({**chat, "tag": "mine"}).name == "tagged"
        assert stopkit.detect({**chat, "tag": "other"}).name == "openai.chat"
        assert tagged.asked == 2
    finally:
        stopkit.unregister_adapter("tagged")


class _Raising(_Tagged):
    name = "raising"

    def detects(self, reply: object) -> bool:
        raise RuntimeError("boom")


def test_a_raising_user_adapter_is_named_and_the_others_still_tried() -> None:
    """An adapter that raises on a body does not hide the built-ins, and is named when none fit."""
    stopkit.register_adapter(_Raising())
    try:
        body = {"tag": "x", "object": "chat.completion", "choices": []}
        assert stopkit.detect(body).name == "openai.chat"
        with pytest.raises(stopkit.UnsupportedReply, match=r"raising \(raised RuntimeError"):
            stopkit.detect({"tag": "x"})
    finally:
        stopkit.unregister_adapter("raising")


@pytest.mark.parametrize("keys", ["tag", 7, ["tag", 1], b"tag"])
def test_malformed_detect_keys_are_refused_at_registration(keys: object) -> None:
    """`detect_keys` must be a collection of key names; anything else is named at once."""
    adapter = _Tagged()
    adapter.detect_keys = keys  # type: ignore[assignment]
    with pytest.raises(TypeError, match="'tagged': detect_keys must be a collection"):
        stopkit.register_adapter(adapter)
    assert "tagged" not in [a.name for a in stopkit.registered_adapters()]
