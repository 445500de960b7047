"""SQLite's varints, read where FTS5 writes them: the index's document sizes (BM25's
lengths) and its structure record (the upkeep's shape)."""

from __future__ import annotations

from pathlib import Path

import pytest

from slop.records import NewMessage, Role
from slop.store import Store, bm25
from slop.store.search_index import scope_of
from slop.store.varints import varint


def test_varints_of_every_length() -> None:
    assert varint(bytes([0x7F])) == (127, 1)
    assert varint(bytes([0x81, 0x00])) == (128, 2)
    assert varint(bytes([0x81, 0x80, 0x00]), 0) == (1 << 14, 3)
    assert varint(bytes([5, 0x83, 0x60]), 1) == (480, 3)  # from a position, and where the next begins
    assert varint(bytes([0xFF] * 9)) == ((1 << 64) - 1, 9)  # the ninth byte gives all 8 bits
    with pytest.raises(IndexError):
        varint(bytes([0x81]))  # cut short


def test_a_long_row_has_its_length_as_the_index_stored_it(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "l.db"))
    try:
        gid = store.messages.new_group_id()
        for words in (3, 300, 20_000):  # one, two and three bytes of varint in the index
            store.messages.append(
                "s", gid, NewMessage(Role.USER, " ".join(["word"] * words), parsing_strategy="openai")
            )
        ids = {int(r[0]) for r in store.db.tuples("SELECT id FROM messages")}
        scope = scope_of(store.db, "s")
        assert scope is not None
        lengths = bm25._lengths(store.db.tuples, scope, ids)
        assert sorted(lengths.values()) == [3, 300, 20_000]
    finally:
        store.close()
