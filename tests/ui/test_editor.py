"""$VISUAL / $EDITOR round-trips: arguments, failures as one clear line, temp files removed."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from slop.ui.editor import EditorError, edit_text


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "fake-editor"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def leftovers() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("slop-*")}


def test_editor_with_arguments_edits_and_cleans_up(tmp_path: Path) -> None:
    # like `code --wait`: the editor command carries its own flags before the file
    editor = script(tmp_path, '[ "$1" = "--wait" ] || exit 3\nprintf "edited\\n" >> "$2"')
    before = leftovers()
    text = edit_text("original\n", ".md", env={"EDITOR": f"{editor} --wait"})
    assert text == "original\nedited\n"
    assert leftovers() == before


def test_visual_wins_over_editor(tmp_path: Path) -> None:
    visual = script(tmp_path, 'printf "from visual" > "$1"')
    assert edit_text("x", env={"VISUAL": visual, "EDITOR": "/nonexistent/editor"}) == "from visual"


def test_failing_editor_is_one_clear_line_and_cleans_up(tmp_path: Path) -> None:
    before = leftovers()
    with pytest.raises(EditorError) as failure:
        edit_text("x", env={"EDITOR": script(tmp_path, "exit 2")})
    assert str(failure.value) == "the editor exited with status 2; nothing was changed"
    assert leftovers() == before


def test_missing_editor_says_how_to_fix_it() -> None:
    with pytest.raises(EditorError, match=r"not found; set \$EDITOR"):
        edit_text("x", env={"EDITOR": "/nonexistent/editor --flag"})


def test_view_copies_are_read_only(tmp_path: Path) -> None:
    probe = script(tmp_path, f'stat -c %a "$1" > {tmp_path}/mode')
    edit_text("view me", ".txt", read_only=True, env={"EDITOR": probe})
    assert (tmp_path / "mode").read_text().strip() == "444"


def test_notices_to_a_pipe_are_one_line_each() -> None:
    import io

    from rich.console import Console

    from slop.ui.render import Renderer

    out = io.StringIO()
    renderer = Renderer(Console(file=out, width=40, force_terminal=False))
    message = "no model provider is configured: set OPENAI_API_KEY or GEMINI_API_KEY, then restart slop"
    renderer.error(message)
    renderer.info("short")
    assert out.getvalue().splitlines() == [f"✘ {message}", "ℹ short"]
