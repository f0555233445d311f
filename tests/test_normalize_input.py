"""What `normalize` accepts, and the errors it gives for what it cannot read."""

from __future__ import annotations

import pytest

import stopkit


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        (42, "int"),
        ({"foo": 1, "bar": 2}, "'foo'"),
        ({"error": {"type": "overloaded_error", "message": "Overloaded"}}, "HTTP error envelope"),
        ("not json at all", "not valid JSON"),
        (b"data: {}\n\n", "normalize_stream"),
        ([], "list"),
    ],
)
def test_unsupported_input_names_what_was_received(reply: object, fragment: str) -> None:
    """A non-reply raises UnsupportedReply whose message names the input and the adapters tried."""
    with pytest.raises(stopkit.UnsupportedReply) as info:
        stopkit.normalize(reply)
    assert fragment in str(info.value)
    assert isinstance(info.value, stopkit.StopkitError)


def test_unknown_adapter_name_is_a_clear_error() -> None:
    """Asking for an adapter that does not exist names the known ones."""
    with pytest.raises(stopkit.AdapterNotFound, match="no adapter named 'nope'"):
        stopkit.normalize({"x": 1}, adapter="nope")


class _EchoAdapter:
    """A user adapter: replies shaped {"echo_stop": ...}."""

    name = "echo"

    def detects(self, reply: object) -> bool:
        return isinstance(reply, dict) and "echo_stop" in reply

    def normalize(self, reply: dict[str, str]) -> stopkit.Stop:
        return stopkit.Stop(
            reason=stopkit.StopReason.COMPLETED,
            raw_reason=reply["echo_stop"],
            provider=self.name,
            raw=reply,
        )


def test_registered_user_adapter_joins_detection() -> None:
    """A registered adapter is found by auto-detection, and unregistering removes it."""
    stopkit.register_adapter(_EchoAdapter())
    try:
        stop = stopkit.normalize('{"echo_stop": "done"}')
        assert (stop.provider, stop.raw_reason) == ("echo", "done")
        assert stopkit.normalize_all({"echo_stop": "x"})[0].provider == "echo"
        with pytest.raises(ValueError, match="already registered"):
            stopkit.register_adapter(_EchoAdapter())
    finally:
        stopkit.unregister_adapter("echo")
    with pytest.raises(stopkit.UnsupportedReply):
        stopkit.normalize({"echo_stop": "done"})


def test_adapter_that_is_not_one_is_refused() -> None:
    """Registering an object without the adapter attributes is a TypeError naming the gap."""
    with pytest.raises(TypeError, match="'detects'"):
        stopkit.register_adapter(type("X", (), {"name": "x"})())
