"""list_directory with and without git."""

from __future__ import annotations

from pathlib import Path

from slop.tools.base import ToolContext
from slop.tools.listing import MAX_ENTRIES

from .conftest import git_init, run_tool


def make_tree(root: Path) -> None:
    (root / "subdir" / "deep").mkdir(parents=True)
    (root / "file1.txt").write_text("1")
    (root / "subdir" / "subfile.txt").write_text("2")
    (root / "subdir" / "deep" / "x.txt").write_text("3")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "dep.js").write_text("")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "m.pyc").write_text("")


def entries(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(("File: ", "Directory: "))]


def test_depth_one_and_two_without_git(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    assert entries(run_tool(ctx, "list_directory", depth=1).content) == ["File: file1.txt", "Directory: subdir/"]
    assert entries(run_tool(ctx, "list_directory").content) == [
        "File: file1.txt",
        "Directory: subdir/",
        "Directory: subdir/deep/",
        "File: subdir/subfile.txt",
    ]
    assert "File: subdir/deep/x.txt" in run_tool(ctx, "list_directory", depth=3).content


def test_subdirectory_paths_are_root_relative(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    assert entries(run_tool(ctx, "list_directory", path="subdir", depth=1).content) == [
        "Directory: subdir/deep/",
        "File: subdir/subfile.txt",
    ]


def test_git_lists_tracked_and_untracked_not_ignored(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    (root / ".gitignore").write_text("node_modules/\n__pycache__/\nbuild/\n")
    git_init(root)
    (root / "untracked.txt").write_text("u")
    (root / "build").mkdir()
    (root / "build" / "out.o").write_text("")
    listed = entries(run_tool(ctx, "list_directory", depth=1).content)
    assert listed == ["File: .gitignore", "File: file1.txt", "Directory: subdir/", "File: untracked.txt"]


def test_errors(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    assert "NOT_FOUND" in run_tool(ctx, "list_directory", path="missing").content
    assert "read_file" in run_tool(ctx, "list_directory", path="file1.txt").content
    assert "depth must be 1 or more" in run_tool(ctx, "list_directory", depth=-1).content


def test_entry_cap(ctx: ToolContext, root: Path) -> None:
    for i in range(MAX_ENTRIES + 20):
        (root / f"f{i:05}.txt").write_text("")
    content = run_tool(ctx, "list_directory").content
    assert len(entries(content)) == MAX_ENTRIES
    assert "20 more entries not shown" in content
