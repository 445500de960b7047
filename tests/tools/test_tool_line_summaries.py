"""The short summary on a finished tool's line (and the detail lines under it), made
from what real tools returned: exit code and size for commands, matches and files for
searches, the first line of an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slop.records import ToolCall, ToolResult
from slop.tools.base import ToolContext
from slop.tools.dispatch import dispatch
from slop.tools.registry import ToolRegistry
from slop.tools.search import MAX_LINES
from slop.tools.summary import DETAIL_LINES, summarize


def run(ctx: ToolContext, tool: str, /, **args: object) -> tuple[ToolResult, list[str]]:
    (result,) = dispatch([ToolCall("c1", tool, json.dumps(args))], ToolRegistry(), ctx, None)
    return result, summarize(tool, result.content, result.status).split("\n")


def test_a_command_shows_its_exit_code_size_and_last_output_lines(ctx: ToolContext) -> None:
    _, lines = run(ctx, "execute_bash", command="printf 'one\\ntwo\\n'; echo oops >&2; exit 3")
    assert lines[0] == "exit 3 · 6 lines"  # the stored result: exit line, two headers, three output lines
    assert lines[1:] == ["one", "two", "oops"]  # the output, without the section headers


def test_a_quiet_command_has_no_detail_lines(ctx: ToolContext) -> None:
    _, lines = run(ctx, "execute_bash", command="true")
    assert lines == ["exit 0 · 2 lines"]


def test_a_long_output_passes_on_only_its_last_lines(ctx: ToolContext) -> None:
    _, lines = run(ctx, "execute_bash", command="seq 1 100")
    assert lines[0] == "exit 0 · 102 lines"
    assert lines[1:] == [str(n) for n in range(101 - DETAIL_LINES, 101)]


def test_a_killed_command_says_by_which_signal(ctx: ToolContext) -> None:
    _, lines = run(ctx, "execute_bash", command="kill -TERM $$")
    assert lines[0] == "exit -15 · 2 lines"


@pytest.fixture
def sources(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("import os\nimport sys\n")
    (root / "src" / "b.py").write_text("import os\n")
    (root / "notes.txt").write_text("nothing to see\n")
    return root


def test_a_search_says_how_many_matches_in_how_many_files(ctx: ToolContext, sources: Path) -> None:
    _, lines = run(ctx, "grep_tool", pattern="^import")
    assert lines == ["3 matches in 2 files"]
    _, lines = run(ctx, "grep_tool", pattern="import sys", path="src")
    assert lines == ["1 match in 1 file"]


def test_a_search_without_matches_says_so(ctx: ToolContext, sources: Path) -> None:
    result, lines = run(ctx, "grep_tool", pattern="no_such_identifier")
    assert result.content == "No matches."
    assert lines == ["no matches"]


def test_a_cut_search_counts_what_was_not_shown(ctx: ToolContext, root: Path) -> None:
    (root / "big.txt").write_text("hit\n" * (MAX_LINES + 100))
    _, lines = run(ctx, "grep_tool", pattern="hit")
    assert lines == [f"{MAX_LINES + 100} matches in 1+ file"]


def test_a_file_read_shows_its_line_count_and_a_one_line_result_itself(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("alpha\nbeta\ngamma\n")
    result, lines = run(ctx, "read_file", path="a.txt")
    assert lines == [f"{len(result.content.splitlines())} lines"]
    result, lines = run(ctx, "write_file", path="b.txt", content="x")
    assert len(result.content.splitlines()) == 1 and lines == [result.content]  # the tool's own sentence
    assert "b.txt" in lines[0] and "1 byte" in lines[0]


def test_a_failed_call_shows_the_first_line_of_its_error(ctx: ToolContext) -> None:
    result, lines = run(ctx, "read_file", path="missing.txt")
    assert result.status == "error"
    assert lines == [result.content.splitlines()[0]]
    assert lines[0].startswith("Error: NOT_FOUND: ")
