"""File tools cannot be led outside the project by a hard link or by swapping a directory
for a symlink between the check and the open (a thread swaps them in a loop)."""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from slop.tools.base import ToolContext

from .conftest import git_init, run_tool

SECRET = "TOP-SECRET-OUTSIDE-THE-PROJECT"
ATTEMPTS = 300


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    (folder / "dir").mkdir(parents=True)
    (folder / "secret.txt").write_text(SECRET + "\n")
    (folder / "dir" / "notes.txt").write_text(SECRET + "\n")
    return folder


# --- hard links ----------------------------------------------------------------------


def test_a_hard_link_to_a_file_outside_is_refused_by_every_reading_tool(
    ctx: ToolContext, root: Path, outside: Path
) -> None:
    os.link(outside / "secret.txt", root / "innocent.txt")
    for tool, args in [
        ("read_file", {"path": "innocent.txt"}),
        ("grep_tool", {"pattern": "SECRET", "path": "innocent.txt"}),
        ("apply_patch", {"path": "innocent.txt", "patches": [{"find": "TOP", "replace": "x"}]}),
    ]:
        result = run_tool(ctx, tool, **args)
        assert result.status == "error" and "hard links" in result.content, (tool, result.content)
        assert SECRET not in result.content
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


def test_hard_links_inside_the_allowed_roots_are_fine(ctx: ToolContext, root: Path, outside: Path) -> None:
    (root / "a.txt").write_text("shared text\n")
    os.link(root / "a.txt", root / "b.txt")
    assert "shared text" in run_tool(ctx, "read_file", path="b.txt").content
    os.link(outside / "secret.txt", root / "linked.txt")
    allowed = replace(ctx, allowed_paths=(outside,))  # --allow-path: the other name is allowed too
    assert SECRET in run_tool(allowed, "read_file", path="linked.txt").content


def test_a_write_through_a_hard_link_leaves_the_outside_file_alone(ctx: ToolContext, root: Path, outside: Path) -> None:
    os.link(outside / "secret.txt", root / "innocent.txt")
    assert run_tool(ctx, "write_file", path="innocent.txt", content="new\n").status == "completed"
    assert (root / "innocent.txt").read_text() == "new\n"
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


# --- the symlink-swap race -------------------------------------------------------------


def _exchange() -> Callable[[Path, Path], None]:
    """Linux renameat2(RENAME_EXCHANGE): two names swapped in one step, so `dir` always
    exists (a real directory or a symlink) and nothing can recreate it in between."""
    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd, rename_exchange = -100, 2

    def exchange(a: Path, b: Path) -> None:
        if libc.renameat2(at_fdcwd, bytes(a), at_fdcwd, bytes(b), rename_exchange) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")

    return exchange


@pytest.fixture
def swapping(root: Path, outside: Path) -> Iterator[dict[str, int]]:
    """`root/dir` is a real directory, then a symlink to `outside/dir`, back and forth."""
    real = root / "dir"
    real.mkdir()
    (real / "notes.txt").write_text("inside text\n")
    link = root / "dir.link"
    link.symlink_to(outside / "dir")
    exchange = _exchange()
    stop = threading.Event()
    swaps = {"count": 0}

    def swap() -> None:
        while not stop.is_set():
            exchange(real, link)  # dir -> outside/dir
            exchange(real, link)  # dir is the real directory again
            swaps["count"] += 1

    worker = threading.Thread(target=swap, daemon=True)
    worker.start()
    yield swaps
    stop.set()
    worker.join()


def _race(ctx: ToolContext, tool: str, attempts: int = ATTEMPTS, **args: object) -> list[str]:
    return [run_tool(ctx, tool, **args).content for _ in range(attempts)]


def test_reads_never_reach_outside_during_a_swap(ctx: ToolContext, swapping: dict[str, int]) -> None:
    results = _race(ctx, "read_file", path="dir/notes.txt")
    assert swapping["count"] > 0
    assert not [r for r in results if SECRET in r]
    assert any("inside text" in r for r in results)


def test_search_and_listing_never_reach_outside_during_a_swap(ctx: ToolContext, swapping: dict[str, int]) -> None:
    results = _race(ctx, "grep_tool", 150, pattern="text|SECRET", path="dir")
    results += _race(ctx, "grep_tool", 150, pattern="text|SECRET", path="dir/notes.txt")
    listings = _race(ctx, "list_directory", 150, path="dir")
    assert swapping["count"] > 0
    assert not [r for r in results if SECRET in r]
    assert any("inside text" in r for r in results)
    assert all("notes.txt" in r or "Error" in r for r in listings)


def test_writes_and_patches_never_land_outside_during_a_swap(
    ctx: ToolContext, root: Path, outside: Path, swapping: dict[str, int]
) -> None:
    for i in range(ATTEMPTS):
        run_tool(ctx, "write_file", path=f"dir/new{i}.txt", content="written\n")
        run_tool(ctx, "apply_patch", path="dir/notes.txt", patches=[{"find": "text", "replace": "text"}])
    assert swapping["count"] > 0
    assert sorted(p.name for p in (outside / "dir").iterdir()) == ["notes.txt"]
    assert (outside / "dir" / "notes.txt").read_text() == SECRET + "\n"


def test_git_listing_and_search_run_in_the_checked_directory(ctx: ToolContext, root: Path, outside: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print('inside text')\n")
    git_init(root)
    assert "File: src/main.py" in run_tool(ctx, "list_directory", path="src").content
    assert "src/main.py:1:print('inside text')" in run_tool(ctx, "grep_tool", pattern="inside", path="src").content
    assert "main.py:1:" in run_tool(ctx, "grep_tool", pattern="inside", path="src/main.py").content


def test_legitimate_symlinks_inside_the_project_still_work(ctx: ToolContext, root: Path) -> None:
    (root / "real").mkdir()
    (root / "real" / "a.txt").write_text("through the link\n")
    (root / "alias").symlink_to(root / "real")
    assert "through the link" in run_tool(ctx, "read_file", path="alias/a.txt").content
    assert run_tool(ctx, "write_file", path="alias/b.txt", content="x\n").status == "completed"
    assert (root / "real" / "b.txt").read_text() == "x\n"
    listing = run_tool(ctx, "list_directory", path="alias").content
    assert "File: real/a.txt" in listing and "File: real/b.txt" in listing  # shown as the directory it is


def test_a_file_in_the_middle_of_a_path_is_a_clear_error(ctx: ToolContext, root: Path) -> None:
    (root / "notes.txt").write_text("x\n")
    result = run_tool(ctx, "write_file", path="notes.txt/inner.txt", content="y\n")
    assert result.status == "error" and "notes.txt" in result.content and "not a directory" in result.content
