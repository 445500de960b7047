"""What the user sees while tools run and after they finish: the live lines with a
command's last output, the wait for the model, how much output /verbose shows, and the
coloured approval preview. Rendered by the real Renderer on a string console; `screen`
applies the cursor moves, so a transient line that was erased is not on it."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from slop.ui.diffview import coloured_preview, diff_style
from slop.ui.render import DETAIL_LINES_NORMAL, Renderer
from slop.ui.toolview import LIVE_LINE_CHARS, TAIL_LINES, printable
from tests.ui.termsim import screen

BASH = ("execute_bash", '{"command": "make test"}')


def make(*, terminal: bool = True, width: int = 80) -> tuple[Renderer, Console]:
    console = Console(file=io.StringIO(), width=width, height=30, force_terminal=terminal, color_system="truecolor")
    return Renderer(console), console


def shown(console: Console) -> list[str]:
    file = console.file
    assert isinstance(file, io.StringIO)
    return [re.sub(r"\d+(\.\d)?s", "Ns", line.rstrip()) for line in screen(file.getvalue()).split("\n") if line.strip()]


def test_a_running_command_shows_its_last_lines_under_it() -> None:
    renderer, console = make()
    renderer.tool_call_start(*BASH)
    renderer.tool_output(*BASH, "compiling a\ncompiling b\n")
    renderer.tool_output(*BASH, "compiling c\ncompil")
    renderer.tool_output(*BASH, "ing d\n")  # a line split between two reads is one line
    assert shown(console) == [
        '🔧 execute_bash  command: "make test"  … Ns · Esc to cancel',
        "    │ compiling b",
        "    │ compiling c",
        "    │ compiling d",
    ]
    assert TAIL_LINES == 3


def test_the_live_tail_shows_no_colours_cursor_moves_or_blank_lines() -> None:
    renderer, console = make()
    renderer.tool_call_start(*BASH)
    renderer.tool_output(*BASH, "\x1b[32mPASSED\x1b[0m test_a\r\n\n   \n\x1b]0;title\x07\x1b[2Jstill here\x08!\n")
    assert shown(console)[1:] == ["    │ PASSED test_a", "    │ still here!"]


def test_the_tail_goes_when_the_command_finishes_and_the_done_line_stays() -> None:
    renderer, console = make()
    renderer.tool_call_start(*BASH)
    renderer.tool_output(*BASH, "step 1\nstep 2\n")
    renderer.tool_call_done(*BASH, "completed", 1.5, "2 lines")
    assert shown(console) == ['🔧 execute_bash  command: "make test"  ✔ Ns · 2 lines']


def test_a_line_without_newlines_is_cut_in_the_live_view() -> None:
    renderer, console = make(width=200)
    renderer.tool_call_start(*BASH)
    renderer.tool_output(*BASH, "x" * (LIVE_LINE_CHARS * 3) + "\n")
    tail = shown(console)[1]
    assert tail.startswith("    │ x") and len(tail) <= 200


def test_output_of_a_call_that_is_not_running_is_ignored() -> None:
    renderer, console = make()
    renderer.tool_output(*BASH, "late output\n")
    assert shown(console) == []


def test_waiting_for_the_model_shows_until_the_first_token() -> None:
    renderer, console = make()
    renderer.assistant_start()
    assert shown(console) == ["waiting for model… Ns  (Esc to cancel)"]
    renderer.assistant_delta("Hello")
    renderer.assistant_end(None)
    assert shown(console) == ["Hello"]


def test_a_tool_call_ends_the_wait_for_the_model() -> None:
    renderer, console = make()
    renderer.assistant_start()
    renderer.tool_call_start(*BASH)
    assert shown(console) == ['🔧 execute_bash  command: "make test"  … Ns · Esc to cancel']


def test_nothing_live_is_printed_without_a_terminal() -> None:
    renderer, console = make(terminal=False)
    renderer.assistant_start()
    renderer.tool_call_start(*BASH)
    renderer.tool_output(*BASH, "progress\n")
    assert shown(console) == []
    renderer.tool_call_done(*BASH, "completed", 0.2, "ok")
    assert shown(console) == ['🔧 execute_bash  command: "make test"  ✔ Ns · ok']


SUMMARY = "12 lines\n" + "\n".join(f"line {i}" for i in range(1, 12))


@pytest.mark.parametrize(
    ("verbosity", "details"),
    [
        ("quiet", []),
        ("normal", ["    … 6 earlier lines", *(f"    line {i}" for i in range(7, 12))]),
        ("full", [f"    line {i}" for i in range(1, 12)]),
    ],
)
def test_verbose_decides_how_much_of_a_finished_command_shows(verbosity: str, details: list[str]) -> None:
    renderer, console = make(terminal=False)
    renderer.verbosity = verbosity
    renderer.tool_call_done(*BASH, "completed", 0.3, SUMMARY)
    lines = shown(console)
    assert lines[0].endswith("✔ Ns · 12 lines")
    assert lines[1:] == details
    assert DETAIL_LINES_NORMAL == 5


def test_a_failed_call_shows_its_error_line_only() -> None:
    renderer, console = make(terminal=False)
    renderer.verbosity = "full"
    renderer.tool_call_done(*BASH, "error", 0.3, "exit code 2\nTraceback...\nmore")
    assert shown(console) == ['🔧 execute_bash  command: "make test"  ✘ Ns · exit code 2']


@pytest.mark.parametrize(
    ("status", "icon"),
    [("completed", "✔"), ("Done", "✔"), ("failed", "✘"), ("canceled", "⏹"), ("interrupted", "⏹"), ("odd", "odd")],
)
def test_each_status_has_its_mark(status: str, icon: str) -> None:
    renderer, console = make(terminal=False)
    renderer.tool_call_done("grep", "{}", status, 0.0, "")
    assert shown(console) == [f"🔧 grep  {icon} Ns"]


def test_a_status_or_name_with_escapes_is_shown_escaped() -> None:
    renderer, console = make(terminal=False)
    renderer.tool_call_done("evil\x1b[2J", '{"a": "\\u001b]0;t\\u0007"}', "ok\x1b[31m", 0.0, "")
    [line] = shown(console)
    assert "\x1b" not in line and "evil\\x1b[2J" in line


@pytest.mark.parametrize(
    ("line", "style"),
    [
        ("+++ b/main.py", "bold"),
        ("--- a/main.py", "bold"),
        ("@@ -1,3 +1,4 @@", "cyan"),
        ("+added", "green"),
        ("-removed", "red"),
        (" context", ""),
    ],
)
def test_diff_lines_are_styled_by_their_first_characters(line: str, style: str) -> None:
    assert diff_style(line) == style


def test_the_preview_header_is_bold_and_diff_lines_coloured() -> None:
    preview = "apply_patch: edit main.py\n--- a/main.py\n+++ b/main.py\n@@ -1 +1 @@\n-old\n+new\n unchanged"
    text = coloured_preview(preview)
    assert text.plain == preview
    styles = {text.plain[span.start : span.end]: str(span.style) for span in text.spans}
    assert styles["apply_patch: edit main.py"] == "bold"
    assert (styles["-old"], styles["+new"], styles["@@ -1 +1 @@"], styles[" unchanged"]) == (
        "red",
        "green",
        "cyan",
        "dim",
    )


def test_a_carriage_return_in_a_preview_cannot_hide_a_line() -> None:
    """`rm -rf ~\\r# harmless` would show as "# harmless" on a terminal; the preview shows both."""
    text = coloured_preview("execute_bash\nrm -rf ~\r# list the files")
    assert text.plain.split("\n") == ["execute_bash", "rm -rf ~\\r# list the files"]


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        ("\x1b[1;31mred\x1b[0m", "red"),
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("tab\tstays", "tab\tstays"),
        ("bell\x07", "bell"),
        ("\x1bcreset", "reset"),
    ],
)
def test_printable_strips_what_a_command_sends_to_its_terminal(raw: str, plain: str) -> None:
    assert printable(raw) == plain
