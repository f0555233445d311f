"""The loop driver's entry points: `Loop`, `run_loop`, `arun_loop`.

A turn: call the model, read why it stopped, let that reason's handler decide. The logic lives
in the engine (`_engine.py`) as one generator yielding typed requests; here are the sync and
async shells that carry them out: make the model call, run the handler, sleep.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from stopkit.loop._engine import drive
from stopkit.loop._handlers import DEFAULT_HANDLERS
from stopkit.loop._requests import CallHook, CallModel, RunHandler, Sleep
from stopkit.loop._resume import paused_of, restore
from stopkit.loop._run import Run
from stopkit.loop._runner import ToolRunner, is_async_callable
from stopkit.loop._settings import LoopSettings, keywords_of
from stopkit.loop._streams import aread_stream, is_async_stream, is_sync_stream, read_stream
from stopkit.loop._threads import Captured, acall_in_thread
from stopkit.loop.events import Outcome

__all__ = ["Loop", "aresume_loop", "arun_loop", "resume_loop", "run_loop"]

logger = logging.getLogger("stopkit.loop")


class Loop:
    """A configured agent loop; `run(messages)` / `await arun(messages)` drive one conversation.

    The keywords are the fields of `LoopSettings` (see there), checked here: a handler table
    missing a reason raises `ValueError` naming it. A `Loop` holds no per-run state: one can
    run many conversations, also at the same time.

    `call_model(messages, **overrides)` returns a provider reply (an SDK object or the JSON
    dict); sync, or async for `arun`. `messages` is the live transcript: read it, do not keep
    or change it. The overrides it may receive: what `overrides` holds; `max_tokens` (the
    output ceiling to use, the `max_tokens` setting on every call when it is set, raised after
    a cut: pass it as your provider's own parameter); `tool_choice="none"` (the
    summing-up call: no tool may be called); an adapter's resume overrides
    (`poll_response_id` for OpenAI Responses background mode, `continuation_token` for Gemini).

    Streaming: `call_model` may return a stream instead of a reply: the SDK's stream object
    (`create(stream=True)`, anthropic's `messages.stream(...)`, google-genai's
    `generate_content_stream`), or any iterable of events (an async one in `arun`). The loop
    reads it to its end with the adapter's accumulator and acts on the whole reply; `on_event`
    gets each piece of visible text as a `TextDelta` while it arrives. A stream cut short is
    `unknown` (`stream_incomplete`), as `normalize_stream` says.

    Tools: a str return value is sent as is, anything else as JSON by pydantic's encoder
    (models, dataclasses, sets, datetimes, paths, enums, bytes...); a value it cannot encode
    gives an error result naming its type. When a model call fails and no retry is left
    (`retry=`, a `RetryPolicy`), the run raises `ModelCallError`, its `outcome` holding the
    transcript and tool runs so far and the exception as `__cause__`.

    Threads: in `arun` a sync `call_model` and sync tools run in daemon threads of their own
    (never a pool): a tool that hangs is left running past its timeout, and keeps neither the
    process nor `asyncio.run()` from ending. A tool's timeout counts from its start. A tool
    gets its own deep copy of the arguments. Anything a tool raises is its call's error result,
    except `KeyboardInterrupt` and `SystemExit`, which end the run as below and propagate.

    Controls, checked at the step boundaries: a `budget` before each model call (the run ends
    `budget_exceeded` without making the call past it); `compact_at_tokens` before each model
    call (`compact` runs once the conversation passes it); `before_model_call(ctx)` before each
    try of a model call and `before_tool_call(call, ctx)` before each tool call that runs
    (raising stops the run: `stopped_by_hook`); `approve(call)` before each tool call (a denied
    call is answered `denied: ...`; a deferred one ends the run `awaiting_approval`, resumed by
    `resume_loop`). The hooks and `approve` may be async in `arun`; their time is the run's.

    Cancellation: cancelling the task of `arun` cancels the tools it is running (an async tool
    at its next `await`; a sync tool already running in its thread cannot be stopped: it
    finishes in the background, its result dropped) and re-raises `CancelledError`. The
    messages passed in are never changed; the run's transcript, in which every call the model
    made has its result or a `cancelled` error result, is on the `outcome` of the last
    `LoopEnded` event `on_event` receives (termination `cancelled`). A `KeyboardInterrupt` or
    `SystemExit` (in `run` or `arun`) is reported the same way before it propagates.

    Example:
        >>> loop = stopkit.Loop(call_model, tools={"add": add}, max_turns=20)  # doctest: +SKIP
        >>> loop.run([{"role": "user", "content": "What is 2 + 3?"}]).text  # doctest: +SKIP
        '5'
    """

    @keywords_of(LoopSettings)
    def __init__(self, call_model: Callable[..., Any], **settings: Any) -> None:
        if not callable(call_model):
            raise TypeError(f"call_model must be callable, not {call_model!r}")
        checked = LoopSettings(**settings)
        if checked.handlers is None:
            checked = replace(checked, handlers=DEFAULT_HANDLERS)
        self.call_model = call_model
        self.settings = checked
        """The loop's settings, checked (read-only)."""
        self._async_call = is_async_callable(call_model)
        self.runner = ToolRunner(
            checked.tools or {}, checked.max_argument_bytes, checked.max_argument_depth
        )

    def _run(self, messages: Sequence[Any] | str, *, is_async: bool) -> Run:
        return Run(self.settings, self.runner, messages, is_async=is_async, origin=self)

    def run(self, messages: Sequence[Any] | str) -> Outcome:
        """Drive the conversation to its end with a sync `call_model`; tools run one by one."""
        if self._async_call:
            raise TypeError("call_model is async: use `await stopkit.arun_loop(...)`")
        return self._drive(self._run(messages, is_async=False))

    def _drive(self, run: Run) -> Outcome:
        """Carry out the requests of `run` with a sync `call_model`, to its outcome."""
        steps = drive(run)
        value: Any = None
        try:
            request = steps.send(None)
            while True:
                match request:
                    case CallModel():
                        try:
                            value = self.call_model(request.messages, **request.overrides)
                            if is_sync_stream(value):
                                value = read_stream(
                                    value, request.adapter, request.on_text, request.keep_events
                                )
                        except Exception as exc:  # the run decides: retry, or ModelCallError
                            request = steps.throw(exc)
                            continue
                        if inspect.isawaitable(value) or is_async_stream(value):
                            _discard(value)
                            raise TypeError(
                                "call_model returned an awaitable or an async stream: "
                                "use `await stopkit.arun_loop(...)`"
                            )
                    case RunHandler():
                        value = request.handler(request.context)
                        if inspect.isawaitable(value):
                            _discard(value)
                            raise TypeError(
                                f"the handler {request.handler!r} is async: "
                                "use `await stopkit.arun_loop()`"
                            )
                    case CallHook():
                        try:
                            value = request.hook(*request.args)
                        except Exception as exc:  # the run decides: stop by hook
                            request = steps.throw(exc)
                            continue
                        if inspect.isawaitable(value):
                            _discard(value)
                            raise TypeError(
                                f"{request.name} is async: use `await stopkit.arun_loop(...)`"
                            )
                    case Sleep():
                        time.sleep(request.seconds)
                        value = None
                request = steps.send(value)
        except StopIteration as done:
            outcome: Outcome = done.value
            return outcome
        except BaseException as exc:
            _raised_in(run, exc)
            raise
        finally:
            steps.close()

    async def arun(self, messages: Sequence[Any] | str) -> Outcome:
        """Drive the conversation to its end; `call_model`, handlers and tools may be async.

        The tool calls of one turn run concurrently (sync tools in worker threads). On
        cancellation see the class docstring: the transcript is on the `LoopEnded` event.
        """
        return await self._adrive(self._run(messages, is_async=True))

    async def _adrive(self, run: Run) -> Outcome:
        """Carry out the requests of `run` (awaiting what is async), to its outcome."""
        import asyncio  # here, not at module level: `import stopkit` stays light

        steps = drive(run)
        value: Any = None
        try:
            request = steps.send(None)
            while True:
                match request:
                    case CallModel():
                        ok, value = await self._acall(request)
                        if not ok:  # the run decides: retry, or ModelCallError
                            request = steps.throw(value)
                            continue
                    case RunHandler():
                        value = request.handler(request.context)
                        if inspect.isawaitable(value):
                            value = await value
                    case CallHook():
                        try:
                            value = request.hook(*request.args)
                            if inspect.isawaitable(value):
                                value = await asyncio.wait_for(value, request.timeout)
                        except Exception as exc:  # the run decides: stop by hook, or deadline
                            request = steps.throw(exc)
                            continue
                    case Sleep():
                        await asyncio.sleep(request.seconds)
                        value = None
                request = steps.send(value)
        except StopIteration as done:
            outcome: Outcome = done.value
            return outcome
        except BaseException as exc:
            _raised_in(run, exc)
            raise
        finally:
            steps.close()

    async def _acall(self, request: CallModel) -> Captured:
        """Make the model call of `request`, reading a stream it returns; return the outcome.

        What it returned (a `Streamed` for a stream), or the `Exception` it raised. A sync
        `call_model`, and the reading of a sync stream, run in a thread of their own, so the
        event loop goes on meanwhile; the text deltas then reach `on_event` on the loop.
        """
        import asyncio

        call_model, messages, overrides = self.call_model, request.messages, request.overrides
        adapter, on_text, keep = request.adapter, request.on_text, request.keep_events
        if on_text is not None:
            loop, report = asyncio.get_running_loop(), on_text

            def on_text_threaded(text: str) -> None:
                loop.call_soon_threadsafe(report, text)
        else:
            on_text_threaded = None  # type: ignore[assignment]

        def read(value: Any) -> Any:  # in a thread
            if is_sync_stream(value):
                return read_stream(value, adapter, on_text_threaded, keep)
            return value

        try:
            if self._async_call:
                value = await call_model(messages, **overrides)
            else:
                ok, value = await acall_in_thread(
                    lambda: read(call_model(messages, **overrides)), None
                )
                if not ok:
                    return _raised(value)
                if inspect.isawaitable(value):  # a sync callable returning a coroutine
                    value = await value
            if is_async_stream(value):
                value = await aread_stream(value, adapter, on_text, keep)
            elif is_sync_stream(value):  # an async call_model returning a sync stream
                ok, value = await acall_in_thread(lambda: read(value), None)
                if not ok:
                    return _raised(value)
        except Exception as exc:
            return False, exc
        return True, value


