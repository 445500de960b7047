"""What one search keeps for the next (slop.store.bm25.Memo): the expanded query of a
ranked request is read from the first search's collection, and nothing kept survives a
write to the ledger, through this connection or another process's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from slop.store import Store, bm25
from slop.store.search import HistorySearch
from tests.store.turns import turn as stored_turn


@pytest.fixture(params=["small session", "big session"])
def path(tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Both ways of reading the first collection (per word; one walk of the OR)."""
    if request.param == "big session":
        monkeypatch.setattr(bm25, "COUNT_CAP", 1)
    return tmp_path / "l.db"


@pytest.fixture
def store(path: Path) -> Iterator[Store]:
    opened = Store.open(str(path))
    yield opened
    opened.close()


def turn(store: Store, session: str, text: str, answer: str = "noted") -> str:
    return stored_turn(store, session, text, answer)  # "noted": an answer word the search can see


def hits(search: HistorySearch, query: str, newest: int = 0, session: str = "a") -> list[tuple[str, float]]:
    return [(h.group_id, h.score) for h in search.groups(session, query, 500, newest=newest)]


def fill(store: Store) -> None:
    """A session with a rare word, words in every other turn, and another session's
    turns in between (the expanded search reads its added words inside the session)."""
    for i in range(60):
        turn(store, "a", f"the heron parser case {i} {'gull' if i % 2 else 'tern'} {'wren' if i % 7 == 0 else ''}")
        if i % 3 == 0:
            turn(store, "b", f"heron gull tern wren in another session {i}")


@pytest.mark.parametrize("newest", [0, 5, 25, 40, 1000])
@pytest.mark.parametrize("added", ['"gull"', '"wren"', '"gull" OR "wren" OR "plover"'])
def test_an_expanded_search_ranks_as_a_fresh_one(store: Store, newest: int, added: str) -> None:
    fill(store)
    warm = HistorySearch(store.db)
    hits(warm, '"heron" OR "tern"', newest)
    expanded = f'"heron" OR "tern" OR {added}'
    assert hits(warm, expanded, newest) == hits(HistorySearch(store.db), expanded, newest)


def test_an_expanded_search_still_finds_only_the_sessions_own_turns(store: Store) -> None:
    mine = turn(store, "a", "the heron migration")
    for i in range(30):
        turn(store, "b", f"osprey sighting {i}")
    search = HistorySearch(store.db)
    assert [g for g, _ in hits(search, '"heron"', 10)] == [mine]
    assert [g for g, _ in hits(search, '"heron" OR "osprey"', 10)] == [mine]


def test_a_turn_added_between_two_searches_is_found(store: Store) -> None:
    fill(store)
    search = HistorySearch(store.db)
    hits(search, '"heron"', 25)
    new = turn(store, "a", "heron and kestrel")
    assert hits(search, '"heron" OR "kestrel"', 25)[0][0] == new


def test_a_group_dropped_or_compacted_between_two_searches_is_not_found(store: Store) -> None:
    fill(store)
    dropped = turn(store, "a", "kestrel one")
    compacted = turn(store, "a", "kestrel two")
    search = HistorySearch(store.db)
    assert {g for g, _ in hits(search, '"kestrel"', 25)} == {dropped, compacted}
    store.drop_group("a", dropped)
    assert [g for g, _ in hits(search, '"kestrel" OR "heron"', 25)][:1] == [compacted]
    rows = [m.id for m in store.messages.messages_of_groups("a", [compacted])]
    store.archive.compact("a", rows, "summary of the two", kind="compact", anchor_message_id=None)
    assert not {dropped, compacted} & {g for g, _ in hits(search, '"kestrel" OR "heron"', 25)}


def test_another_process_writing_the_ledger_is_seen_by_the_next_search(store: Store, path: Path) -> None:
    fill(store)
    search = HistorySearch(store.db)
    before = hits(search, '"heron" OR "kestrel"', 25)
    other = Store.open(str(path))  # a second connection: another slop on the same ledger
    try:
        new = turn(other, "a", "kestrel by the other process")
        after = hits(search, '"heron" OR "kestrel"', 25)
        assert after[0][0] == new
        assert after == hits(HistorySearch(store.db), '"heron" OR "kestrel"', 25)
        other.db.execute("DELETE FROM messages WHERE group_id = ?", (new,))  # as its /undo does
    finally:
        other.close()
    assert hits(search, '"heron" OR "kestrel"', 25) == before


def test_a_session_counted_big_and_emptied_since_is_still_searched_right(store: Store) -> None:
    fill(store)
    search = HistorySearch(store.db)
    hits(search, '"heron"', 25)
    store.db.execute("DELETE FROM messages WHERE session_id = 'a'")
    kept = turn(store, "a", "heron again")
    assert [g for g, _ in hits(search, '"heron"', 25)] == [kept]


def test_a_session_begun_late_in_the_ledger_is_searched_as_an_old_one(store: Store) -> None:
    """A small session's words are walked backwards when it began in the ledger's newer
    half, forwards when it spans the ledger: the same turns either way."""
    old = [turn(store, "old", f"heron note {i}") for i in range(40)]
    for i in range(40):
        turn(store, "other", f"heron elsewhere {i}")
    old.append(turn(store, "old", "heron and kestrel, late"))
    new = [turn(store, "new", f"heron note {i}") for i in range(10)]
    new.append(turn(store, "new", "heron and kestrel, late"))
    for session, groups in (("old", old), ("new", new)):
        search = HistorySearch(store.db)
        found = hits(search, '"heron" OR "kestrel"', 1000, session)
        assert found[0][0] == groups[-1]
        assert {g for g, _ in found} == set(groups)
        assert hits(search, '"heron" OR "kestrel" OR "note"', 1000, session)[0][0] == groups[-1]


@pytest.mark.parametrize("interleaved", [False, True])
def test_a_big_session_ranks_as_a_small_one_whether_or_not_it_owns_the_newest_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, interleaved: bool
) -> None:
    """A big session's words are read over the ledger's newest rows, without the session
    token when every one of them is the session's: the same ranking as word by word."""
    store = Store.open(str(tmp_path / "l.db"))
    try:
        for i in range(20):
            turn(store, "old", f"heron tern gull {i}")
        for i in range(60):
            turn(store, "a", f"the heron parser {i} {'gull' if i % 2 else 'tern'} {'wren' if i % 7 == 0 else ''}")
            if interleaved and i % 5 == 0:
                turn(store, "b", "heron gull tern wren elsewhere")
        queries = ['"heron" OR "wren"', '"heron" OR "wren" OR "gull" OR "plover"']
        cases = [(q, n) for q in queries for n in (3, 10, 25)]  # ranges under the cap: N is not capped
        small = [hits(HistorySearch(store.db), q, n) for q, n in cases]
        monkeypatch.setattr(bm25, "COUNT_CAP", 100)  # "a" (120 rows) is big now; a span of 6 x 10 is counted
        big = HistorySearch(store.db)
        assert [hits(big, q, n) for q, n in cases] == small
    finally:
        store.close()
