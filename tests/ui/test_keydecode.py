"""Terminal bytes -> keys: terminal replies and escape sequences never become text."""

from __future__ import annotations

import threading

import pytest

from slop.ui.keydecode import Key, KeyDecoder
from slop.ui.keys import Question, TurnKeys


def decode(*chunks: bytes) -> list[Key]:
    decoder = KeyDecoder()
    keys: list[Key] = []
    for chunk in chunks:
        keys += decoder.feed(chunk)
    return keys + decoder.lone_esc()


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        ((b"ab\r",), [Key("text", "ab"), Key("enter")]),
        ((b"\x1b[9;1Rx",), [Key("text", "x")]),  # a cursor-position report
        ((b"\x1b[9;", b"1R", b"y"), [Key("text", "y")]),  # ... split across reads
        ((b"\x1b[I\x1b[Oz",), [Key("text", "z")]),  # focus in / out
        ((b"\x1b[A\x1bOPq",), [Key("text", "q")]),  # an arrow key, F1
        ((b"\x1b[200~one\rtwo\x1b[201~\r",), [Key("paste", "one\ntwo"), Key("enter")]),
        ((b"\x1b",), [Key("esc")]),  # a lone Esc, once nothing follows
        ((b"\x03\x7f\x15",), [Key("ctrl-c"), Key("backspace"), Key("kill-line")]),
        (("é€".encode()[:3], "é€".encode()[3:]), [Key("text", "é"), Key("text", "€")]),
    ],
)
def test_decoding(chunks: tuple[bytes, ...], expected: list[Key]) -> None:
    assert decode(*chunks) == expected


def test_a_stalled_sequence_is_dropped_not_typed() -> None:
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b[12;") == []
    assert decoder.pending == "sequence"
    decoder.drop_partial()
    assert decoder.feed(b"ok") == [Key("text", "ok")]


def _keys() -> TurnKeys:
    return TurnKeys(threading.Event(), on_cancel=lambda key: None, fd=None)


def test_type_ahead_keeps_each_line_with_its_enter() -> None:
    keys = _keys()
    for key in decode(b"/context pin 123\r/context drop 42\rhalf"):
        keys.handle(key)
    assert list(keys.queued) == ["/context pin 123", "/context drop 42"]
    assert keys.partial == "half"


@pytest.mark.parametrize(
    ("typed", "answer", "left"),
    [
        (b"y", "yes", ""),
        (b"YES\rnext\r", "yes", "next"),
        (b"always\r", "always", ""),
        (b"n\r", "no", ""),
        (b"x\r", "no", ""),  # not an answer: ignored; Enter alone takes the default
        (b"yet\r", "yes", "et"),  # "y" answered; "et" is not the rest of "yes": type-ahead
    ],
)
def test_question_answers(typed: bytes, answer: str, left: str) -> None:
    keys = _keys()
    question = Question({"y": "yes", "a": "always", "n": "no"}, default="no", on_ctrl_c="cancel")
    keys._question = question  # as ask() does once the question is on screen
    for key in decode(typed):
        keys.handle(key)
    assert question.answer == answer
    assert (list(keys.queued) or [keys.partial]) == [left]
