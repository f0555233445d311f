"""The base the built-in adapters share: each writes only what is its own.

An adapter is any object that fits `stopkit.Adapter` (the plug-in point; nothing needs to
inherit from anything). The built-in ones subclass `BaseAdapter` as a convenience, as httpx's
transports subclass `BaseTransport`: a subclass names its reader (`read`, and `readings` where a
reply holds several choices), its `Rules`, its detection, its stream (`stream()`, where it has
one) and its conversation turns; `normalize` and `normalize_all` are the base's, so every reply
goes reader -> `Reading` -> `decide(reading, rules)` -> `Stop` the same way.

Example:
    >>> from stopkit import StopReason
    >>> from stopkit.adapters._rules import Rules
    >>> class Acme(BaseAdapter):
    ...     name = "acme"
    ...     rules = Rules("acme", "halt", {"DONE": (StopReason.COMPLETED, None)})
    ...     read = staticmethod(lambda reply: Reading(reply, reply.get("halt")))
    ...     def detects(self, reply):
    ...         return "halt" in reply
    >>> Acme().normalize({"halt": "DONE"}).reason
    <StopReason.COMPLETED: 'completed'>
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, ToolResult
from stopkit.adapters._engine import decide
from stopkit.adapters._reading import Reading, Verdict
from stopkit.adapters._rules import Rules

__all__ = ["BaseAdapter"]


class BaseAdapter:
    """An adapter's shared part: normalizing through its reader and rules, the usual defaults.

    A subclass sets `name` and `rules`, binds its reader (`read = staticmethod(read)`; also
    `readings` for a reply of several choices), and writes `detects`, `detects_event`, its
    `stream()` where it reads streams, and the turns its wire format needs (`assistant_message`,
    `tool_results`, and `resume`, `user_message` where the defaults below do not fit).
    """

    name: ClassVar[str]
    rules: ClassVar[Rules]
    """Its wire format's rules: the tables, the stop field's name, the provider steps."""
    detect_keys: ClassVar[tuple[str, ...]] = ()
    """The top-level keys a JSON body must hold at least one of (none: never a JSON body)."""
    stream_notes: ClassVar[tuple[str, ...]] = ()
    """What its streams do beyond the reply's rules, in words (the docs' reason table)."""
    otel_provider: ClassVar[str | None] = None
    """Its OpenTelemetry `gen_ai.provider.name` (the conventions' well-known value for its wire
    format where there is one); None: its own name."""
    otel_operation: ClassVar[str] = "chat"
    """Its `gen_ai.operation.name`: `chat`, or `generate_content`, `text_completion`."""
    counts_apart: ClassVar[frozenset[str]] = frozenset()
    """What its usage counts leave out of the whole, as its wire format counts: `cache` (the
    input count leaves out the prompt read from and written to the cache), `reasoning` (the
    output count leaves out thinking)."""

    tables: ClassVar[Mapping[str, Mapping[str, Verdict]]]
    """Every mapping table of the adapter, by the field it maps (the docs' reason table): the
    rules' stop field's unless the subclass names more."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "tables" not in cls.__dict__ and "rules" in cls.__dict__:
            cls.tables = {cls.rules.title: cls.rules.table}

    def read(self, reply: Any) -> Reading:
        """Read a reply's first choice (the only one, for most wire formats) into its facts."""
        raise NotImplementedError(f"{type(self).__name__} names no reader")

    def readings(self, reply: Any) -> list[Reading]:
        """Read every choice of a reply into its facts (one, unless the wire has several)."""
        return [self.read(reply)]

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` of a reply (its first choice); never raises for one of its shape."""
        return decide(self.read(reply), self.rules)

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        """Return one `Stop` per choice of a reply, in order."""
        return tuple(decide(reading, self.rules) for reading in self.readings(reply))

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is of this adapter's wire API (cheap; never raises)."""
        raise NotImplementedError(f"{type(self).__name__} writes no detection")

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` starts a stream of this wire API (no stream: never)."""
        return False

    def assistant_message(self, stop: Stop) -> Any:
        """Return the provider-format message(s) that append this reply to the conversation."""
        raise NotImplementedError(f"{type(self).__name__} writes no assistant message")

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[Any]:
        """Refuse by default: a wire format whose replies carry no tool calls gets no results.

        Raises:
            ValueError: always, naming the adapter and the stop's reason.
        """
        raise ValueError(
            f"{self.name} replies carry no tool calls: there are no results to send for this "
            f"{stop.reason.value!r} stop"
        )

    def resume(self, stop: Stop) -> tuple[list[Any], dict[str, Any]]:
        """Refuse by default: a wire format with no paused stop value has nothing to resume.

        Raises:
            ValueError: always, naming the adapter, its stop field and the stop's reason.
        """
        raise ValueError(
            f"{self.name} has no paused stop (no paused {self.rules.title}): its replies are "
            f"never paused, so this {stop.reason.value!r} stop (raw {stop.raw_reason!r}) "
            "cannot be resumed"
        )

    def user_message(self, text: str) -> Any:
        """Return a user message saying `text`: `{"role": "user", "content": text}` by default.

        Example:
            >>> BaseAdapter().user_message("Go on.")
            {'role': 'user', 'content': 'Go on.'}
        """
        return {"role": "user", "content": text}
