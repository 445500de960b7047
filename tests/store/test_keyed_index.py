"""The history index keyed by session (slop.store.search_index): whatever is done to the
rows, by slop or by hand (appends in many sessions, edits, rows moved to another
session, deletions, a rolled-back turn), every session's search finds exactly its own
rows that hold the word, and an older ledger's index is rebuilt into it once."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from slop.store import Store
from slop.store.db import Database
from slop.store.migrations import MIGRATIONS, m010_keyed_search, migrate, schema_version
from slop.store.search import HistorySearch
from slop.store.search_index import ID_MASK, scope_of
from tests.store.turns import turn

WORDS = ["heron", "tern", "gull", "wren", "plover", "kestrel", "curlew", "dunlin"]
SESSIONS = ["a", "b", "c"]


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))


def truth(path: str, session: str, word: str) -> set[int]:
    """The rows of `session` holding `word`, read from the texts themselves."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT id, content FROM messages WHERE session_id = ?", (session,)).fetchall()
    finally:
        conn.close()
    return {rowid for rowid, text in rows if word in text.split()}


def found(search: HistorySearch, session: str, word: str) -> set[int]:
    return {hit.message_id for hit in search.messages(session, word, 1_000_000)}


def by_hand(path: str, sql: str, params: tuple[object, ...]) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()


def assert_index_matches_rows(store: Store, words: list[str] = WORDS) -> None:
    search = HistorySearch(store.db)
    for session in SESSIONS:
        for word in words:
            assert found(search, session, word) == truth(store.db.path, session, word), (session, word)
    store.db.execute("INSERT INTO history_fts(history_fts, rank) VALUES ('integrity-check', 0)")


@pytest.mark.parametrize("seed", range(4))
def test_every_session_finds_exactly_its_own_rows_whatever_was_done_to_them(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    store = Store.open(str(tmp_path / "l.db"))
    path = store.db.path
    try:
        for _ in range(12):
            turn(store, rng.choice(SESSIONS), sentence(rng), sentence(rng))
        for _ in range(40):
            ids = [r[0] for r in store.db.tuples("SELECT id FROM messages")]
            action = rng.randrange(5)
            if action == 0:
                turn(store, rng.choice(SESSIONS), sentence(rng), sentence(rng))
            elif action == 1:
                by_hand(path, "UPDATE messages SET content = ? WHERE id = ?", (sentence(rng), rng.choice(ids)))
            elif action == 2:
                by_hand(
                    path, "UPDATE messages SET session_id = ? WHERE id = ?", (rng.choice(SESSIONS), rng.choice(ids))
                )
            elif action == 3:
                by_hand(path, "DELETE FROM messages WHERE id = ?", (rng.choice(ids),))
            else:
                with pytest.raises(RuntimeError), store.db.transaction():
                    turn(store, rng.choice(SESSIONS), sentence(rng), sentence(rng))
                    raise RuntimeError("rolled back")
        assert_index_matches_rows(store)
    finally:
        store.close()


def test_a_session_new_to_the_index_is_given_the_next_number_and_rows_keep_their_ids(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "l.db"))
    try:
        assert scope_of(store.db, "a") is None and store.search.groups("a", '"heron"', 5) == []
        turn(store, "a", "heron")
        turn(store, "b", "heron")
        a, b = scope_of(store.db, "a"), scope_of(store.db, "b")
        assert a is not None and b is not None and b.base > a.last_key
        keys = [r[0] for r in store.db.tuples("SELECT id FROM history_fts_docsize ORDER BY id")]
        ids = [r[0] for r in store.db.tuples("SELECT id FROM messages ORDER BY id")]
        assert [k & ID_MASK for k in keys] == ids
        assert [k - a.base for k in keys[:2]] == ids[:2] and [k - b.base for k in keys[2:]] == ids[2:]
    finally:
        store.close()


def _rows(db: Database, seed: int) -> None:
    rng = random.Random(seed)
    for i in range(60):
        db.execute(
            "INSERT INTO messages(session_id, role, content, group_id) VALUES (?, 'user', ?, ?)",
            (rng.choice(SESSIONS), sentence(rng), str(i)),
        )


def _rankings(store: Store) -> dict[str, list[tuple[str, float]]]:
    query = '"heron" OR "wren" OR "kestrel"'
    return {s: [(h.group_id, round(h.score, 9)) for h in store.search.groups(s, query, 50)] for s in SESSIONS}


