"""Raw HTTP responses of a wrapped client (`with_raw_response`, `with_streaming_response`).

The SDK returns its response object instead of the reply; the reply is what `parse()` gives,
so `parse()` is watched: the reply it returns is reported (once, however often it is called),
a stream it returns is a watched stream. `parse(to=...)` (another type than the reply) and the
raw bytes (`read`, `text`, `json`, `iter_lines`, ...) are the SDK's own, unwatched; a response
dropped without `parse()` tells the call's telemetry observer so (`unread`).
"""

from __future__ import annotations

import contextlib
import inspect
import time
from typing import Any

from stopkit._forms import events_of, stream_form
from stopkit._wrap._observe import CURRENT, CallObserver
from stopkit._wrap._proxy import Passthrough
from stopkit._wrap._report import Settings, finish_reason_stops, stops_of
from stopkit._wrap._streams import Watch, stream_proxy

__all__ = ["ResponseManagerProxy", "ResponseProxy", "watch_result"]


def watch_result(
    result: Any,
    adapter: str,
    settings: Settings,
    *,
    streaming: bool,
    call: CallObserver | None = None,
    awaited: bool = False,
    detect: bool = False,
) -> Any:
    """Return what a watched call returns: a reply (reported), or an SDK stream, watched.

    A stream is one asked for (`streaming`) or one of the forms `stopkit._forms` lists; a
    boto3 response dict is returned itself, its stream watched in place. `call`: the call's
    telemetry observer, when the result comes after the call returned; `awaited`: the call
    was awaited (its stream is an async one); `detect`: the reply's adapter is the one that
    recognizes it (for a stream, the first wire event), `adapter` while none does.
    """
    form = stream_form(result)
    if not streaming and form is None:
        settings.report(stops_of(result, None if detect else adapter), result, call=call)
        return result
    if form is not None:
        adapter = form.adapter or adapter
        detect = detect or form.adapter is None
    watch = Watch(adapter, settings, None if form is None else form.wire, call, detect=detect)
    proxy = stream_proxy(events_of(result, form), watch, awaited)
    if form is None or form.key is None:
        return proxy
    result[form.key] = proxy  # boto3's dict, its stream watched where the caller reads it
    watch.reply = result
    return result


def report_failure(
    exc: BaseException, adapter: str, settings: Settings, call: CallObserver | None = None
) -> None:
    """Report the completion an openai finish-reason error carries; the caller re-raises `exc`.

    With its reason in `raise_on`, the stopkit error is raised instead, from `exc`.
    """
    stops = finish_reason_stops(exc, adapter)
    if stops is not None:
        settings.report(stops, getattr(exc, "completion", None), cause=exc, call=call)
    elif call is not None:  # parse() failed after the call returned: the call failed
        call.failed(exc)


class ResponseProxy(Passthrough):
    """An SDK raw response whose `parse()` is watched; every other attribute as is."""

    def __init__(
        self,
        response: Any,
        adapter: str,
        settings: Settings,
        streaming: bool,
        call: CallObserver | None = None,
    ) -> None:
        super().__init__(response)
        self._adapter = adapter
        self._settings = settings
        self._streaming = streaming
        self._parsed: list[Any] = []  # the watched result, once parsed
        self._call = call or CURRENT.get()  # the telemetry observer of the call made
        self._returned_ns = time.time_ns() if self._call is not None else 0

    def __del__(self) -> None:
        # Never parsed (read as bytes, `parse(to=...)`, only its headers looked at): the call's
        # telemetry still ends, as of when it returned, or its span would stay open for good.
        call = self._call
        if call is not None and not self._parsed:
            with contextlib.suppress(Exception):  # nothing may raise out of a finalizer
                call.unread(self._returned_ns)

    def _watched(self, result: Any, awaited: bool = False) -> Any:
        if not self._parsed:
            self._parsed.append(
                watch_result(
                    result,
                    self._adapter,
                    self._settings,
                    streaming=self._streaming,
                    call=self._call,
                    awaited=awaited,
                )
            )
        return self._parsed[0]

    def parse(self, **kwargs: Any) -> Any:
        """Return the SDK's parsed reply (or stream), watched; `parse(to=...)` is unwatched."""
        if kwargs:
            return self.__wrapped__.parse(**kwargs)
        try:
            result = self.__wrapped__.parse()
        except Exception as exc:
            report_failure(exc, self._adapter, self._settings, self._call)
            raise
        if inspect.isawaitable(result):  # an async response: parse() is a coroutine
            return self._aparse(result)
        return self._watched(result)

    async def _aparse(self, pending: Any) -> Any:
        try:
            result = await pending
        except Exception as exc:
            report_failure(exc, self._adapter, self._settings, self._call)
            raise
        return self._watched(result, awaited=True)


class ResponseManagerProxy(Passthrough):
    """`with_streaming_response.<method>(...)`: a context manager giving a watched response."""

    def __init__(self, manager: Any, adapter: str, settings: Settings, streaming: bool) -> None:
        super().__init__(manager)
        self._adapter = adapter
        self._settings = settings
        self._streaming = streaming
        self._call = CURRENT.get()  # the telemetry observer of the call made

    def _response(self, response: Any) -> ResponseProxy:
        return ResponseProxy(
            response, self._adapter, self._settings, self._streaming, self._call
        )

    def __enter__(self) -> ResponseProxy:
        return self._response(self.__wrapped__.__enter__())

    def __exit__(self, *exc: Any) -> None:
        self.__wrapped__.__exit__(*exc)

    async def __aenter__(self) -> ResponseProxy:
        return self._response(await self.__wrapped__.__aenter__())

    async def __aexit__(self, *exc: Any) -> None:
        await self.__wrapped__.__aexit__(*exc)
