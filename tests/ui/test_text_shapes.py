"""The pure text shaping behind what the terminal shows: markdown as slop renders a
reply (rich on a fixed-width string console), the line reader the stream settles blocks
with, and the fitting of tool lines into a width."""

from __future__ import annotations

import io

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from slop.ui.icons import ASCII, UNICODE
from slop.ui.markdown import Printer, SlopMarkdown, prefixed, semantic_heading
from slop.ui.mdlines import LineBuffer, closes, dedent, list_kind, open_fence
from slop.ui.textfit import clip, first_line, fit_pair, flatten_args, format_duration, one_line


def render(markup: str, width: int = 40) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=False, color_system=None)
    Printer(console).print(SlopMarkdown(markup))
    return out.getvalue().split("\n")


# ---- markdown ------------------------------------------------------------------------


def test_single_newlines_of_a_reply_stay_line_breaks() -> None:
    lines = render("Goal: fix the parser\nStatus: tests pass\nNext: docs")
    assert lines[:3] == ["Goal: fix the parser", "Status: tests pass", "Next: docs"]


def test_a_state_heading_gets_the_clock_and_a_thought_heading_the_brain() -> None:
    lines = [line for line in render("### STATE\nGoal: x\n\n## THOUGHTS\nhmm") if line.strip()]
    assert lines[0] == "🕒 STATE"
    assert "🧠 THOUGHTS" in lines


def test_an_ordinary_heading_has_no_icon() -> None:
    assert semantic_heading("Installation", UNICODE) is None
    assert semantic_heading("STATESMAN", UNICODE) is None  # a whole word only
    assert semantic_heading("Current STATE", ASCII) == ("[state]", "bold yellow")
    assert semantic_heading("THOUGHT", ASCII) == ("[thought]", "italic grey50")


def test_a_reply_starting_with_a_list_has_no_blank_line_before_it() -> None:
    lines = render("- one\n- two")
    assert lines[0].strip().endswith("one") and lines[1].strip().endswith("two")


def test_a_table_s_long_words_fold_within_the_width_instead_of_being_cut() -> None:
    word = "x" * 70
    lines = render(f"| name | value |\n|---|---|\n| key | {word} |", width=40)
    assert all(cell_len(line) <= 40 for line in lines)
    assert "".join(lines).count("x") == 70  # every character is shown, none replaced by …
    assert "…" not in "".join(lines)


def test_plain_output_has_no_trailing_blanks_and_no_escapes() -> None:
    lines = render("# Title\n\n**bold** and `code`\n\n```python\nx = 1\n```")
    assert all(line == line.rstrip() for line in lines)
    assert "\x1b" not in "\n".join(lines)
    assert "x = 1" in "\n".join(lines)


def test_an_icon_block_wraps_with_a_hanging_indent() -> None:
    out = io.StringIO()
    console = Console(file=out, width=20, force_terminal=False, color_system=None)
    Printer(console).print(prefixed("ℹ", Text("one two three four five six")))
    lines = out.getvalue().rstrip("\n").split("\n")
    assert lines[0].startswith("ℹ one") and len(lines) > 1
    assert all(line.startswith("  ") for line in lines[1:])  # under the text, not under the icon


# ---- the streamed line reader ----------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("- item", (0, "-")),
        ("  * nested", (2, "*")),
        ("12. twelfth", (0, ".")),
        ("3) third", (0, ")")),
        ("\t+ tabbed", (4, "+")),
        ("-not a list", None),
        ("1234567890. too long a number", None),
        ("text", None),
    ],
)
def test_list_items_are_told_by_their_marker_and_indent(line: str, kind: tuple[int, str] | None) -> None:
    assert list_kind(line) == kind


def test_a_fence_opens_with_its_language_and_closes_with_a_long_enough_fence() -> None:
    fence = open_fence("````python title", in_list=False)
    assert fence is not None and (fence.char, fence.length, fence.lexer, fence.top_level) == ("`", 4, "python", True)
    assert not closes("```", fence)  # shorter than the opening one: still code
    assert not closes("~~~~", fence)  # another character
    assert closes("  `````  ", fence)
    assert open_fence("```inline``` code", in_list=False) is None
    plain = open_fence("~~~", in_list=False)
    assert plain is not None and plain.lexer == "text"


