"""read_file and write_file on real files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from slop.tools.base import ToolContext
from slop.tools.files import MAX_LINES

from .conftest import run_tool


def write_lines(path: Path, count: int) -> None:
    path.write_text("".join(f"line {i}\n" for i in range(1, count + 1)))


def test_read_whole_file_numbered(ctx: ToolContext, root: Path) -> None:
    write_lines(root / "a.txt", 3)
    result = run_tool(ctx, "read_file", path="a.txt")
    assert result.status == "completed"
    assert "    1 | line 1\n    2 | line 2\n    3 | line 3" in result.content
    assert "lines 1-3 of 3" in result.content


def test_read_range_and_hint(ctx: ToolContext, root: Path) -> None:
    write_lines(root / "a.txt", 50)
    result = run_tool(ctx, "read_file", path="a.txt", start_line=10, end_line=12)
    assert "   10 | line 10" in result.content and "   12 | line 12" in result.content
    assert "line 13" not in result.content and "    9 |" not in result.content
    assert "start_line=13" in result.content


def test_read_null_optional_is_absent(ctx: ToolContext, root: Path) -> None:
    write_lines(root / "a.txt", 2)
    result = run_tool(ctx, "read_file", path="a.txt", start_line=None, end_line=None)
    assert result.status == "completed" and "line 2" in result.content


def test_read_line_cap(ctx: ToolContext, root: Path) -> None:
    write_lines(root / "big.txt", MAX_LINES + 500)
    result = run_tool(ctx, "read_file", path="big.txt")
    assert f"line {MAX_LINES}\n" in result.content
    assert f"line {MAX_LINES + 1}\n" not in result.content
    assert f"start_line={MAX_LINES + 1}" in result.content
    assert f"of {MAX_LINES + 500}" in result.content


def test_read_char_cap(ctx: ToolContext, root: Path) -> None:
    (root / "wide.txt").write_text(("x" * 1000 + "\n") * 500)
    result = run_tool(ctx, "read_file", path="wide.txt")
    assert len(result.content) < 110_000
    assert "read the rest with start_line=" in result.content


def test_read_errors(ctx: ToolContext, root: Path) -> None:
    (root / "sub").mkdir()
    (root / "bin.dat").write_bytes(b"abc\x00def")
    write_lines(root / "a.txt", 5)
    missing = run_tool(ctx, "read_file", path="nope.txt")
    assert missing.status == "error" and missing.content.startswith("Error: NOT_FOUND:")
    assert "directory" in run_tool(ctx, "read_file", path="sub").content
    assert "binary" in run_tool(ctx, "read_file", path="bin.dat").content
    bad_range = run_tool(ctx, "read_file", path="a.txt", start_line=4, end_line=2)
    assert "start_line must be less than or equal to end_line" in bad_range.content
    assert "past the end" in run_tool(ctx, "read_file", path="a.txt", start_line=10).content


def test_read_non_utf8_and_empty(ctx: ToolContext, root: Path) -> None:
    (root / "latin.txt").write_bytes(b"caf\xe9\n")
    result = run_tool(ctx, "read_file", path="latin.txt")
    assert result.status == "completed" and "caf\ufffd" in result.content
    (root / "empty.txt").write_text("")
    assert "empty" in run_tool(ctx, "read_file", path="empty.txt").content


def test_read_reports_file_read(ctx: ToolContext, root: Path) -> None:
    (root / "d").mkdir()
    (root / "d" / "a.txt").write_text("x\n")
    seen: list[str] = []
    ctx.on_file_read = seen.append
    run_tool(ctx, "read_file", path="./d/../d/a.txt")
    assert seen == ["d/a.txt"]


def test_write_creates_parents_and_reports(ctx: ToolContext, root: Path) -> None:
    result = run_tool(ctx, "write_file", path="new/dir/f.txt", content="a\nb\n")
    assert result.status == "completed"
    assert (root / "new/dir/f.txt").read_text() == "a\nb\n"
    assert "4 bytes" in result.content and "2 lines" in result.content


def test_write_keeps_mode_and_leaves_no_temp(ctx: ToolContext, root: Path) -> None:
    script = root / "run.sh"
    script.write_text("old")
    script.chmod(0o750)
    run_tool(ctx, "write_file", path="run.sh", content="#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert script.read_text() == "#!/bin/sh\necho hi\n"
    assert sorted(p.name for p in root.iterdir()) == ["run.sh"]


def test_write_is_atomic_replace(ctx: ToolContext, root: Path) -> None:
    target = root / "f.txt"
    target.write_text("old")
    before = target.stat().st_ino
    run_tool(ctx, "write_file", path="f.txt", content="new")
    assert target.read_text() == "new"
    assert target.stat().st_ino != before  # a new inode: replaced, not rewritten in place


def test_write_new_file_honours_umask(ctx: ToolContext, root: Path) -> None:
    old = os.umask(0o022)
    try:
        run_tool(ctx, "write_file", path="n.txt", content="x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((root / "n.txt").stat().st_mode) == 0o644


def test_write_to_directory_refused(ctx: ToolContext, root: Path) -> None:
    (root / "d").mkdir()
    assert run_tool(ctx, "write_file", path="d", content="x").status == "error"


def test_read_fifo_refused_without_blocking(ctx: ToolContext, root: Path) -> None:
    os.mkfifo(root / "pipe")
    assert "not a regular file" in run_tool(ctx, "read_file", path="pipe").content
