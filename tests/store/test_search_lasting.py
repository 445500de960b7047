"""What the history search keeps across writes (slop.store.search_cache): row lengths.
A search that kept them must rank exactly as a fresh one after any sequence of what
happens to a ledger: turns appended here and by another session, rows edited or moved by
hand through another connection, a group removed, a transaction rolled back after a
search ran inside it (its ids are then reused)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from slop.store import Store, bm25
from slop.store.search import HistorySearch
from slop.store.search_index import Scope
from tests.store.turns import turn as stored_turn

WORDS = ["heron", "tern", "gull", "wren", "plover", "osprey", "kestrel"]


class _RolledBack(Exception):
    pass


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    # A "big" session from 24 rows on, read over spans of 2 rows per wanted match: small
    # enough that the test's sessions take both paths (whole words; spans of newest rows).
    monkeypatch.setattr(bm25, "COUNT_CAP", 24)
    monkeypatch.setattr(bm25, "_FIRST_SPAN", 2)
    opened = Store.open(str(tmp_path / "l.db"))
    yield opened
    opened.close()


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))


def ranking(search: HistorySearch, newest: int) -> list[tuple[str, float]]:
    query = '"heron" OR "wren" OR "kestrel"'
    return [(h.group_id, round(h.score, 9)) for h in search.groups("a", query, 100, newest=newest)]


def by_hand(store: Store, sql: str, params: tuple[object, ...] = ()) -> None:
    """An edit made outside slop (sqlite3 in another terminal)."""
    other = sqlite3.connect(store.db.path)
    other.execute(sql, params)
    other.commit()
    other.close()


def operations(store: Store, rng: random.Random, warm: HistorySearch) -> list[Callable[[], None]]:
    def append_here() -> None:
        stored_turn(store, "a", sentence(rng), sentence(rng))

    def append_elsewhere() -> None:
        stored_turn(store, "b", sentence(rng), sentence(rng))

    def edit_a_row() -> None:
        row = rng.choice(store.db.tuples("SELECT id FROM messages"))[0]
        by_hand(store, "UPDATE messages SET content = ? WHERE id = ?", (sentence(rng) * rng.randint(1, 4), row))

    def move_a_row() -> None:
        row = rng.choice(store.db.tuples("SELECT id FROM messages WHERE session_id = 'a'"))[0]
        by_hand(store, "UPDATE messages SET session_id = 'b' WHERE id = ?", (row,))

    def remove_a_group() -> None:
        groups = store.db.tuples("SELECT DISTINCT group_id FROM messages WHERE session_id = 'a'")
        if len(groups) > 3:
            store.messages.delete_group("a", rng.choice(groups)[0])

    def search_inside_a_rolled_back_turn() -> None:
        with pytest.raises(_RolledBack), store.db.transaction():
            stored_turn(store, "a", sentence(rng), "heron " * rng.randint(1, 30))
            ranking(warm, rng.choice([0, 3, 5]))
            raise _RolledBack
        stored_turn(store, rng.choice("ab"), sentence(rng), sentence(rng))  # takes the rolled-back ids

    return [append_here] * 4 + [
        append_elsewhere,
        edit_a_row,
        move_a_row,
        remove_a_group,
        search_inside_a_rolled_back_turn,
    ]


@pytest.mark.parametrize("seed", range(6))
def test_a_search_that_kept_facts_ranks_as_a_fresh_one_whatever_happened_in_between(store: Store, seed: int) -> None:
    rng = random.Random(seed)
    warm = HistorySearch(store.db)
    for _ in range(20):
        stored_turn(store, "a", sentence(rng), sentence(rng))
    ops = operations(store, rng, warm)
    for step in range(60):
        op = rng.choice(ops)
        op()
        for newest in (3, 5, 0):
            assert ranking(warm, newest) == ranking(HistorySearch(store.db), newest), (step, op.__name__, newest)


def test_after_a_write_only_the_new_rows_lengths_are_read(store: Store) -> None:
    """The next request's search reads the index lengths of the rows written since, not
    again those of every row it ranks (the kept lengths)."""
    for i in range(40):
        stored_turn(store, "a", f"heron {i}", "wren")
    search = HistorySearch(store.db)
    ranking(search, 0)
    read: list[int] = []
    lengths = bm25._lengths

    def counted(query: bm25.Query, scope: Scope, ids: set[int]) -> dict[int, int]:
        read.extend(ids)
        return lengths(query, scope, ids)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bm25, "_lengths", counted)
        stored_turn(store, "a", "heron again", "wren")
        ranking(search, 0)
    assert len(read) == 2  # the turn's user row and its answer


def test_a_search_on_a_ledger_without_the_epoch_keeps_nothing_and_still_ranks(store: Store) -> None:
    for i in range(30):
        stored_turn(store, "a", f"heron {i}", "wren")
    for dropped in ("TRIGGER edit_epoch_update", "TRIGGER edit_epoch_delete", "TABLE edit_epoch"):
        store.db.execute(f"DROP {dropped}")  # an older ledger's shape
    warm = HistorySearch(store.db)
    ranking(warm, 3)
    by_hand(store, "UPDATE messages SET content = 'heron heron heron heron' WHERE id = 1")
    assert ranking(warm, 3) == ranking(HistorySearch(store.db), 3)


def test_after_a_write_a_big_sessions_newest_rows_are_read_from_the_new_rows_only(store: Store) -> None:
    """BM25's N and a big session's spans come from its newest rows: read whole once,
    then only the rows written since (a walk of COUNT_CAP keys each request otherwise)."""
    for i in range(40):
        stored_turn(store, "a", f"heron {i}", "wren")
    search = HistorySearch(store.db)
    ranking(search, 3)
    statements: list[str] = []
    store.db._conn.set_trace_callback(statements.append)
    try:
        stored_turn(store, "a", "heron again", "wren")
        ranking(search, 3)
    finally:
        store.db._conn.set_trace_callback(None)
    reads = [s for s in statements if "history_fts_docsize WHERE id BETWEEN" in s]
    assert reads and not any("DESC" in s for s in reads)  # no walk back over the session
    assert list(search._lasting.rows["a"]) == [r[0] for r in store.db.tuples("SELECT id FROM messages")][-24:]