def test_an_index_of_session_tokens_is_rebuilt_keyed_once_and_ranks_as_a_new_ledger(tmp_path: Path) -> None:
    old, new = str(tmp_path / "nine.db"), str(tmp_path / "new.db")
    db = Database(old)
    migrate(db, MIGRATIONS[: MIGRATIONS.index(m010_keyed_search)])  # as slop wrote it before migration 10
    _rows(db, 5)
    assert "scope" in str(db.scalar("SELECT sql FROM sqlite_master WHERE name = 'history_fts'"))
    db.close()
    fresh = Store.open(new)
    _rows(fresh.db, 5)
    store = Store.open(old)
    try:
        assert schema_version(store.db) == len(MIGRATIONS)
        assert _rankings(store) == _rankings(fresh) and all(_rankings(store).values())
        assert_index_matches_rows(store)
        with store.db.transaction():
            m010_keyed_search(store.db)  # met again by a raced upgrade: nothing is indexed twice
        assert_index_matches_rows(store)
    finally:
        store.close()
        fresh.close()


def test_a_query_that_names_no_column_of_the_index_finds_nothing(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "l.db"))
    try:
        turn(store, "a", "heron in src main")
        for query in ["src:main", '"heron', "NEAR(", "scope : x"]:
            assert store.search.messages("a", query, 5) == []
            assert store.search.groups("a", query, 5) == []
        assert [h.message_id for h in store.search.messages("a", "heron", 5)] == [1]
    finally:
        store.close()


def test_the_user_is_told_once_when_an_upgrade_reindexes_a_big_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from slop.store import migrations

    monkeypatch.setattr(migrations, "NOTICE_FROM_ROWS", 50)
    old = str(tmp_path / "nine.db")
    db = Database(old)
    migrate(db, MIGRATIONS[: MIGRATIONS.index(m010_keyed_search)])
    _rows(db, 1)
    db.close()
    told: list[str] = []
    Store.open(str(tmp_path / "new.db"), notice=told.append).close()  # a new ledger: nothing to wait for
    Store.open(old, notice=told.append).close()
    Store.open(old, notice=told.append).close()  # upgraded already
    assert told == ["slop: rebuilding the search index of about 60 messages, once, after an upgrade ..."]


def test_a_session_number_rolled_back_and_given_to_another_session_is_not_kept(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "l.db"))
    try:
        search = store.search
        with pytest.raises(RuntimeError), store.db.transaction():
            turn(store, "a", "heron")  # session a's first row: it is given a number ...
            assert [h.message_id for h in search.messages("a", "heron", 5)] == [1]
            raise RuntimeError("rolled back")  # ... which goes with the turn
        turn(store, "b", "heron from b")  # and is given to b
        assert search.messages("a", "heron", 5) == [] and search.groups("a", '"heron"', 5) == []
        turn(store, "a", "heron from a")
        assert [h.snippet for h in search.messages("a", "heron", 5)] == ["[heron] from a"]
    finally:
        store.close()


_UPGRADE = """
import sys
from slop.store import Store
Store.open(sys.argv[1], notice=lambda text: print(text, flush=True))
print("done", flush=True)
"""


def test_an_upgrade_killed_while_it_reindexes_loses_nothing_and_runs_again(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = str(tmp_path / "nine.db")
    db = Database(path)
    migrate(db, MIGRATIONS[: MIGRATIONS.index(m010_keyed_search)])
    rng = random.Random(3)
    rows = [(rng.choice(SESSIONS), "user", sentence(rng), str(i)) for i in range(21_000)]
    with db.transaction():
        db.executemany("INSERT INTO messages(session_id, role, content, group_id) VALUES (?, ?, ?, ?)", rows)
    db.close()
    child = subprocess.Popen([sys.executable, "-c", _UPGRADE, path], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline().startswith("slop: rebuilding the search index of about 21,000 messages")
    child.kill()  # SIGKILL while the index is rebuilt
    assert child.wait() == -9
    store = Store.open(path)
    try:
        assert schema_version(store.db) == len(MIGRATIONS)
        assert store.db.scalar("SELECT count(*) FROM messages") == 21_000
        assert_index_matches_rows(store, ["heron", "dunlin"])
    finally:
        store.close()
