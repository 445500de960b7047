"""The one reader of the keyboard while a turn (or a slash command) runs.

prompt_toolkit owns the keyboard at the prompt; from Enter until the next prompt,
`TurnKeys` does, and every consumer goes through it: Esc / Ctrl-C cancel the turn,
questions (approvals, y/N) take their answer from it, and everything else is
type-ahead, kept line by line with its Enter so each line becomes its own next input.
Terminal replies never become text (see `keydecode`)."""

from __future__ import annotations

import os
import select
import signal
import sys
import termios
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType

from slop.ui.keydecode import Key, KeyDecoder

POLL_SECONDS = 0.04  # also how long a lone Esc waits for the rest of a sequence
STALLED_SEQUENCE_SECONDS = 0.5  # an escape sequence unfinished this long is dropped


@dataclass
class Question:
    """What a question accepts: single keys (answering at once, no Enter needed) and
    whole words typed with Enter, both mapping to an answer word."""

    keys: dict[str, str]  # "y" -> "yes"
    default: str  # Enter alone, Esc
    on_ctrl_c: str  # e.g. "cancel" for approvals, "no" for y/N questions
    answer: str = ""
    done: threading.Event = field(default_factory=threading.Event)

    def rest_of(self, answer: str, key: str) -> str:
        """What may follow the single key as the user types the whole word ("es" after "y")."""
        return answer[len(key) :] if answer.startswith(key) else ""


