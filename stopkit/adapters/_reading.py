"""`Reading`: what an adapter read from one reply, in no provider's shape.

An adapter's reader fills one `Reading` per reply (per choice or candidate where there are
several): the facts, as the reply states them. It decides nothing, and sets no verdict: a value
read from another stop field is a fact naming that field (`field`), which the engine looks up;
a reply that could not be read, a value that is absent, an in-band error and a stream cut
before its end are facts too (`malformed`, `raw_reason`, `error`, `ended`). The engine
(`stopkit.adapters._engine.decide`) applies DESIGN section 3 to the reading, in order, once
for every adapter, and builds the `Stop`. A stream accumulator fills the same record from the
reply its events amount to, and says whether the stream reached its end.

Adding a field to `Stop` means: the field in `stopkit/_stop.py`, its fact here, and one line
in the engine's builder.

Example:
    >>> reading = Reading(raw={"stop_reason": "end_turn"}, raw_reason="end_turn")
    >>> reading.text = "Hi"
    >>> (reading.raw_reason, reading.ended, reading.calls)
    ('end_turn', True, ())
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from stopkit._stop import StopReason, ToolCall, Usage

__all__ = ["Reading", "Verdict", "identify", "tokens"]

Verdict = tuple[StopReason, str | None]
"""A reason and its detail, as a mapping table or a step gives them."""


class Reading:
    """The facts of one reply, every one set to "nothing said" until the reader sets it.

    `raw` and `raw_reason` are what the `Stop` keeps as sent; every other fact is in the
    engine's vocabulary (a refusal is a refusal, whichever field said it):

    - `field`: the stop field `raw_reason` was read from, where it is not the adapter's own (a
      name in its `Rules.fields`: a legacy field, a blocked prompt's reason, the value a
      framework kept from the provider); None for the adapter's own stop field.
    - `named`: the table's name of `raw_reason` where the reader decoded it (an enum number,
      another letter case, a framework's value for one it could not name); None when the value
      as sent is the name.
    - `text`: the visible text, thinking/reasoning excluded.
    - `calls`: client tool calls, in order (server-executed tools are not calls).
    - `answered`: ids of calls whose result already sits in the same reply (run by the provider).
    - `refusal`, `stop_sequence`: as the provider said them.
    - `filter`: a filter signal beside the stop value, `(detail, what said so)`.
    - `cut_in_call`: the reply ended inside its last tool call (that call is partly written).
    - `error`: an in-band error object sent beside the stop value (also kept in details).
    - `ended`: False for a stream that stopped before its terminal event.
    - `malformed`: what about the reply could not be read, in words.
    - `usage`, `ceiling`: the token counts; the request's output ceiling where the reply
      carries it.
    - `model`, `response_id`: the model and the reply's id, as the reply names them (strings
      only: another type names neither).
    - `details`, `notes`: provider extras worth keeping; what the reader noticed, in words.
    """

    # Slots, every one set in __init__: a reading holds these facts and no others (a typo in a
    # reader's attribute name raises instead of adding a fact the engine never reads).
    __slots__ = (
        "answered", "calls", "ceiling", "cut_in_call", "details", "ended", "error", "field",
        "filter", "malformed", "model", "named", "notes", "raw", "raw_reason", "refusal",
        "response_id", "stop_sequence", "text", "usage",
    )  # fmt: skip

    def __init__(self, raw: Any, raw_reason: Any = None) -> None:
        self.raw = raw
        self.raw_reason = raw_reason
        self.field: str | None = None
        self.named: str | None = None
        self.text = ""
        self.calls: Sequence[ToolCall] = ()
        self.answered: Collection[str] | None = None
        self.refusal: str | None = None
        self.filter: tuple[str, str] | None = None
        self.stop_sequence: str | None = None
        self.cut_in_call = False
        self.error: Any = None
        self.ended = True
        self.malformed: str | None = None
        self.usage: Usage | None = None
        self.ceiling: int | None = None
        self.model: str | None = None
        self.response_id: str | None = None
        self.details: dict[str, Any] = {}
        self.notes: list[str] = []


def tokens(
    input_tokens: Any = None,
    output_tokens: Any = None,
    reasoning_tokens: Any = None,
    cache_read_tokens: Any = None,
    cache_write_tokens: Any = None,
    total_tokens: Any = None,
) -> Usage | None:
    """Build the `Usage` of counts read off the wire; None when the reply said none of them.

    A count that is not a non-negative int (a string, a float, a bool) is not a count: None.

    Example:
        >>> tokens(12, 40, total_tokens="52").total_tokens is None
        True
    """
    counts = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "reasoning_tokens": reasoning_tokens,
        "cache_read_tokens": cache_read_tokens,
        "cache_write_tokens": cache_write_tokens,
        "total_tokens": total_tokens,
    }
    # A count is a non-negative int (a bool is not one).
    said = {name: n for name, n in counts.items() if type(n) is int and n >= 0}
    return Usage(**said) if said else None


def identify(reading: Reading, model: Any, response_id: Any) -> None:
    """Set the reply's model and id on `reading`, each where the reply said it as text.

    An empty string (Azure's first stream chunk) or a value of another type says neither.

    Example:
        >>> reading = Reading(raw=None)
        >>> identify(reading, "gpt-4o", "")
        >>> (reading.model, reading.response_id)
        ('gpt-4o', None)
    """
    if type(model) is str and model:
        reading.model = model
    if type(response_id) is str and response_id:
        reading.response_id = response_id