def _raised(error: BaseException) -> Captured:
    """Return a failed call's outcome; an interrupt (not an `Exception`) ends the run at once."""
    if not isinstance(error, Exception):
        raise error
    return False, error


def _raised_in(run: Run, error: BaseException) -> None:
    """Report a run that raised `error`: cut short, or failed (to its controls).

    A cancellation, `KeyboardInterrupt` or `SystemExit` cuts the run short (its `LoopEnded`
    event); any other exception (a handler that raised; not a `ModelCallError`, raised once
    the run ended) is the run's failure, told to its controls (`failed`: telemetry).
    """
    if isinstance(error, Exception):
        if not run.ended:
            run.controls.failed(error)
        return
    try:
        run.cut_short()
    except Exception:  # an on_event that raises must not replace the cancellation
        logger.exception("stopkit: reporting a run cut short failed")


def _discard(awaitable: Any) -> None:
    close = getattr(awaitable, "close", None)
    if close is not None:
        close()  # no "coroutine was never awaited" warning


@keywords_of(LoopSettings)
def run_loop(
    call_model: Callable[..., Any], messages: Sequence[Any] | str, **settings: Any
) -> Outcome:
    """Run an agent loop to its end: call, read why the model stopped, act on it, repeat.

    Args:
        call_model: `call_model(messages, **overrides)` returning a provider reply (an SDK object
            or the JSON dict) or a stream of it (an SDK stream, an iterable of events: see
            `Loop`). Overrides it may receive: whatever `overrides=` holds; `max_tokens`
            (the output ceiling to use: `max_tokens=` on every call, raised after a
            truncation); `tool_choice="none"` (the
            summing-up call: no tool may be called); an adapter's resume overrides.
        messages: The starting messages, in the provider's format; or a `str`, sent as one
            user message (in the adapter's shape when `adapter=` is given, else
            `{"role": "user", "content": ...}` until the first reply says which adapter).
        **settings: The fields of `LoopSettings` (see there): `tools`, `handlers` (default
            `DEFAULT_HANDLERS`), `adapter` (default: detected from the first reply),
            `overrides`, `max_turns` (100), `deadline` (seconds), `tool_timeout` (seconds),
            `max_pauses` (10), `max_tokens`, `max_tokens_cap` (32768), `compact`,
            `loop_threshold` (3), `loop_window` (10), `synthesize_on_empty_final`, `on_event`,
            `on_escalate`, `retry` (a `RetryPolicy`; default none), `max_argument_bytes`
            (1 MB), `max_argument_depth` (64), `journal` and `run_id` (durable runs), and the
            controls: `budget` (a `Budget`), `compact_at_tokens` and `estimate_tokens`,
            `before_model_call`, `before_tool_call`, `approve` and `approvals`.

    Raises:
        ModelCallError: `call_model` raised and no retry was left; the run so far is on its
            `outcome`, the exception is its `__cause__`.
        JournalError: the run's journal cannot be used as asked (`JournalMismatch`: a replayed
            step's request changed), also when `call_model` raised it (a DBOS model step).

    Returns:
        The `Outcome`: text, termination, last stop, turns, transcript, escalation, tool runs.

    Example:
        >>> outcome = stopkit.run_loop(call_model, [{"role": "user", "content": "Hi"}],
        ...     tools={"get_weather": get_weather})  # doctest: +SKIP
        >>> outcome.termination, outcome.text  # doctest: +SKIP
        (<Termination.COMPLETED: 'completed'>, 'It is 21 °C in Paris.')
    """
    return Loop(call_model, **settings).run(messages)


