"""The keyboard while a turn runs, on a real pseudo-terminal: Esc and Ctrl-C cancel,
questions take their answer from the keys, type-ahead is kept line by line, and the
terminal is handed back as it was found."""

from __future__ import annotations

import os
import termios
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest

from slop.ui.keys import Question, TurnKeys


@dataclass
class Terminal:
    """The user's side (`master`) and slop's side (`slave`) of a pty."""

    master: int
    slave: int
    cancelled: list[str] = field(default_factory=list)
    queued: list[str] = field(default_factory=list)

    def type(self, data: bytes) -> None:
        os.write(self.master, data)

    def keys(self) -> TurnKeys:
        return TurnKeys(threading.Event(), self.cancelled.append, self.queued.append, fd=self.slave)


@pytest.fixture
def term() -> Iterator[Terminal]:
    master, slave = os.openpty()
    yield Terminal(master, slave)
    os.close(master)
    os.close(slave)


def until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "the key reader did not get there"
        time.sleep(0.01)


def ask(keys: TurnKeys, question: Question, typed: bytes, term: Terminal) -> str:
    """Ask `question` as an approval does (from another thread), type `typed`, return the answer."""
    reply: list[str] = []
    asking = threading.Thread(target=lambda: reply.append(keys.ask(question)))
    asking.start()
    until(lambda: keys._question is question)  # asked: keys from here on answer it
    term.type(typed)
    asking.join(timeout=5)
    assert reply, "the question was not answered"
    return reply[0]


def yes_no() -> Question:
    return Question(keys={"y": "yes", "n": "no", "a": "always"}, default="no", on_ctrl_c="cancel")


def test_esc_cancels_the_turn_once(term: Terminal) -> None:
    with term.keys() as keys:
        term.type(b"\x1b")
        until(keys.cancel.is_set)
        term.type(b"\x1b")
        time.sleep(0.2)  # a second Esc while cancelling adds nothing
    assert term.cancelled == ["Esc"]


def test_ctrl_c_cancels_the_turn(term: Terminal) -> None:
    with term.keys() as keys:
        term.type(b"\x03")
        until(keys.cancel.is_set)
    assert term.cancelled == ["Ctrl-C"]


def test_an_arrow_key_or_a_terminal_reply_does_not_cancel(term: Terminal) -> None:
    with term.keys() as keys:
        term.type(b"\x1b[A\x1b[12;40R\x1b[Iok")
        until(lambda: keys.partial == "ok")
    assert term.cancelled == [] and not keys.cancel.is_set()


def test_lines_typed_during_a_turn_are_queued_with_their_enter(term: Terminal) -> None:
    with term.keys() as keys:
        term.type(b"/context show\rfix the tets\x7f\x7fsts\rhalf a li")
        until(lambda: len(term.queued) == 2 and keys.partial == "half a li")
    assert term.queued == ["/context show", "fix the tests"]
    assert list(keys.queued) == term.queued


def test_ctrl_u_clears_the_unfinished_line_and_a_blank_enter_queues_nothing(term: Terminal) -> None:
    with term.keys() as keys:
        term.type(b"never mind\x15\r   \rkept")
        until(lambda: keys.partial.endswith("kept"))
    assert term.queued == []
    assert keys.partial == "   kept"


def test_a_paste_is_type_ahead_not_keys(term: Terminal) -> None:
    with term.keys() as keys:
        term.type(b"\x1b[200~line one\x1b\rline two\x1b[201~")
        until(lambda: "line two" in keys.partial)
    assert not keys.cancel.is_set()  # the Esc inside the paste is text, not a cancel
    assert term.queued == [] and keys.partial.startswith("line one")


@pytest.mark.parametrize(
    ("typed", "answer", "left"),
    [(b"y", "yes", ""), (b"a", "always", ""), (b"\r", "no", ""), (b"\x1b", "no", ""), (b"yes\r", "yes", "")],
)
def test_a_question_takes_its_answer_from_the_keys(term: Terminal, typed: bytes, answer: str, left: str) -> None:
    with term.keys() as keys:
        reply = ask(keys, yes_no(), typed, term)
        time.sleep(0.1)  # the rest of a typed word is swallowed, not queued
    assert reply == answer
    assert keys.partial == left and term.queued == []
    assert not keys.cancel.is_set()  # Esc answers the question, it does not cancel the turn


def test_ctrl_c_at_an_approval_cancels_the_turn_and_at_a_y_n_question_says_no(term: Terminal) -> None:
    with term.keys() as keys:
        for on_ctrl_c, cancels in (("no", False), ("cancel", True)):
            asked = Question(keys={"y": "yes"}, default="no", on_ctrl_c=on_ctrl_c)
            assert ask(keys, asked, b"\x03", term) == on_ctrl_c
            assert keys.cancel.is_set() is cancels


def test_keys_typed_before_the_question_stay_type_ahead(term: Terminal) -> None:
    with term.keys() as keys:
        term.type(b"y")
        until(lambda: keys.partial == "y")
        reply = ask(keys, yes_no(), b"n", term)
    assert reply == "no" and keys.partial == "y"  # the early "y" never approved anything


def test_the_terminal_is_raw_during_the_turn_and_restored_after(term: Terminal) -> None:
    before = termios.tcgetattr(term.slave)
    with term.keys():
        during = termios.tcgetattr(term.slave)
        assert not during[3] & termios.ECHO and not during[3] & termios.ICANON
        assert not during[3] & termios.ISIG  # Ctrl-C is a key a question can see
        assert during[1] & termios.OPOST  # printed newlines still return the carriage
    assert termios.tcgetattr(term.slave) == before


def test_paused_hands_the_cooked_terminal_to_an_editor_and_takes_it_back(term: Terminal) -> None:
    before = termios.tcgetattr(term.slave)
    with term.keys() as keys:
        with keys.paused():
            assert termios.tcgetattr(term.slave) == before  # the editor gets the user's own settings
            term.type(b"typed in the editor\n")
            time.sleep(0.2)
            assert keys.partial == ""  # not read by slop while paused
            os.read(term.slave, 100)  # the editor reads it
        assert not termios.tcgetattr(term.slave)[3] & termios.ECHO
        term.type(b"after")
        until(lambda: keys.partial == "after")


def test_without_a_terminal_a_question_reads_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    keys = TurnKeys(threading.Event(), lambda key: None, fd=None)
    for line, answer in (("always\n", "always"), ("Y\n", "yes"), ("maybe\n", "no"), ("", "no")):
        monkeypatch.setattr("sys.stdin", io.StringIO(line))
        assert keys.ask(yes_no()) == answer