class TurnKeys:
    """Context manager active while an input runs. `paused()` hands the terminal over
    (to $EDITOR, a pager); `ask()` asks a question through the same reader."""

    def __init__(
        self,
        cancel: threading.Event,
        on_cancel: Callable[[str], None],
        on_queued: Callable[[str], None] = lambda line: None,
        fd: int | None = None,
    ) -> None:
        self.cancel = cancel
        self.on_cancel = on_cancel
        self.on_queued = on_queued
        self.queued: deque[str] = deque()  # whole lines typed with Enter, in order
        self.partial = ""  # typed without Enter yet: the next prompt's starting text
        if fd is None and sys.stdin.isatty():
            fd = sys.stdin.fileno()
        self._fd = fd
        self._saved: list | None = None  # type: ignore[type-arg]
        self._decoder = KeyDecoder()
        self._stop = threading.Event()
        self._paused = False
        self._reading = threading.Lock()  # held while the thread may read the fd
        self._state = threading.Lock()  # queued, partial, question, swallow
        self._question: Question | None = None
        self._swallow = ""  # the rest of a word whose first key answered a question
        self._swallowed = ""
        self._swallow_enter = False
        self._thread: threading.Thread | None = None
        self._old_sigint: object = None

    @property
    def typed(self) -> str:
        return self.partial

    def __enter__(self) -> TurnKeys:
        if threading.current_thread() is threading.main_thread():
            self._old_sigint = signal.signal(signal.SIGINT, self._sigint)
        if self._fd is not None:
            self._saved = termios.tcgetattr(self._fd)
            self._raw()
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
        if self._old_sigint is not None:
            signal.signal(signal.SIGINT, self._old_sigint)  # type: ignore[arg-type]

    def _raw(self) -> None:
        """No echo, no line editing, and Ctrl-C as a key (so a question can see it);
        output processing stays on, so printed newlines still return the carriage."""
        assert self._fd is not None and self._saved is not None
        mode = list(self._saved)
        mode[0] &= ~(termios.ICRNL | termios.IXON)
        mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN)
        mode[6] = list(mode[6])
        mode[6][termios.VMIN] = 1
        mode[6][termios.VTIME] = 0
        termios.tcsetattr(self._fd, termios.TCSANOW, mode)

    # ---- cancelling -----------------------------------------------------------------
    def _sigint(self, signum: int, frame: FrameType | None) -> None:
        self._ctrl_c()

    def _request_cancel(self, key: str) -> None:
        if not self.cancel.is_set():
            self.cancel.set()
            self.on_cancel(key)

    def _ctrl_c(self) -> None:
        with self._state:
            question = self._question
        if question is not None:
            self._answer(question, question.on_ctrl_c)
            if question.on_ctrl_c == "cancel":
                self._request_cancel("Ctrl-C")
            return
        self._request_cancel("Ctrl-C")

    # ---- reading --------------------------------------------------------------------
    def _watch(self) -> None:
        assert self._fd is not None
        last_data = time.monotonic()
        while not self._stop.is_set():
            with self._reading:
                if self._paused:
                    data = b""
                    ready = False
                else:
                    try:
                        ready = bool(select.select([self._fd], [], [], POLL_SECONDS)[0])
                        data = os.read(self._fd, 1024) if ready else b""
                    except OSError:  # the terminal hung up: nobody is typing any more
                        return
            if self._paused:
                self._stop.wait(POLL_SECONDS)
                continue
            if ready and not data:
                return  # the terminal is gone
            if data:
                last_data = time.monotonic()
                keys = self._decoder.feed(data)
            else:
                keys = self._decoder.lone_esc()
                if self._decoder.pending and time.monotonic() - last_data > STALLED_SEQUENCE_SECONDS:
                    self._decoder.drop_partial()
            for key in keys:
                self.handle(key)

    def handle(self, key: Key) -> None:
        """One key, to whoever owns it now: a question, the type-ahead, or cancelling."""
        if key.kind == "ctrl-c":
            self._ctrl_c()
            return
        with self._state:
            if self._swallowing(key):
                return
            question = self._question
        if question is not None:
            self._to_question(question, key)
            return
        if key.kind == "esc":
            self._request_cancel("Esc")
            return
        self._type_ahead(key)

    def _swallowing(self, key: Key) -> bool:
        """After "y" answered a question, "es" and Enter typed at full speed belong to it."""
        if key.kind == "enter" and self._swallow_enter:
            self._swallow = ""
            self._swallow_enter = False
            self._swallowed = ""
            return True
        if key.kind == "text" and self._swallow and self._swallow.startswith(key.text.lower()):
            self._swallow = self._swallow[len(key.text) :]
            self._swallowed += key.text
            return True
        if self._swallowed:  # it was not the word after all: the keys are type-ahead
            self.partial += self._swallowed
        self._swallow, self._swallowed, self._swallow_enter = "", "", False
        return False

    def _to_question(self, question: Question, key: Key) -> None:
        if key.kind == "esc" or key.kind == "enter":
            self._answer(question, question.default)
        elif key.kind == "text":
            first = key.text[0].lower()
            answer = question.keys.get(first)
            if answer is None:
                return  # not an answer: ignored, the question stays
            with self._state:
                self._swallow = answer[1:]
                self._swallow_enter = True
                rest = key.text[1:].lower()
                if rest and self._swallow.startswith(rest):
                    self._swallow = self._swallow[len(rest) :]
                elif rest:
                    self.partial += key.text[1:]
                    self._swallow = ""
            self._answer(question, answer)

    def _answer(self, question: Question, answer: str) -> None:
        with self._state:
            if self._question is question:
                self._question = None
        if not question.done.is_set():
            question.answer = answer
            question.done.set()

    def _type_ahead(self, key: Key) -> None:
        line = None
        with self._state:
            if key.kind in ("text", "paste"):
                self.partial += key.text
            elif key.kind == "backspace":
                self.partial = self.partial[:-1]
            elif key.kind == "kill-line":
                self.partial = ""
            elif key.kind == "enter" and self.partial.strip():
                line, self.partial = self.partial, ""
                self.queued.append(line)
        if line is not None:
            self.on_queued(line)

    # ---- questions and hand-overs ---------------------------------------------------
    def ask(self, question: Question) -> str:
        """Wait for the answer to `question` (already shown). Keys typed before it was
        asked stay type-ahead: a queued command never answers a question."""
        if self._fd is None:
            return read_line_answer(question)
        with self._state:
            self._question = question
        while not question.done.wait(POLL_SECONDS):  # polling lets signal handlers run
            if self._stop.is_set():
                self._answer(question, question.default)
        return question.answer

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Give the terminal back (cooked mode) to another program, then take it again."""
        if self._fd is None or self._saved is None:
            yield
            return
        self._paused = True
        with self._reading:  # the thread is out of select/read from here on
            termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)
        try:
            yield
        finally:
            self._raw()
            self._paused = False


def read_line_answer(question: Question) -> str:
    """Without a terminal (tests through a pipe): one line from stdin."""
    try:
        text = input().strip().lower()
    except EOFError:
        return question.default
    if not text:
        return question.default
    for key, answer in question.keys.items():
        if text in (key, answer):
            return answer
    return question.default
