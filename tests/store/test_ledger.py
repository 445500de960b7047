"""The ledger: schema, groups, windows, drop/restore, undo rollback, clone isolation, atomicity."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from slop.errors import StoreError
from slop.records import NewMessage, Role, Status
from slop.store import Store
from slop.store.migrations import MIGRATIONS, schema_version


def turn(store: Store, session: str, text: str, answer: str = "ok") -> str:
    gid = store.messages.new_group_id()
    store.messages.append(session, gid, NewMessage(Role.USER, text))
    store.messages.append(session, gid, NewMessage(Role.ASSISTANT, answer))
    return gid


def test_fresh_ledger_is_wal_migrated_and_compatible(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "l.db"))
    assert store.db.scalar("PRAGMA journal_mode") == "wal"
    assert schema_version(store.db) == len(MIGRATIONS)
    gid = turn(store, "s", "hello")
    mid = store.messages.window("s", 1)[0].id
    store.close()
    # the seed's SQL works as written, from a plain sqlite3 connection
    conn = sqlite3.connect(tmp_path / "l.db")
    assert conn.execute(f"SELECT content FROM messages WHERE id={mid}").fetchone() == ("hello",)
    assert conn.execute("SELECT context_size FROM sessions WHERE id='s'").fetchone() == (5,)
    assert conn.execute("SELECT group_id FROM messages WHERE id=?", (mid,)).fetchone() == (gid,)
    conn.close()


def test_reopening_does_not_rerun_migrations(tmp_path: Path) -> None:
    Store.open(str(tmp_path / "l.db")).close()
    store = Store.open(str(tmp_path / "l.db"))
    assert schema_version(store.db) == len(MIGRATIONS)
    store.close()


def test_group_ids_are_unique_increasing_and_sort_as_text(store: Store) -> None:
    ids = [store.messages.new_group_id() for _ in range(3)]
    for gid in ids:
        store.messages.append("a", gid, NewMessage(Role.USER, "x"))
    later = store.messages.new_group_id()
    assert ids == sorted(ids) and len(set(ids)) == 3
    assert later > ids[-1] and len(later) == 19


def test_tokens_counted_once_on_insert(tmp_path: Path) -> None:
    calls: list[str] = []

    def counter(text: str) -> int:
        calls.append(text)
        return 7

    store = Store.open(str(tmp_path / "l.db"), counter)
    gid = store.messages.new_group_id()
    store.messages.append("s", gid, NewMessage(Role.ASSISTANT, "answer", tokens=1234))
    msg = store.messages.window("s", 0)[0]
    assert (msg.tokens, msg.content_tokens) == (1234, 7)  # seed weight vs the row's own size
    store.messages.window("s", 0)
    assert calls == ["answer"]
    store.close()


@pytest.mark.parametrize(
    ("n", "expected"), [(0, ["g1", "g2", "g3"]), (1, ["g3"]), (2, ["g2", "g3"]), (9, ["g1", "g2", "g3"])]
)
def test_window_selects_last_n_groups(store: Store, n: int, expected: list[str]) -> None:
    for label in ("g1", "g2", "g3"):
        turn(store, "s", label)
    texts = [m.content for m in store.messages.window("s", n) if m.role == Role.USER]
    assert texts == expected


def test_dropped_group_leaves_every_window_and_restores_exactly(store: Store) -> None:
    g1 = turn(store, "s", "one")
    gid = store.messages.new_group_id()
    store.messages.append_many(
        "s",
        gid,
        [
            NewMessage(Role.USER, "two"),
            NewMessage(Role.ASSISTANT, '{"tool_calls": []}', Status.TOOL_CALL),
            NewMessage(Role.TOOL, "result", Status.ERROR, tool_call_id="c1"),
        ],
    )
    turn(store, "s", "three")
    assert store.drop_group("s", gid) == 3
    assert [m.content for m in store.messages.window("s", 2) if m.role == Role.USER] == ["one", "three"]
    assert store.restore_group("s", gid) == 3
    statuses = [m.status for m in store.messages.group("s", gid)]
    assert statuses == [Status.COMPLETED, Status.TOOL_CALL, Status.ERROR]
    assert g1 in store.messages.last_group_ids("s", 5)


def test_undo_restores_previous_state_and_scratchpad(store: Store) -> None:
    g1 = turn(store, "s", "first")
    store.sessions.push_state("s", g1, "### STATE\nGoal: one")
    store.sessions.set_scratchpad("s", "plan v1", g1)
    g2 = turn(store, "s", "second")
    store.sessions.push_state("s", g2, "### STATE\nGoal: two")
    store.sessions.set_scratchpad("s", "plan v2", g2)
    store.sessions.set_scratchpad("s", "plan v3", g2)
    result = store.undo("s")
    assert result is not None and result.group_id == g2 and result.scratchpad_restored
    assert store.sessions.state("s") == "### STATE\nGoal: one"
    assert store.sessions.scratchpad("s") == "plan v1"
    assert [m.content for m in store.messages.window("s", 0) if m.role == Role.USER] == ["first"]


def test_undo_on_empty_session_is_none(store: Store) -> None:
    assert store.undo("nobody") is None


def test_clone_gets_fresh_gids_so_undo_is_isolated(store: Store) -> None:
    turn(store, "src", "a")
    turn(store, "src", "b")
    store.sessions.set_scratchpad("src", "pad")
    store.sessions.set_context_size("src", 3)
    store.sessions.clone("src", "dst", int(store.messages.new_group_id()))
    src_gids = set(store.messages.last_group_ids("src", 0))
    dst_gids = set(store.messages.last_group_ids("dst", 0))
    assert len(dst_gids) == 2 and not (src_gids & dst_gids)
    assert store.sessions.get("dst").context_size == 3
    assert store.sessions.scratchpad("dst") == "pad"
    store.undo("dst")
    assert [m.content for m in store.messages.window("src", 0) if m.role == Role.USER] == ["a", "b"]
    assert [m.content for m in store.messages.window("dst", 0) if m.role == Role.USER] == ["a"]
    with pytest.raises(StoreError, match="already exists"):
        store.sessions.clone("src", "dst", int(store.messages.new_group_id()))


def test_append_many_is_all_or_nothing(store: Store) -> None:
    gid = store.messages.new_group_id()
    with pytest.raises(StoreError):
        store.messages.append_many("s", gid, [NewMessage(Role.TOOL, "ok", tool_call_id="1"), NewMessage("bogus", "x")])
    assert store.messages.count("s") == 0


def test_crash_mid_transaction_leaves_no_half_written_rows(tmp_path: Path) -> None:
    """A process killed inside a step: SQLite's journal rolls the step back on reopen."""
    import subprocess
    import sys

    db = tmp_path / "l.db"
    Store.open(str(db)).close()
    code = (
        "import os\nfrom slop.store import Store\nfrom slop.records import NewMessage\n"
        f"s = Store.open({str(db)!r})\n"
        "with s.db.transaction():\n"
        "    s.messages.append('s', '1', NewMessage('user', 'half'))\n"
        "    os._exit(9)\n"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 9
    store = Store.open(str(db))
    assert store.messages.count("s") == 0
    store.close()


def test_session_list_and_clear(store: Store) -> None:
    turn(store, "a", "x")
    turn(store, "b", "y")
    names = [row["id"] for row in store.sessions.list()]
    assert set(names) >= {"a", "b"}
    store.sessions.clear("a")
    assert store.messages.count("a") == 0 and store.messages.count("b") == 2


def test_list_groups_reports_tokens_and_status(store: Store) -> None:
    gid = store.messages.new_group_id()
    store.messages.append("s", gid, NewMessage(Role.USER, "prompt text"))
    store.messages.append("s", gid, NewMessage(Role.ASSISTANT, "x", tokens=321))
    store.drop_group("s", turn(store, "s", "later"))
    groups = store.messages.list_groups("s", 10)
    assert [(g.prompt, g.status) for g in groups] == [("later", "dropped"), ("prompt text", "active")]
    assert groups[1].tokens == 321


def test_a_ledger_indexed_the_old_way_is_reindexed_scoped_and_without_json(tmp_path: Path) -> None:
    from slop.providers.openai_wire import openai_native
    from slop.records import ToolCall
    from slop.store.db import Database
    from slop.store.migrations import m008_scoped_search, migrate

    path = str(tmp_path / "old.db")
    db = Database(path)
    migrate(db, MIGRATIONS[: MIGRATIONS.index(m008_scoped_search)])  # as slop wrote it before the scoped index
    call = openai_native("looking", [ToolCall("c1", "read_file", '{"path": "heron.py"}')])
    db.execute("INSERT INTO messages(session_id, role, content, group_id) VALUES ('a', 'user', 'the heron bug', '1')")
    db.execute(
        "INSERT INTO messages(session_id, role, content, status, group_id) VALUES ('a', 'assistant', ?,"
        " 'tool_call', '1')",
        (call,),
    )
    db.execute("INSERT INTO messages(session_id, role, content, group_id) VALUES ('b', 'user', 'heron too', '2')")
    db.close()
    store = Store.open(path)  # migrates the rest
    try:
        assert schema_version(store.db) == len(MIGRATIONS)
        search = store.search
        assert [h.group_id for h in search.groups("a", '"heron"', 5)] == ["1"]  # session b's row is not a's
        assert search.groups("a", '"tool_calls"', 5) == [] and search.groups("a", '"function"', 5) == []
        assert [h.group_id for h in search.groups("a", '"looking"', 5)] == ["1"]
        store.db.execute("DELETE FROM messages WHERE session_id='a'")  # the delete trigger matches the insert
        assert search.groups("a", '"heron"', 5) == []
        store.db.execute("INSERT INTO history_fts(history_fts) VALUES ('integrity-check')")
    finally:
        store.close()


def _ledger_at_seven(path: str, seventh: object) -> None:
    """A ledger numbered 7 by one of the two builds that each called their own step 7."""
    from slop.store.db import Database
    from slop.store.migrations import migrate

    db = Database(path)
    migrate(db, (*MIGRATIONS[:6], seventh))  # type: ignore[arg-type]
    db.execute("INSERT INTO messages(session_id, role, content, group_id) VALUES ('a', 'user', 'the heron bug', '1')")
    db.execute("INSERT INTO messages(session_id, role, content, group_id) VALUES ('b', 'user', 'heron too', '2')")
    assert schema_version(db) == 7
    db.close()


@pytest.mark.parametrize("order", ["usage columns first (cost)", "scoped index first (recall)"])
def test_a_ledger_at_version_seven_from_either_build_upgrades_to_both(tmp_path: Path, order: str) -> None:
    from slop.store.migrations import m007_usage_cache
    from slop.store.search_index import M008_SCOPED_SEARCH

    path = str(tmp_path / "seven.db")
    _ledger_at_seven(path, m007_usage_cache if order.startswith("usage") else M008_SCOPED_SEARCH)
    for _ in range(2):  # opening it again changes nothing
        store = Store.open(path)
        try:
            assert schema_version(store.db) == len(MIGRATIONS) == 10
            columns = {row[1] for row in store.db.query("PRAGMA table_info(usage)")}
            assert {"cached_tokens", "reasoning_tokens"} <= columns
            assert [h.group_id for h in store.search.groups("a", '"heron"', 5)] == ["1"]
            store.db.execute("INSERT INTO history_fts(history_fts) VALUES ('integrity-check')")
        finally:
            store.close()


def test_the_scoped_search_step_met_twice_keeps_one_index_entry_per_row(tmp_path: Path) -> None:
    from slop.store.db import Database
    from slop.store.migrations import m008_scoped_search
    from slop.store.search import HistorySearch

    path = str(tmp_path / "twice.db")
    store = Store.open(path)
    turn(store, "a", "kingfisher nest")
    store.close()
    db = Database(path)
    with db.transaction():
        m008_scoped_search(db)  # as a raced or interrupted upgrade would meet it again
    hits = HistorySearch(db).groups("a", '"kingfisher"', 5)
    assert len(hits) == 1
    db.execute("INSERT INTO history_fts(history_fts) VALUES ('integrity-check')")
    db.close()