@keywords_of(LoopSettings)
async def arun_loop(
    call_model: Callable[..., Any], messages: Sequence[Any] | str, **settings: Any
) -> Outcome:
    """Run an agent loop to its end, asynchronously; the calls of one turn run concurrently.

    Takes the same arguments as `run_loop`; `call_model`, tools and handlers may be sync or async.

    Example:
        >>> outcome = await stopkit.arun_loop(call_model, messages, tools=tools)  # doctest: +SKIP
    """
    return await Loop(call_model, **settings).arun(messages)


def resume_loop(outcome: Outcome, approvals: Mapping[str, bool | str]) -> Outcome:
    """Continue a run awaiting approval, deciding each pending call: True, False or a str.

    The run goes on exactly where it paused, with the loop it ran in: the paused turn's reply
    is handled again without calling the model, the calls that ran keep their results, an
    approved call runs, a denied one is answered `denied: <reason>` ("not approved" for
    False). `approvals` must decide every call of `outcome.pending_calls` and nothing else
    (`ValueError` naming the ids). The resumed run has a fresh `deadline`. A journaled run is
    run again under its `run_id`, the journal replaying it up to the paused turn.

    An outcome resumes once: a second resume (also a concurrent one, from another thread or
    task) raises `AlreadyResumed` before anything runs, so an approved call runs once.

    Example:
        >>> outcome = stopkit.run_loop(call_model, prompt, tools=tools,
        ...                            approve=lambda call: stopkit.loop.Defer())  # doctest: +SKIP
        >>> [call.name for call in outcome.pending_calls]  # doctest: +SKIP
        ['transfer']
        >>> stopkit.resume_loop(outcome, {outcome.pending_calls[0].id: True}).text  # doctest: +SKIP
        'Sent.'
    """
    paused, decisions = paused_of(outcome, approvals)
    loop: Loop = paused.run.origin
    if loop._async_call:  # refused before the run is built: it would start its telemetry
        raise TypeError("call_model is async: use `await stopkit.aresume_loop(...)`")
    return loop._drive(restore(paused, decisions, is_async=False))


async def aresume_loop(outcome: Outcome, approvals: Mapping[str, bool | str]) -> Outcome:
    """Continue a run awaiting approval, asynchronously: `resume_loop` for `arun_loop` runs.

    Example:
        >>> await stopkit.aresume_loop(outcome, {"call_1": "too costly"})  # doctest: +SKIP
    """
    paused, decisions = paused_of(outcome, approvals)
    loop: Loop = paused.run.origin
    return await loop._adrive(restore(paused, decisions, is_async=True))
