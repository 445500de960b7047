"""More of what a terminal sends while a turn runs: colour and title replies, Alt keys,
control keys, pastes split anywhere. None of it may become typed text or a cancel."""

from __future__ import annotations

import pytest

from slop.ui.keydecode import Key, KeyDecoder
from tests.ui.test_keydecode import decode


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        ((b"\x1b]11;rgb:0000/0000/0000\x07ok",), [Key("text", "ok")]),  # a background-colour reply (BEL)
        ((b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\ok",), [Key("text", "ok")]),  # ... ended by ST
        ((b"\x1b]11;rgb:00", b"00/0000/0000\x07z"), [Key("text", "z")]),  # split across reads
        ((b"\x1bb\x1bf",), []),  # Alt+b, Alt+f: word moves, nothing here
        ((b"\x1b\x1b",), [Key("esc"), Key("esc")]),  # Esc pressed twice fast
        ((b"a\r\nb",), [Key("text", "a"), Key("enter"), Key("text", "b")]),  # CR LF is one Enter
        ((b"\n",), [Key("enter")]),
        ((b"\x01\x02\x05x\x1a",), [Key("text", "x")]),  # Ctrl-A, B, E, Z mean nothing here
        ((b"\x08",), [Key("backspace")]),
        ((b"\x1bO", b"Q!"), [Key("text", "!")]),  # F2 split after its SS3 introducer
        ((b"\x1b[<0;12;5M\x1b[<0;12;5m",), []),  # mouse press and release (SGR)
        ((b"\x1b[1;5A", b"up"), [Key("text", "up")]),  # Ctrl-Up
        ((b"\x1b[\x00x",), [Key("text", "x")]),  # a malformed sequence is dropped, not typed
    ],
)
def test_terminal_replies_and_keys(chunks: tuple[bytes, ...], expected: list[Key]) -> None:
    assert decode(*chunks) == expected


@pytest.mark.parametrize(
    "chunks",
    [
        (b"\x1b[200~one\rtwo\r\nthree\x1b[201~",),
        (b"\x1b[2", b"00~one\rtw", b"o\r\nthree\x1b[20", b"1~"),  # both markers split
        (b"\x1b[200~", b"one\rtwo\r\nthree", b"\x1b[201~"),
    ],
)
def test_a_paste_is_one_piece_with_its_line_ends_made_newlines(chunks: tuple[bytes, ...]) -> None:
    assert decode(*chunks) == [Key("paste", "one\ntwo\nthree")]


def test_control_characters_inside_a_paste_are_text_not_keys() -> None:
    keys = decode(b"\x1b[200~a\x03b\x1bc\x1b[201~")
    assert keys == [Key("paste", "a\x03b\x1bc")]  # no Ctrl-C, no Esc: the paste holds them as text


def test_an_unfinished_paste_survives_a_stall() -> None:
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b[200~slow paste") == []
    decoder.drop_partial()  # the reader's stall timeout must not cut a paste
    assert decoder.pending == "sequence"
    assert decoder.feed(b" ends\x1b[201~\r") == [Key("paste", "slow paste ends"), Key("enter")]


def test_an_empty_paste_adds_nothing() -> None:
    assert decode(b"\x1b[200~\x1b[201~x") == [Key("text", "x")]


def test_multibyte_text_split_anywhere_is_whole() -> None:
    data = "naïve 日本 ✓".encode()
    for cut in range(1, len(data)):
        text = "".join(k.text for k in decode(data[:cut], data[cut:]))
        assert text == "naïve 日本 ✓", cut


def test_a_lone_esc_is_only_known_when_nothing_follows() -> None:
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b") == [] and decoder.pending == "esc"
    assert decoder.feed(b"[A") == []  # it was an arrow key after all
    assert decoder.lone_esc() == [] and decoder.pending == ""
    decoder.feed(b"\x1b")
    assert decoder.lone_esc() == [Key("esc")]
