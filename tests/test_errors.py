"""stopkit's errors survive `pickle` (DBOS, multiprocessing and task queues store them so)."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

import stopkit
from stopkit import _errors
from stopkit.batch import BatchUsageError
from stopkit.loop import journal
from stopkit.record import NoRecording


def _stop() -> stopkit.Stop:
    return stopkit.normalize(
        {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "Hi"}],
         "stop_reason": "max_tokens"}
    )  # fmt: skip


def _model_call_error() -> stopkit.ModelCallError:
    def call_model(messages: Any, **overrides: Any) -> Any:
        raise ConnectionError("the model is down")

    with pytest.raises(stopkit.ModelCallError) as raised:
        stopkit.run_loop(call_model, "Hi", retry=None)
    return raised.value


def _errors_to_pickle() -> list[Exception]:
    stop = _stop()
    return [
        _errors.StopkitError("plain"),
        _errors.UnsupportedReply({"what": 1}, ["anthropic"], "no content"),
        _errors.AdapterNotFound("nope", ["anthropic", "gemini"]),
        NoRecording("POST /v1/messages has no recording"),
        _model_call_error(),
        journal.JournalError("the journal failed"),
        journal.JournalMismatch("model_call_2", "the messages differ", {"a": 1}, {"a": 2}),
        journal.JournalUnreadable("runs.db", "it holds other tables"),
        journal.JournalTooNew("runs.db", 9, 1),
        journal.RunLocked("order-7", "host:1:ab", 12.5),
        journal.InvalidRunId(42, "not a str"),
        _errors.AlreadyResumed("order-7", ["toolu_1"], "awaiting approval of refund (toolu_1)"),
        _errors.StopReasonError(stop),
        _errors.TruncatedReply(stop),
        _errors.FilteredReply(stop),
        _errors.PausedReply(stop),
        _errors.UnknownStopReason(stop),
        BatchUsageError("requests.jsonl: another provider's"),
    ]


ERRORS = _errors_to_pickle()


def _subclasses(kind: type) -> set[type]:
    found = set(kind.__subclasses__())
    for sub in list(found):
        found |= _subclasses(sub)
    return found


def test_the_table_holds_every_stopkit_error() -> None:
    """Every subclass of `StopkitError` has an example below: a new error is checked too."""
    assert _subclasses(stopkit.StopkitError) | {stopkit.StopkitError} == {type(e) for e in ERRORS}


@pytest.mark.parametrize("error", ERRORS, ids=lambda error: type(error).__name__)
def test_an_error_round_trips_through_pickle(error: Exception) -> None:
    """Unpickled, an error is of its class, with its message and every attribute it had."""
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert str(copy) == str(error)
    assert copy.args == error.args
    assert vars(copy) == vars(error)


JOURNAL_ERRORS = ["InvalidRunId", "JournalError", "JournalMismatch", "JournalTooNew",
                  "JournalUnreadable", "RunLocked"]  # fmt: skip


@pytest.mark.parametrize("name", JOURNAL_ERRORS)
def test_the_journal_errors_live_with_the_journal(name: str) -> None:
    """Each journal error is defined in `stopkit.loop.journal`; `stopkit`'s old name is an alias.

    The old spelling warns that the name moved, and gives the same class.
    """
    kind = getattr(journal, name)
    assert kind.__module__.startswith("stopkit.loop.journal.")
    with pytest.warns(DeprecationWarning, match=f"stopkit.loop.journal.{name}"):
        assert getattr(stopkit, name) is kind
    assert not hasattr(_errors, name)
