"""Message records kept across requests (slop.store.row_cache): a ledger read by a store
that kept records must give exactly the records a fresh store reads, whatever happened
in between: turns appended, groups dropped and restored, token counts recounted, rows
edited or deleted by hand through another connection, a transaction rolled back after
it read rows (their ids are then reused)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from slop.records import Message, Status
from slop.store import Store
from tests.store.turns import tool_turn, turn

COLUMNS = ["content", "group_id", "tool_call_id", "reasoning", "created_at", "role", "parsing_strategy", "call_ids"]
VALUES = {
    "role": ["user", "assistant", "tool"],
    "group_id": ["g-moved", None],
    "parsing_strategy": ["gemini", "openai"],
}


class _RolledBack(Exception):
    pass


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "l.db"))
    yield opened
    opened.close()


def groups(store: Store) -> list[str]:
    return [r[0] for r in store.db.tuples("SELECT DISTINCT group_id FROM messages WHERE group_id IS NOT NULL")]


def read(store: Store, hidden: bool = False) -> list[Message]:
    return store.messages.messages_of_groups("a", groups(store), include_ungrouped=not hidden, include_hidden=hidden)


def by_hand(store: Store, sql: str, params: tuple[object, ...] = ()) -> None:
    """An edit made outside slop (sqlite3 in another terminal)."""
    other = sqlite3.connect(store.db.path)
    other.execute(sql, params)
    other.commit()
    other.close()


def operations(store: Store, rng: random.Random) -> list[Callable[[], None]]:
    def append() -> None:
        if rng.random() < 0.5:
            turn(store, "a", f"question {rng.random()}", f"answer {rng.random()}")
        else:
            tool_turn(store, "a", f"read {rng.random()}", f"c{rng.random()}")

    def drop_or_restore() -> None:
        gid = rng.choice(groups(store))
        if rng.random() < 0.5:
            store.messages.set_group_status("a", gid, Status.DROPPED)
        else:
            store.messages.set_group_status("a", gid, Status.COMPLETED, only_from=Status.DROPPED)

    def recount() -> None:
        store.messages.recount(rng.randint(0, store.messages.last_id()))

    def edit_by_hand() -> None:
        column = rng.choice(COLUMNS)
        value = rng.choice(VALUES.get(column, [f"edited {rng.random()}"]))
        row = rng.choice(store.db.tuples("SELECT id FROM messages"))[0]
        by_hand(store, f"UPDATE messages SET {column} = ? WHERE id = ?", (value, row))

    def count_by_hand() -> None:  # what slop changes itself, done by hand
        row = rng.choice(store.db.tuples("SELECT id FROM messages"))[0]
        by_hand(store, "UPDATE messages SET tokens = ?, content_tokens = ? WHERE id = ?", (rng.randint(0, 9), 7, row))

    def delete() -> None:
        if len(groups(store)) > 3:
            store.messages.delete_group("a", rng.choice(groups(store)))

    def read_inside_a_rolled_back_turn() -> None:
        with pytest.raises(_RolledBack), store.db.transaction():
            turn(store, "a", "gone-question", "gone-answer")
            read(store)
            raise _RolledBack
        # the rolled-back ids again, with the same status and token counts: only the text differs
        turn(store, "a", "kept-question", "kept-answer")

    return [append] * 3 + [
        drop_or_restore,
        recount,
        edit_by_hand,
        count_by_hand,
        delete,
        read_inside_a_rolled_back_turn,
    ]


@pytest.mark.parametrize("seed", range(6))
def test_kept_records_read_as_a_fresh_store_reads_them_whatever_happened_in_between(
    store: Store, seed: int, tmp_path: Path
) -> None:
    rng = random.Random(seed)
    for _ in range(6):
        turn(store, "a", f"question {rng.random()}", "answer")
    ops = operations(store, rng)
    for step in range(50):
        op = rng.choice(ops)
        op()
        read(store)  # what a request reads (and keeps)
        fresh = Store.open(str(tmp_path / "l.db"))
        try:
            for hidden in (False, True):
                assert read(store, hidden) == read(fresh, hidden), (step, op.__name__, hidden)
        finally:
            fresh.close()


def test_the_next_read_after_a_turn_builds_only_the_new_turns_records(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(10):
        turn(store, "a", f"question {i}", "answer")
    read(store)
    import slop.store.row_cache as row_cache

    built: list[int] = []
    to_messages = row_cache.to_messages

    def counted(rows: list[tuple[object, ...]]) -> list[Message]:
        built.extend(int(str(r[0])) for r in rows)
        return to_messages(rows)  # type: ignore[arg-type]

    monkeypatch.setattr(row_cache, "to_messages", counted)
    turn(store, "a", "question 10", "answer")
    assert len(read(store)) == 22
    assert len(built) == 2


def test_a_row_deleted_by_another_process_between_the_two_reads_is_left_out(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read asks for ids and states, then for the rows whose kept record is out of
    date: one deleted in between is not answered with the out-of-date record."""
    gid = turn(store, "a", "question", "answer")
    read(store)
    store.messages.set_group_status("a", gid, Status.DROPPED)
    tuples = store.db.tuples

    def deleting_first(sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        if "json_each" in sql:
            by_hand(store, "DELETE FROM messages WHERE group_id = ?", (gid,))
        return tuples(sql, params)

    monkeypatch.setattr(store.db, "tuples", deleting_first)
    assert store.messages.messages_of_groups("a", [gid], include_hidden=True) == []
