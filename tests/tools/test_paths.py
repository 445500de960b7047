"""Paths stay inside the project root or --allow-path directories."""

from __future__ import annotations

import os
from pathlib import Path

from slop.tools.base import ToolContext

from .conftest import run_tool


def test_dotdot_escape_refused(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("top secret")
    result = run_tool(ctx, "read_file", path="../secret.txt")
    assert result.status == "error"
    assert "PERMISSION_DENIED" in result.content and "--allow-path" in result.content
    assert "top secret" not in result.content


def test_absolute_outside_refused(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("x")
    assert "--allow-path" in run_tool(ctx, "write_file", path=str(tmp_path / "y.txt"), content="y").content
    assert not (tmp_path / "y.txt").exists()


def test_symlink_pointing_outside_refused(ctx: ToolContext, root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("outside data")
    os.symlink(outside, root / "link")
    assert "--allow-path" in run_tool(ctx, "read_file", path="link/f.txt").content
    assert "--allow-path" in run_tool(ctx, "write_file", path="link/g.txt", content="x").content
    assert not (outside / "g.txt").exists()
    assert "--allow-path" in run_tool(ctx, "list_directory", path="link").content


def test_allowed_paths_permit_outside(ctx: ToolContext, root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("outside data\n")
    os.symlink(outside, root / "link")
    ctx.allowed_paths = (outside,)
    assert "outside data" in run_tool(ctx, "read_file", path="link/f.txt").content
    assert "outside data" in run_tool(ctx, "read_file", path=str(outside / "f.txt")).content
    assert run_tool(ctx, "write_file", path=str(outside / "g.txt"), content="x").status == "completed"


def test_symlink_inside_root_writes_target(ctx: ToolContext, root: Path) -> None:
    (root / "real.txt").write_text("old")
    os.symlink(root / "real.txt", root / "alias.txt")
    run_tool(ctx, "write_file", path="alias.txt", content="new")
    assert (root / "alias.txt").is_symlink()
    assert (root / "real.txt").read_text() == "new"


def test_secrets_redacted_from_output(ctx: ToolContext, root: Path) -> None:
    (root / ".env").write_text("API_KEY=sk-abcdef123456\nshort=abc\n")
    ctx.secrets = ("sk-abcdef123456", "abc")
    result = run_tool(ctx, "read_file", path=".env")
    assert "sk-abcdef123456" not in result.content and "[REDACTED]" in result.content
    assert "short=abc" in result.content  # too short to redact safely
    shell = run_tool(ctx, "execute_bash", command="cat .env >&2")
    assert "sk-abcdef123456" not in shell.content
