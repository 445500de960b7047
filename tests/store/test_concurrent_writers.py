"""Several slop processes writing one ledger at once (terminals in other sessions, a
batch run, an /undo): every write lands or waits its turn, none is lost or doubled, and
the file stays a sound SQLite database."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from slop.store import Store
from tests.store.turns import turn

ROOT = Path(__file__).resolve().parents[2]
TURNS = 15

WRITER = textwrap.dedent(
    """
    import os, sys, time
    from slop.records import Usage
    from slop.store import Store
    from tests.store.turns import tool_turn, turn
    path, session, start = sys.argv[1], sys.argv[2], sys.argv[3]
    store = Store.open(path)
    while not os.path.exists(start):  # start together with the others
        time.sleep(0.005)
    for i in range(int(sys.argv[4])):
        with store.turn_locks.hold(session):
            gid = turn(store, session, f"{session} question {i}")
            tool_turn(store, session, f"{session} tools {i}", f"{session}_call_{i}")
            store.sessions.append_scratchpad(session, f"{session} note {i}", gid)
            store.usage.record(session, gid, Usage(100, 10, 110, "m"))
    store.close()
    """
)


def test_writers_in_several_sessions_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    Store.open(str(path)).close()  # migrated once, as the first slop would
    start = tmp_path / "start"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    sessions = ["alpha", "beta", "gamma"]
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, str(start), str(TURNS)], env=env, stderr=subprocess.PIPE
        )
        for name in sessions
    ]
    start.touch()  # all at once
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err.decode()

    store = Store.open(str(path))
    try:
        for name in sessions:
            rows = store.messages.window(name, 0)
            assert len(rows) == TURNS * 6  # 2 rows per plain turn, 4 per tool turn
            assert store.usage.session_total(name) == TURNS * 110
            notes = store.sessions.scratchpad(name).splitlines()
            assert notes == [f"{name} note {i}" for i in range(TURNS)]  # in order, none lost
            assert store.turn_locks.holder(name) is None  # every lock released
        gids = store.messages.last_group_ids("alpha", 0) + store.messages.last_group_ids("beta", 0)
        gids += store.messages.last_group_ids("gamma", 0)
        assert len(gids) == len(set(gids)) == TURNS * 2 * 3  # group ids unique across processes
    finally:
        store.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()


def test_an_undo_in_one_process_while_another_writes_only_takes_its_own_session(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    store = Store.open(str(path))
    for i in range(5):
        turn(store, "mine", f"mine {i}")
    start = tmp_path / "start"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), "theirs", str(start), str(TURNS)], env=env, stderr=subprocess.PIPE
    )
    start.touch()
    undone = [store.undo("mine") for _ in range(3)]
    _, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err.decode()
    try:
        assert all(u is not None and u.messages == 2 for u in undone)
        assert [m.content for m in store.messages.window("mine", 0) if m.role == "user"] == ["mine 0", "mine 1"]
        assert len(store.messages.window("theirs", 0)) == TURNS * 6
    finally:
        store.close()
