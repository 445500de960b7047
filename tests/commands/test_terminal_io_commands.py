"""Commands through the terminal's own CommandIO (`TerminalIO` on a string console, as
the REPL wires it): /verbose, the /resume picker, y/N questions, long views and pages,
and JSON data. Answers are typed on stdin, the way a question reads them without a tty."""

from __future__ import annotations

import io
import json
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from slop.app import App, build
from slop.records import NewMessage, Role
from slop.settings import Settings
from slop.ui.console import make_console
from slop.ui.render import Renderer
from slop.ui.terminal_io import TerminalIO


@dataclass
class Terminal:
    app: App
    term: TerminalIO
    out: io.StringIO

    def run(self, line: str) -> None:
        self.app.engine.handle(line)

    def shown(self) -> str:
        text = self.out.getvalue()
        self.out.truncate(0)
        self.out.seek(0)
        return text

    def say(self, session: str, prompt: str) -> None:
        gid = self.app.store.messages.new_group_id()
        self.app.store.messages.append(session, gid, NewMessage(Role.USER, prompt))
        self.app.store.messages.append(session, gid, NewMessage(Role.ASSISTANT, "ok"))


def terminal(tmp_path: Path, *, interactive: bool = True, editor: str = "") -> Iterator[Terminal]:
    out = io.StringIO()
    console = make_console(out, no_color=True)
    console.size = (100, 20)  # type: ignore[assignment]
    term = TerminalIO(console, Renderer(console), interactive=interactive, editor=editor)
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    settings = Settings(
        db_path=str(tmp_path / "l.db"),
        home=str(tmp_path / "home"),
        project_root=str(root),
        prompt=None if interactive else "/help",  # batch mode: `slop --prompt ...`
    )
    app = build(settings, term, term.renderer, None)
    try:
        yield Terminal(app, term, out)
    finally:
        app.close()


@pytest.fixture
def tty(tmp_path: Path) -> Iterator[Terminal]:
    yield from terminal(tmp_path)


def typed(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


# ---- /verbose ------------------------------------------------------------------------


def test_verbose_shows_and_sets_how_much_tool_output_the_terminal_shows(tty: Terminal) -> None:
    tty.run("/verbose")
    assert "tool output: normal (/verbose [quiet|normal|full])" in tty.shown()
    tty.run("/verbose FULL")
    assert "tool output: full — one line per tool call, and up to 40 lines of a command's output" in tty.shown()
    assert tty.term.renderer.verbosity == "full"
    tty.run("/verbose loud")
    assert "unknown level 'loud'" in tty.shown()
    assert tty.term.renderer.verbosity == "full"


# ---- /resume -------------------------------------------------------------------------


def test_resume_picks_a_session_by_its_digit(tty: Terminal, monkeypatch: pytest.MonkeyPatch) -> None:
    tty.say("older", "fix the parser")
    tty.say("newer", "write the docs")
    typed(monkeypatch, "2\n")
    tty.run("/resume")
    shown = tty.shown()
    assert "Sessions, most recent first (● = current)" in shown
    assert shown.index("newer") < shown.index("older") and "fix the parser" in shown
    assert "Resume which? 1-2 (Esc: stay in 'default')" in shown
    assert tty.app.ctx.session == "older"
    assert "switched to session 'older'" in shown


@pytest.mark.parametrize("answer", ["\n", "7\n", ""])
def test_resume_stays_put_without_a_valid_pick(tty: Terminal, monkeypatch: pytest.MonkeyPatch, answer: str) -> None:
    tty.say("other", "something")
    typed(monkeypatch, answer)
    tty.run("/resume")
    assert "staying in 'default'" in tty.shown()
    assert tty.app.ctx.session == "default"


def test_resume_by_name_switches_at_once(tty: Terminal) -> None:
    tty.say("work", "the task")
    tty.run("/resume work")
    assert tty.app.ctx.session == "work"


def test_resume_with_no_conversations_says_so(tty: Terminal) -> None:
    tty.run("/resume")
    assert "no session has any messages yet" in tty.shown()


def test_resume_in_batch_mode_lists_and_says_how_to_switch(tmp_path: Path) -> None:
    for batch in terminal(tmp_path, interactive=False):
        batch.say("work", "the task")
        batch.run("/resume")
        shown = batch.shown()
        assert "work" in shown and "switch with /resume NAME" in shown
        assert batch.app.ctx.session == "default"


# ---- questions -----------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "deleted"), [("y\n", True), ("yes\n", True), ("n\n", False), ("\n", False)])
def test_a_y_n_question_is_asked_and_its_answer_echoed(
    tty: Terminal, monkeypatch: pytest.MonkeyPatch, answer: str, deleted: bool
) -> None:
    tty.say("old", "bye")
    typed(monkeypatch, answer)
    tty.run("/session remove old")
    shown = tty.shown()
    assert "Delete session 'old' with 2 messages, its STATE, scratchpad and settings? Memos are kept. [y/N] " in shown
    assert ("yes" if deleted else "no") in shown
    assert tty.app.store.messages.count("old") == (0 if deleted else 2)


def test_batch_mode_never_says_yes_to_a_question(tmp_path: Path) -> None:
    for batch in terminal(tmp_path, interactive=False):
        batch.say("old", "bye")
        batch.run("/session remove old")
        assert "session 'old' kept" in batch.shown()
        assert batch.app.store.messages.count("old") == 2


# ---- views, pages, data --------------------------------------------------------------


def test_a_short_view_is_printed_inline_with_escapes_shown(tty: Terminal) -> None:
    tty.term.view("line one\n\x1b[2Jline two")
    assert tty.shown().splitlines() == ["line one", "\\x1b[2Jline two"]


def test_a_view_taller_than_the_screen_opens_read_only_in_the_editor(tmp_path: Path) -> None:
    seen = tmp_path / "seen.txt"
    script = tmp_path / "viewer.sh"
    script.write_text(f'#!/bin/sh\ncp "$1" {seen}\nls -l "$1" > {seen}.mode\n')
    script.chmod(0o755)
    for tty in terminal(tmp_path, editor=str(script)):
        text = "\n".join(f"row {i}" for i in range(100))
        tty.term.view(text)
        assert seen.read_text() == text  # the whole text, in the editor, not on screen
        assert "row 50" not in tty.shown()
        assert seen.with_name("seen.txt.mode").read_text().startswith("-r--")  # a read-only copy


def test_a_failing_editor_falls_back_to_the_pager_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "broken.sh"
    script.write_text("#!/bin/sh\nexit 3\n")
    script.chmod(stat.S_IRWXU)
    monkeypatch.setenv("PAGER", "cat")
    for tty in terminal(tmp_path, editor=str(script)):
        where = tty.term.page("\n".join(f"row {i}" for i in range(100)))
        assert where == "the pager"
        assert "showing it in the pager instead" in tty.shown()


def test_data_is_json_a_program_can_read_back(tty: Terminal) -> None:
    value = {"text": "a very long line " * 20, "escape": "\x1b[2J", "n": [1, 2]}
    tty.term.data(value)
    assert json.loads(tty.shown()) == value


def test_batch_mode_prints_pages_and_refuses_the_editor(tmp_path: Path) -> None:
    for batch in terminal(tmp_path, interactive=False):
        assert batch.term.page("the whole text") == ""
        assert batch.term.edit("draft") is None
        shown = batch.shown()
        assert "the whole text" in shown
        assert "this command opens an editor, which batch mode does not do" in shown
        assert (batch.term.screen_height(), batch.term.screen_width()) == (0, 0)
