"""In a real terminal: a disguised command shows its escapes at the approval prompt, and a
reply that tries to set the window title or clear the screen prints them as text."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pexpect

from tests.e2e.test_pty import term  # noqa: F401 - the pty fixture
from tests.fakellm import FakeLLM

DISGUISED = "touch PWNED # \x1b[2K\x1b[1Grun: ls -la"
TITLE = "\x1b]0;pwned title\x07"
CLEAR = "\x1b[2J\x1b[3J\x1b[H"


def test_approval_shows_the_escapes_and_no_raw_model_escape_reaches_the_terminal(
    term,  # noqa: F811
    fake_llm: FakeLLM,
    tmp_path: Path,
) -> None:  # type: ignore[no-untyped-def]
    fake_llm.enqueue_tool_calls([("execute_bash", {"command": DISGUISED})], text="Listing files." + TITLE)
    fake_llm.enqueue_text("Refused, fine." + CLEAR + " Title: " + TITLE + "\u202eevil")
    t = term()
    screen = io.StringIO()
    t.child.logfile_read = screen
    t.prompt()
    t.enter("list the files")
    t.expect(re.escape("run: touch PWNED # \\x1b[2K\\x1b[1Grun: ls -la"))  # the whole command, escapes visible
    t.expect("control or invisible characters")
    t.expect("Allow\\?")
    t.enter("n")
    t.expect("Refused, fine")
    t.prompt()
    output = screen.getvalue()
    assert not (tmp_path / "project" / "PWNED").exists()
    for raw in (DISGUISED, "\x1b[2K\x1b[1Grun", TITLE, "\x1b]0;", CLEAR, "\u202e"):
        assert raw not in output, f"{raw!r} reached the terminal raw"
    assert "\\x1b]0;pwned title\\x07" in output and "\\x1b[2J" in output and "\\u202eevil" in output
    # and the ledger keeps what the model really sent
    (stored,) = t.rows("SELECT content FROM messages WHERE role='assistant' AND content LIKE 'Refused%'")
    assert CLEAR in str(stored[0])
    # the next start replays the last exchange: with the escapes visible too
    t.enter("/exit")
    t.child.expect(pexpect.EOF, timeout=30)
    again = term()
    replay = io.StringIO()
    again.child.logfile_read = replay
    again.expect(re.escape("Refused, fine.\\x1b[2J"))
    again.prompt()
    assert CLEAR not in replay.getvalue() and TITLE not in replay.getvalue()


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_history_ledger_and_memos_are_private_even_when_they_were_not(term, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    home, ledger = tmp_path / "home", tmp_path / "ledger.db"
    home.mkdir(mode=0o755)
    os.chmod(home, 0o755)
    ledger.touch()
    os.chmod(ledger, 0o644)  # a ledger from an older slop, world-readable
    t = term()
    t.prompt()
    t.enter("/memo add build run make")
    t.expect("memo 1 saved")
    t.prompt()
    t.enter("/exit")
    t.child.expect(pexpect.EOF, timeout=30)
    assert _mode(home) == 0o700
    for path in (home / "history", home / "memos.db", ledger):
        assert _mode(path) == 0o600, path
    for path in (tmp_path / "ledger.db-wal", tmp_path / "ledger.db-shm", home / "memos.db-wal"):
        if path.exists():  # SQLite removes them on a clean close
            assert _mode(path) == 0o600, path
