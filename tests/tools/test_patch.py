"""apply_patch: exact, unique, all-or-nothing."""

from __future__ import annotations

import stat
from pathlib import Path

from slop.tools.base import ToolContext

from .conftest import run_tool

SOURCE = "def a():\n    return 1\n\ndef b():\n    return 1\n"


def test_single_match_applied(ctx: ToolContext, root: Path) -> None:
    (root / "m.py").write_text(SOURCE)
    (root / "m.py").chmod(0o755)
    patches = [{"find": "def a():\n    return 1", "replace": "def a():\n    return 2"}]
    result = run_tool(ctx, "apply_patch", path="m.py", patches=patches)
    assert result.status == "completed"
    assert result.content == "Successfully applied 1 patch to m.py"
    assert (root / "m.py").read_text() == SOURCE.replace("return 1", "return 2", 1)
    assert stat.S_IMODE((root / "m.py").stat().st_mode) == 0o755


def test_sequential_patches(ctx: ToolContext, root: Path) -> None:
    (root / "m.py").write_text(SOURCE)
    patches = [
        {"find": "def a():", "replace": "def first():"},
        {"find": "def b():", "replace": "def second():"},
    ]
    result = run_tool(ctx, "apply_patch", path="m.py", patches=patches)
    assert "Successfully applied 2 patches" in result.content
    assert "def first():" in (root / "m.py").read_text()


def test_zero_matches_writes_nothing(ctx: ToolContext, root: Path) -> None:
    (root / "m.py").write_text(SOURCE)
    patches = [{"find": "def a():", "replace": "def x():"}, {"find": "def zzz():", "replace": ""}]
    result = run_tool(ctx, "apply_patch", path="m.py", patches=patches)
    assert result.status == "error"
    assert "patch 2" in result.content and "def zzz():" in result.content and "0 times" in result.content
    assert (root / "m.py").read_text() == SOURCE


def test_two_matches_writes_nothing(ctx: ToolContext, root: Path) -> None:
    (root / "m.py").write_text(SOURCE)
    result = run_tool(ctx, "apply_patch", path="m.py", patches=[{"find": "    return 1", "replace": "x"}])
    assert result.status == "error"
    assert "patch 1" in result.content and "2 times" in result.content
    assert (root / "m.py").read_text() == SOURCE


def test_overlapping_match_is_ambiguous(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("aaa")
    result = run_tool(ctx, "apply_patch", path="a.txt", patches=[{"find": "aa", "replace": "b"}])
    assert "2 times" in result.content


def test_empty_find_and_missing_file(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("x")
    assert (
        "find must not be empty"
        in run_tool(ctx, "apply_patch", path="a.txt", patches=[{"find": "", "replace": "y"}]).content
    )
    assert "NOT_FOUND" in run_tool(ctx, "apply_patch", path="b.txt", patches=[{"find": "x", "replace": "y"}]).content


def test_crlf_file_and_non_utf8_bytes_survive(ctx: ToolContext, root: Path) -> None:
    (root / "w.txt").write_bytes(b"caf\xe9\r\none\r\ntwo\r\n")
    result = run_tool(ctx, "apply_patch", path="w.txt", patches=[{"find": "one\ntwo", "replace": "1\n2"}])
    assert result.status == "completed", result.content
    assert (root / "w.txt").read_bytes() == b"caf\xe9\r\n1\r\n2\r\n"


def test_missing_patch_field_is_invalid_argument(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("x")
    result = run_tool(ctx, "apply_patch", path="a.txt", patches=[{"find": "x"}])
    assert result.content == "Error: INVALID_ARGUMENT: missing required field 'patches[0].replace'"


def test_approval_previews_show_a_diff(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import threading

    from slop.tools.base import ToolContext
    from slop.tools.registry import ToolRegistry

    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    ctx = ToolContext(root=tmp_path, session_id="s", store=None, cancel=threading.Event())  # type: ignore[arg-type]
    tools = ToolRegistry()
    patch = tools.get("apply_patch")
    write = tools.get("write_file")
    assert patch is not None and write is not None and patch.preview and write.preview
    text = patch.preview({"path": "a.py", "patches": [{"find": "y = 2", "replace": "y = 3"}]}, ctx)
    assert "-y = 2" in text and "+y = 3" in text
    failing = patch.preview({"path": "a.py", "patches": [{"find": "nope", "replace": ""}]}, ctx)
    assert "it will fail" in failing and "matches 0 times" in failing
    new = write.preview({"path": "b.py", "content": "print(1)\n"}, ctx)
    assert "(new file)" in new and "+print(1)" in new
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 2\n" and not (tmp_path / "b.py").exists()