def test_an_indented_fence_in_a_list_belongs_to_the_list() -> None:
    inside = open_fence("   ```sh", in_list=True)
    outside = open_fence("   ```sh", in_list=False)
    assert inside is not None and not inside.top_level
    assert outside is not None and outside.top_level


@pytest.mark.parametrize(
    ("line", "width", "expected"), [("    code", 2, "  code"), ("  x", 4, "x"), ("\tcode", 4, "code"), ("ab", 3, "ab")]
)
def test_dedent_takes_off_at_most_the_fence_s_indentation(line: str, width: int, expected: str) -> None:
    assert dedent(line, width) == expected


def test_the_line_buffer_gives_whole_lines_and_keeps_the_unfinished_one() -> None:
    buffer = LineBuffer()
    assert buffer.feed("first pa") == []
    assert buffer.feed("rt\nsecond\nthi") == ["first part", "second"]
    assert buffer.pending() == "thi"
    assert buffer.feed("rd") == [] and buffer.feed("\n") == ["third"]
    assert buffer.feed("\n\n") == ["", ""]
    buffer.feed("tail")
    assert buffer.take() == "tail" and buffer.pending() == ""


# ---- fitting text ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cells", "expected"),
    [
        ("hello world", 20, "hello world"),
        ("hello world", 8, "hello w…"),
        ("日本語のテキスト", 7, "日本語…"),  # wide characters count two cells
        ("abc", 1, "…"),
        ("abc", 0, ""),
    ],
)
def test_clip_cuts_to_terminal_cells(text: str, cells: int, expected: str) -> None:
    assert clip(text, cells) == expected
    assert cell_len(clip(text, cells)) <= max(cells, 0)


def test_one_line_and_first_line_make_multi_line_text_fit_a_tool_line() -> None:
    assert one_line("  a\n\tb   c\n") == "a b c"
    assert first_line("\n\n   \n  error:   file\tmissing \nmore") == "error: file missing"
    assert first_line("   \n") == ""


def test_fit_pair_keeps_up_to_a_third_for_the_second_part() -> None:
    first, second = fit_pair("a" * 50, "b" * 50, 30)
    assert cell_len(first) + cell_len(second) <= 30
    assert cell_len(second) == 10 and second.endswith("…")
    assert fit_pair("short", "also short", 30) == ("short", "also short")
    first, second = fit_pair("a" * 50, "bb", 30)
    assert second == "bb" and cell_len(first) == 28  # a short second part is never cut


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        ('{"path": "a.py"}', 'path: "a.py"'),
        ('{"n": 3, "flag": false, "none": null}', "n: 3 | flag: false | none: null"),
        ('{"nested": {"a": [1, 2]}}', 'nested: {"a":[1,2]}'),
        ('["just", "a", "list"]', '["just","a","list"]'),
        ("  not json\n at all ", "not json at all"),
        ("", ""),
        ('{"text": "ünïcödé ✓"}', 'text: "ünïcödé ✓"'),
    ],
)
def test_tool_arguments_are_shown_on_one_line(args: str, shown: str) -> None:
    assert flatten_args(args) == shown


def test_a_long_or_deeply_nested_value_is_cut_to_sixty_cells() -> None:
    deep = "[" * 900 + "]" * 900
    shown = flatten_args(f'{{"x": {deep}, "y": "{"z" * 500}"}}')
    x, y = shown.split(" | ")
    assert x == "x: " + "[" * 59 + "…"
    assert y == 'y: "' + "z" * 58 + "…"


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0.04, "0.0s"), (9.94, "9.9s"), (12.4, "12s"), (59.4, "59s"), (125, "2m05s"), (3600, "60m00s")],
)
def test_durations_read_like_a_stopwatch(seconds: float, shown: str) -> None:
    assert format_duration(seconds) == shown
