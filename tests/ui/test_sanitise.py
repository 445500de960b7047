"""Control characters from the model or a tool never reach the terminal raw."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from slop.ui.render import Renderer
from slop.ui.sanitise import DeltaSanitiser, has_hidden, visible

DISGUISED = "touch PWNED # \x1b[2K\x1b[1Grun: ls -la"
TITLE = "\x1b]0;pwned title\x07"
CLEAR = "\x1b[2J\x1b[H"

# one example of every class of character the sanitiser must show, with its escape
CLASSES = [
    ("\x1b", "\\x1b"),  # ESC: starts CSI / OSC sequences
    ("\r", "\\r"),  # CR: returns to column 0 and overwrites the line
    ("\x07", "\\x07"),  # BEL: ends OSC sequences
    ("\x08", "\\x08"),  # backspace
    ("\x00", "\\x00"),
    ("\x0b", "\\x0b"),
    ("\x0c", "\\x0c"),
    ("\x7f", "\\x7f"),  # DEL
    ("\x9b", "\\x9b"),  # C1 CSI
    ("\x9d", "\\x9d"),  # C1 OSC
    ("\x85", "\\x85"),  # C1 NEL
    ("\u202e", "\\u202e"),  # right-to-left override
    ("\u202a", "\\u202a"),
    ("\u2066", "\\u2066"),  # isolates
    ("\u2069", "\\u2069"),
    ("\u200e", "\\u200e"),  # bidi marks
    ("\u061c", "\\u061c"),
    ("\u200b", "\\u200b"),  # zero-width space
    ("\u2060", "\\u2060"),  # word joiner
    ("\ufeff", "\\ufeff"),  # BOM
    ("\u00ad", "\\xad"),  # soft hyphen
    ("\u2028", "\\u2028"),  # line separator
    ("\U000e0041", "\\U000e0041"),  # a Unicode tag character (invisible ASCII)
    ("\ud800", "\\ud800"),  # a lone surrogate
]


@pytest.mark.parametrize(("char", "shown"), CLASSES)
def test_every_class_of_control_character_is_shown_as_an_escape(char: str, shown: str) -> None:
    assert visible(f"a{char}b") == f"a{shown}b"
    assert visible(f"a{char}b", strict=True) == f"a{shown}b"
    assert has_hidden(f"a{char}b")


def test_tab_newline_and_ordinary_unicode_stay() -> None:
    text = "def f():\n\treturn 'héllo wörld ✔ 你好 🙂 ❤️'\n"
    assert visible(text) == text and visible(text, strict=True) == text and not has_hidden(text)


def test_crlf_line_ends_become_plain_newlines() -> None:
    assert visible("one\r\ntwo\r\n") == "one\ntwo\n"
    assert not has_hidden("one\r\ntwo")
    assert visible("progress 10%\rprogress 100%") == "progress 10%\\rprogress 100%"


def test_joiners_stay_in_replies_but_show_in_strict_mode() -> None:
    family = "\U0001f468\u200d\U0001f469"
    assert visible(family) == family
    assert visible("r\u200dm -rf x", strict=True) == "r\\u200dm -rf x"


def test_the_disguised_command_shows_its_escapes() -> None:
    assert visible(DISGUISED, strict=True) == "touch PWNED # \\x1b[2K\\x1b[1Grun: ls -la"


def test_a_crlf_split_between_two_deltas_is_a_line_end() -> None:
    clean = DeltaSanitiser()
    assert clean.feed("line one\r") + clean.feed("\nline two\r") + clean.flush() == "line one\nline two\\r"


@given(st.text())
def test_output_never_holds_a_control_character(text: str) -> None:
    shown = visible(text, strict=True)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200f]", shown)
    # nothing is lost: every escape stands for exactly one character of the input
    assert shown.replace("\\", "").count("x1b") >= text.count("\x1b")


@given(st.lists(st.text(alphabet=st.sampled_from("ab\r\n\x1b")), max_size=8))
def test_streaming_in_pieces_shows_the_same_as_all_at_once(pieces: list[str]) -> None:
    clean = DeltaSanitiser()
    streamed = "".join(clean.feed(p) for p in pieces) + clean.flush()
    assert streamed == visible("".join(pieces))


def _terminal() -> tuple[Renderer, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=100, height=30, force_terminal=True, color_system="truecolor")
    return Renderer(console), out


def _model_escapes(output: str) -> list[str]:
    """Escape sequences in `output` that rich's own styling does not produce."""
    ours = re.compile(r"\x1b\[[0-9;]*m|\x1b\[\?25[hl]|\x1b\[[0-9]*[AKG]|\x1b\[2K|\x1b\]8;[^\x1b]*\x1b\\\\|\r")
    return [m for m in re.findall(r"\x1b.{0,6}|[\x07\x08\x9b\x9d]", ours.sub("", output))]


def test_streamed_reply_cannot_set_the_title_or_clear_the_screen() -> None:
    renderer, out = _terminal()
    renderer.assistant_start()
    for piece in ["thinking ", TITLE, "\n", CLEAR, "more\r"]:
        renderer.reasoning_delta(piece)
    for piece in ["Done.", TITLE, " All ", CLEAR, "good.\n", "\x9b2J end\u202e"]:
        renderer.assistant_delta(piece)
    renderer.assistant_end(12)
    output = out.getvalue()
    assert TITLE not in output and CLEAR not in output and "\x9b" not in output
    assert "\\x1b]0;pwned title\\x07" in output and "\\x1b[2J" in output and "\\u202e" in output
    assert "more\\r" in output  # a CR that ends the reasoning is shown, not obeyed
    assert _model_escapes(output) == []


@pytest.mark.parametrize(
    "show",
    [
        lambda r: r.tool_call_done("execute_bash", '{"command": "x\\u001b]0;t\\u0007"}', "ok", 0.1, TITLE),
        lambda r: r.tool_call_done("execute_bash", "not json " + CLEAR, "ok", 0.1, "fine"),
        lambda r: r.plain(DISGUISED),
        lambda r: r.error("server said: " + TITLE),
        lambda r: r.warning("\u202eevil"),
        lambda r: r.markdown("# Title\n\n" + TITLE + "\n\n```\n" + CLEAR + "\n```"),
        lambda r: r.table("t" + TITLE, ["a"], [[CLEAR]]),
        lambda r: r.assistant_message("hi" + CLEAR, reasoning="thinking" + TITLE),
        lambda r: r.user_echo("pasted" + CLEAR, "123"),
    ],
)
def test_every_output_path_shows_escapes(show) -> None:  # type: ignore[no-untyped-def]
    renderer, out = _terminal()
    show(renderer)
    renderer.close()
    output = out.getvalue()
    assert _model_escapes(output) == [], repr(output)
    assert "\\x1b" in output or "\\u202e" in output or "\\u001b" in output


def test_json_data_on_the_terminal_holds_no_raw_control_character() -> None:
    import json

    from slop.ui.terminal_io import TerminalIO

    out = io.StringIO()
    hostile = {"messages": [{"content": "hi" + TITLE + "\x9b2J\u202e"}]}
    TerminalIO.for_stream(out, no_color=True, interactive=False).data(hostile)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", out.getvalue())
    assert json.loads(out.getvalue()) == hostile  # the same JSON value, byte-exact content
