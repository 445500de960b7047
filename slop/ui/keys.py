"""Watching the keyboard while a turn runs: Esc cancels, Ctrl-C cancels, other keys
typed meanwhile are kept for the next prompt."""

from __future__ import annotations

import os
import select
import signal
import sys
import termios
import threading
import tty
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

ESC = 0x1B
SEQUENCE_GAP = 0.03  # bytes arriving this soon after Esc are an arrow or function key


class TurnKeys:
    """Context manager active during a turn. `paused()` hands the terminal back, e.g.
    to ask for an approval."""

    def __init__(self, cancel: threading.Event, on_cancel: Callable[[str], None]) -> None:
        self.cancel = cancel
        self.on_cancel = on_cancel
        self.typed = ""
        self._fd = sys.stdin.fileno() if sys.stdin.isatty() else None
        self._saved: list | None = None  # type: ignore[type-arg]
        self._stop = threading.Event()
        self._pause = threading.Event()
        self._idle = threading.Event()
        self._thread: threading.Thread | None = None
        self._old_sigint: object = None

    def __enter__(self) -> TurnKeys:
        self._old_sigint = signal.signal(signal.SIGINT, self._sigint)
        if self._fd is not None:
            self._saved = termios.tcgetattr(self._fd)
            tty.setcbreak(self._fd)
            self._thread = threading.Thread(target=self._watch, name="slop-keys", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
        if self._fd is not None and self._saved is not None:
            try:
                termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)
            except termios.error:
                pass  # the terminal hung up (SIGHUP): nothing left to restore
        signal.signal(signal.SIGINT, self._old_sigint)  # type: ignore[arg-type]

    def _sigint(self, signum: int, frame: FrameType | None) -> None:
        self._request_cancel("Ctrl-C")

    def _request_cancel(self, key: str) -> None:
        if not self.cancel.is_set():
            self.cancel.set()
            self.on_cancel(key)

    def _watch(self) -> None:
        assert self._fd is not None
        while not self._stop.is_set():
            if self._pause.is_set():
                self._idle.set()
                self._stop.wait(0.02)
                continue
            self._idle.clear()
            ready, _, _ = select.select([self._fd], [], [], 0.05)
            if not ready or self._pause.is_set():
                continue
            data = os.read(self._fd, 1)
            if not data:
                return
            if data[0] == ESC:
                more, _, _ = select.select([self._fd], [], [], SEQUENCE_GAP)
                if more:
                    os.read(self._fd, 16)  # an escape sequence (arrow key): ignore it
                else:
                    self._request_cancel("Esc")
            elif data.isascii() and data.decode().isprintable():
                self.typed += data.decode()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Give the terminal back (cooked mode) for a question, then resume watching."""
        if self._fd is None or self._saved is None:
            yield
            return
        self._pause.set()
        self._idle.wait(0.2)
        termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)
        try:
            yield
        finally:
            tty.setcbreak(self._fd)
            self._pause.clear()
