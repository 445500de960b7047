"""Which editor opens, and with what file: the configured one (ui.editor, SLOP_EDITOR)
over $VISUAL over $EDITOR, the command split as a shell would, the file named with the
suffix that gives the editor its syntax mode."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from slop.errors import SlopError
from slop.ui.console import make_console
from slop.ui.editor import EditorError, edit_text, editor_command, has_editor
from slop.ui.render import Renderer
from slop.ui.terminal_io import TerminalIO


def recording_editor(tmp_path: Path, name: str, append: str = "") -> Path:
    """An editor script that records its arguments and the file's name, and may append text."""
    script = tmp_path / name
    log = tmp_path / f"{name}.log"
    script.write_text(f'#!/bin/sh\necho "$@" >> {log}\nprintf "%s" "{append}" >> "$(eval echo \\${{$#}})"\n')
    script.chmod(0o755)
    return script


def calls(tmp_path: Path, name: str) -> list[str]:
    log = tmp_path / f"{name}.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize(
    ("env", "command"),
    [
        ({"VISUAL": "code --wait", "EDITOR": "nano"}, ["code", "--wait"]),
        ({"EDITOR": "emacsclient -t"}, ["emacsclient", "-t"]),
        ({"VISUAL": "", "EDITOR": "nano"}, ["nano"]),
        ({"VISUAL": "'/opt/My Editor/bin/edit' -w"}, ["/opt/My Editor/bin/edit", "-w"]),
        ({}, ["vi"]),
    ],
)
def test_the_editor_command_is_split_like_a_shell_would(env: dict[str, str], command: list[str]) -> None:
    assert editor_command(env) == command
    assert has_editor(env) is bool(env.get("VISUAL") or env.get("EDITOR"))


def test_an_unparsable_editor_command_says_which() -> None:
    with pytest.raises(EditorError) as caught:
        editor_command({"VISUAL": 'code "--wait'})
    assert str(caught.value).startswith("cannot parse the editor command 'code \"--wait': ")
    assert isinstance(caught.value, SlopError)  # one line to the user, not a traceback


def test_the_file_carries_the_suffix_and_what_the_editor_saved_comes_back(tmp_path: Path) -> None:
    script = recording_editor(tmp_path, "ed.sh", append="\nR: add a test")
    saved = edit_text("diff body", ".diff", env={"VISUAL": str(script)})
    assert saved == "diff body\nR: add a test"
    [args] = calls(tmp_path, "ed.sh")
    assert args.endswith(".diff") and "slop-" in args
    assert not Path(args).exists()  # the temp file is gone afterwards


def test_the_configured_editor_wins_over_visual(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configured = recording_editor(tmp_path, "configured.sh", append=" edited")
    visual = recording_editor(tmp_path, "visual.sh")
    monkeypatch.setenv("VISUAL", str(visual))
    console = make_console(io.StringIO(), no_color=True)
    term = TerminalIO(console, Renderer(console), interactive=True, editor=str(configured))
    assert term.edit("notes") == "notes edited"
    assert len(calls(tmp_path, "configured.sh")) == 1 and calls(tmp_path, "visual.sh") == []


def test_without_a_configured_editor_visual_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    visual = recording_editor(tmp_path, "visual.sh", append="!")
    monkeypatch.setenv("VISUAL", str(visual))
    console = make_console(io.StringIO(), no_color=True)
    term = TerminalIO(console, Renderer(console), interactive=True)
    assert term.edit("hello") == "hello!"


def test_a_missing_editor_is_one_error_line_and_nothing_changes(tmp_path: Path) -> None:
    out = io.StringIO()
    console = make_console(out, no_color=True)
    term = TerminalIO(console, Renderer(console), interactive=True, editor=str(tmp_path / "no-such-editor"))
    assert term.edit("keep me") is None
    assert "not found; set $EDITOR (e.g. export EDITOR=nano)" in out.getvalue()
