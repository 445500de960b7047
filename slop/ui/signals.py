"""SIGTERM and SIGHUP: end the running turn the way Esc does, then exit.

Without this, Python dies on SIGTERM at once and a running `execute_bash` command (in
its own process group) outlives slop. With it, a signal during a turn sets the turn's
cancel event, which kills the tool process groups and stops the stream; the orchestrator
stores what it has (the partial reply marked interrupted, cancelled tool results), and
the caller exits once the turn has returned. A signal while idle ends the run too.
Nothing is printed from the handler (it may interrupt a write in progress)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from slop.errors import Terminated

EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class ExitSignals:
    """Installed around the whole run (main thread only); `turn(cancel)` around each turn.

    `on_idle` runs for a signal outside a turn (the REPL uses it to leave its prompt,
    whose event loop would swallow an exception); without it, `Terminated` is raised."""

    def __init__(self, on_idle: Callable[[], None] | None = None) -> None:
        self.on_idle = on_idle
        self.received: int | None = None
        self._cancel: threading.Event | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> ExitSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in EXIT_SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    @contextmanager
    def turn(self, cancel: threading.Event) -> Iterator[None]:
        """While the block runs, a signal cancels `cancel` instead of raising."""
        self._cancel = cancel
        if self.received is not None:
            cancel.set()  # arrived just before the turn began
        try:
            yield
        finally:
            self._cancel = None

    @property
    def name(self) -> str:
        return signal.Signals(self.received).name if self.received is not None else ""

    @property
    def exit_code(self) -> int:
        """The shell convention for "ended by a signal": 128 + its number; 0 if none came."""
        return 128 + self.received if self.received is not None else 0

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        leaving = self.received is not None  # a signal came before: the run is on its way out
        self.received = signum
        if signum == signal.SIGHUP:
            _detach_from_terminal()
        if self._cancel is not None:
            self._cancel.set()
        elif leaving:
            # e.g. the terminal's SIGHUP after the SIGTERM that ended the turn: raising now
            # would break the way out wherever it is (a thread being started, the ledger
            # being closed) and end the run with a traceback instead of 128 + the signal
            return
        elif self.on_idle is not None:
            self.on_idle()
        else:
            raise Terminated(signum)


def _detach_from_terminal() -> None:
    """The terminal is gone: writes to it would fail with EIO, so the rest of the run
    (storing the partial reply, closing the ledger) writes to /dev/null instead. Pipes
    and files are kept: a batch run's final line still reaches its reader."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd):
                os.dup2(null, fd)
        except OSError:
            pass
    os.close(null)
