"""Item 1: several slop processes opening a fresh ledger at once never brick it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from slop.store import Store
from slop.store.db import Database
from slop.store.migrations import MIGRATIONS, migrate, schema_version
from tests.reliability.checks import ledger_problems
from tests.reliability.conftest import SlopRunner

# Each process imports slop first, then waits for the go file, so they all open the
# ledger within a millisecond of each other (the old code failed 10 of 10 such rounds).
OPEN_AT_ONCE = """
import os, sys, time
from slop.store import Store
while not os.path.exists(sys.argv[2]):
    time.sleep(0.001)
Store.open(sys.argv[1]).close()
"""


def columns(db: Database, table: str) -> list[str]:
    return [row[1] for row in db.query(f"PRAGMA table_info({table})")]


def test_processes_opening_a_fresh_ledger_at_once_never_brick_it(tmp_path: Path) -> None:
    for round_ in range(5):
        ledger, go = tmp_path / f"fresh{round_}.db", tmp_path / f"go{round_}"
        procs = [
            subprocess.Popen([sys.executable, "-c", OPEN_AT_ONCE, str(ledger), str(go)], stderr=subprocess.PIPE)
            for _ in range(4)
        ]
        time.sleep(0.3)  # let them import and wait at the barrier
        go.touch()
        errors = [p.communicate(timeout=60)[1].decode() for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
        store = Store.open(str(ledger))  # the next start opens it
        assert schema_version(store.db) == len(MIGRATIONS)
        assert columns(store.db, "messages").count("call_ids") == 1
        store.close()


def test_two_slop_commands_on_a_fresh_ledger_then_a_third(slop: SlopRunner) -> None:
    """The issue's repro, through the real command line."""
    procs = [slop.popen("--prompt", "/message list") for _ in range(3)]
    outputs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outputs
    after = slop.run("--prompt", "/message list")
    assert after.returncode == 0, after.stderr
    assert "no messages in session 'default' yet" in after.stdout + after.stderr


def test_a_ledger_left_broken_by_the_old_race_opens_and_repairs(tmp_path: Path) -> None:
    """The state the old race left: call_ids added, then user_version lowered to 3."""
    path = str(tmp_path / "broken.db")
    db = Database(path)
    migrate(db, MIGRATIONS[:4])
    db.execute("INSERT INTO messages(session_id, role, content, group_id) VALUES ('s', 'user', 'keep me', '1')")
    db.execute("PRAGMA user_version=3")
    db.close()
    store = Store.open(path)
    try:
        assert schema_version(store.db) == len(MIGRATIONS)
        assert columns(store.db, "messages").count("call_ids") == 1
        assert [m.content for m in store.messages.window("s", 0)] == ["keep me"]
    finally:
        store.close()
    assert ledger_problems(path) == []


def test_the_schema_version_is_never_lowered(tmp_path: Path) -> None:
    """A ledger a newer slop wrote (more migrations) keeps its version."""
    path = str(tmp_path / "newer.db")
    Store.open(path).close()
    db = Database(path)
    db.execute(f"PRAGMA user_version={len(MIGRATIONS) + 3}")
    db.close()
    store = Store.open(path)
    try:
        assert schema_version(store.db) == len(MIGRATIONS) + 3
    finally:
        store.close()


def test_a_callable_migration_sees_the_schema_and_runs_once(tmp_path: Path) -> None:
    calls: list[int] = []

    def add_table(db: Database) -> None:
        calls.append(schema_version(db))
        db.execute("CREATE TABLE extra (x)")

    db = Database(str(tmp_path / "m.db"))
    assert migrate(db, (*MIGRATIONS, add_table)) == len(MIGRATIONS) + 1
    assert migrate(db, (*MIGRATIONS, add_table)) == len(MIGRATIONS) + 1
    assert calls == [len(MIGRATIONS)]
    db.close()
