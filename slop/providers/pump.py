"""Run a blocking SDK stream on a worker thread so the caller can cancel at once.

The SDKs block while waiting for bytes; Esc must not. The worker feeds events into a
queue; the calling thread drains it (so rendering stays on the caller's thread),
watches the cancel event every 50 ms, and returns the partial reply when cancelled."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any, Protocol

from slop.errors import ProviderError
from slop.providers.base import EventCallback, ProviderReply, StreamEvent

POLL_SECONDS = 0.05
Emit = Callable[[StreamEvent], None]


class Accumulating(Protocol):
    text: str

    def reply(self, cancelled: bool) -> ProviderReply: ...


class _Done:
    pass


class _Failure:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def pump(
    produce: Callable[[Emit, threading.Event], None],
    acc: Accumulating,
    cancel: threading.Event,
    on_event: EventCallback,
    map_error: Callable[[BaseException], ProviderError],
) -> ProviderReply:
    items: queue.Queue[Any] = queue.Queue()
    stop = threading.Event()

    def work() -> None:
        try:
            produce(items.put, stop)
            items.put(_Done())
        except BaseException as exc:
            items.put(_Failure(exc))

    threading.Thread(target=work, name="slop-provider-stream", daemon=True).start()
    while True:
        if cancel.is_set():
            stop.set()
            return acc.reply(cancelled=True)
        try:
            item = items.get(timeout=POLL_SECONDS)
        except queue.Empty:
            continue
        if isinstance(item, _Done):
            return acc.reply(cancelled=False)
        if isinstance(item, _Failure):
            if cancel.is_set():
                return acc.reply(cancelled=True)
            error = map_error(item.exc)
            if not error.partial:
                error.partial = acc.text
            raise error from item.exc
        on_event(item)
