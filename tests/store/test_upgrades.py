"""A ledger written by an older slop opens in this one with its history intact, and a
file that cannot be a ledger is refused with one line saying what to do."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from slop.errors import StoreError
from slop.records import NewMessage, Role, Status, Usage
from slop.store import Store
from slop.store.db import Database
from slop.store.migrations import MIGRATIONS, migrate, schema_version
from slop.store.repair import CANCELLED_RESULT
from tests.store.turns import call_row


def older_ledger(path: Path, version: int) -> None:
    """A ledger as the slop that stopped at `version` left it, with a turn and its usage in it."""
    db = Database(str(path))
    migrate(db, MIGRATIONS[:version])
    db.execute("INSERT INTO messages(session_id, role, content, group_id) VALUES ('s', 'user', 'old question', '1')")
    db.execute("INSERT INTO messages(session_id, role, content, group_id) VALUES ('s', 'assistant', 'old answer', '1')")
    db.execute(
        "INSERT INTO usage(session_id, model, prompt_tokens, completion_tokens, total_tokens)"
        " VALUES ('s', 'm', 90, 10, 100)"
    )
    db.close()


@pytest.mark.parametrize("version", range(1, len(MIGRATIONS)))
def test_a_ledger_of_every_older_version_opens_with_its_history_and_bill(tmp_path: Path, version: int) -> None:
    path = tmp_path / "old.db"
    older_ledger(path, version)
    store = Store.open(str(path))
    try:
        assert schema_version(store.db) == len(MIGRATIONS)
        assert [m.content for m in store.messages.window("s", 0)] == ["old question", "old answer"]
        assert [h.snippet for h in store.search.messages("s", "question", 5)] == ["old [question]"]
        [usage] = store.usage.by_model("s")
        assert (usage.total_tokens, usage.cached_tokens, usage.reasoning_tokens) == (100, 0, 0)
        # and every later feature works on it: a new turn, undo, a file checkpoint, a turn lock
        gid = store.messages.new_group_id()
        assert gid > "1"
        store.messages.append("s", gid, NewMessage(Role.USER, "new question"))
        store.checkpoints.record_before("s", gid, "/p/a.py", b"x")
        store.turn_locks.release("s", store.turn_locks.acquire("s"))
        assert store.undo("s") is not None
        assert [m.content for m in store.messages.window("s", 0)] == ["old question", "old answer"]
    finally:
        store.close()


def test_the_upgrade_closes_calls_an_old_crash_left_open_and_remembers_their_ids(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = Database(str(path))
    migrate(db, MIGRATIONS[:3])  # before call ids and crash repair
    native = call_row("call_7").content
    db.execute("INSERT INTO messages(session_id, role, content, group_id) VALUES ('s', 'user', 'run it', '1')")
    db.execute(
        "INSERT INTO messages(session_id, role, content, status, group_id, parsing_strategy)"
        " VALUES ('s', 'assistant', ?, 'tool_call', '1', 'openai')",
        (native,),
    )
    db.close()
    store = Store.open(str(path))
    try:
        rows = store.messages.window("s", 0)
        assert [(m.role, m.status, m.tool_call_id, m.content) for m in rows[2:]] == [
            (Role.TOOL, Status.CANCELLED, "call_7", CANCELLED_RESULT)
        ]
        assert store.messages.reserve_call_ids(["call_7"]) != ["call_7"]  # an id the ledger already used
    finally:
        store.close()


def test_a_file_that_is_not_a_ledger_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a database\n" * 100)
    with pytest.raises(StoreError) as caught:
        Store.open(str(notes))
    message = str(caught.value)
    assert message.startswith(f"cannot use {notes} as the ledger (") and message.endswith("pass --db with another path")
    assert notes.read_text() == "my notes, not a database\n" * 100


def test_a_ledger_in_a_folder_that_cannot_be_made_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreError, match=r"^cannot open the ledger at .*Check the path or pass --db PATH\.$"):
        Store.open(str(blocker / "sub" / "ledger.db"))


def test_the_ledger_and_its_folder_are_private_to_the_user(tmp_path: Path) -> None:
    path = tmp_path / "new" / "ledger.db"
    store = Store.open(str(path))
    try:
        from tests.store.turns import turn

        turn(store, "s", "a secret plan")
        for file in (path, path.with_name("ledger.db-wal")):
            assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    finally:
        store.close()


def test_a_ledger_readable_by_others_is_tightened_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    Store.open(str(path)).close()
    os.chmod(path, 0o644)
    Store.open(str(path)).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_std_slop_sql_reads_what_slop_wrote(tmp_path: Path) -> None:
    """The queries std::slop's users know, on a plain sqlite3 connection."""
    path = tmp_path / "ledger.db"
    store = Store.open(str(path))
    gid = store.messages.new_group_id()
    store.messages.append("s", gid, NewMessage(Role.USER, "hello"))
    store.usage.record("s", gid, Usage(10, 2, 12, "gpt-x"))
    store.sessions.set_context_size("s", 7)
    store.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT role, content, status FROM messages WHERE group_id=?", (gid,)).fetchall() == [
            ("user", "hello", "completed")
        ]
        assert conn.execute("SELECT SUM(total_tokens) FROM usage WHERE session_id='s'").fetchone() == (12,)
        assert conn.execute("SELECT context_size FROM sessions WHERE id='s'").fetchone() == (7,)
        names = {row[0] for row in conn.execute("SELECT name FROM skills")}
        assert {"planner", "code_reviewer", "dba", "python_expert"} <= names
    finally:
        conn.close()
