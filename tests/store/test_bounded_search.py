"""The ranked search's own BM25 over a session's newest matching messages (slop.store.bm25)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from slop.store import Store, bm25
from slop.store.search import HistorySearch
from tests.store.turns import turn as stored_turn


@pytest.fixture(params=["small session", "big session"])
def store(tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """Both ways of reading the collection: per term (a session under bm25.COUNT_CAP
    rows) and one backward walk of the OR (a bigger one; the cap lowered to reach it)."""
    if request.param == "big session":
        monkeypatch.setattr(bm25, "COUNT_CAP", 1)
    opened = Store.open(str(tmp_path / "l.db"))
    yield opened
    opened.close()


def turn(store: Store, session: str, text: str, answer: str = "noted") -> str:
    return stored_turn(store, session, text, answer)  # "noted": an answer word the search can see


def found(store: Store, session: str, query: str, limit: int = 50, newest: int = 0) -> list[str]:
    return [h.group_id for h in HistorySearch(store.db).groups(session, query, limit, newest=newest)]


def test_the_rare_word_decides_the_order(store: Store) -> None:
    for i in range(30):
        turn(store, "a", f"the parser change number {i}")
    heron = turn(store, "a", "the parser fails on the heron file")
    for i in range(5):
        turn(store, "a", f"another parser note {i}")
    hits = found(store, "a", '"parser" OR "heron"')
    assert hits[0] == heron
    assert len(hits) == 36


def test_a_short_message_outranks_a_long_one_with_the_same_words(store: Store) -> None:
    long_one = turn(store, "a", "kestrel " + " ".join(f"filler{i}" for i in range(200)))
    short_one = turn(store, "a", "kestrel nest")
    turn(store, "a", "nothing to see")
    assert found(store, "a", '"kestrel"') == [short_one, long_one]


def test_a_session_among_busier_ones_finds_only_its_own_turns(store: Store) -> None:
    mine = turn(store, "a", "the osprey migration")
    for i in range(300):  # another session full of the same word, written later
        turn(store, "b", f"osprey sighting {i}")
    turn(store, "a", "unrelated")
    assert found(store, "a", '"osprey" OR "migration"') == [mine]
    assert len(found(store, "b", '"osprey"', limit=1000)) == 300


def test_the_bound_ranks_only_the_newest_matches(store: Store) -> None:
    groups = [turn(store, "a", f"wren report {i}") for i in range(20)]
    assert set(found(store, "a", '"wren"', newest=5)) == set(groups[-5:])
    assert set(found(store, "a", '"wren"')) == set(groups)


def test_a_turn_written_after_a_search_is_found_by_the_next_one(store: Store) -> None:
    search = HistorySearch(store.db)
    first = turn(store, "a", "the plover bug")
    assert [h.group_id for h in search.groups("a", '"plover"', 5)] == [first]
    second = turn(store, "a", "plover again, worse")
    assert {h.group_id for h in search.groups("a", '"plover"', 5)} == {first, second}
    store.db.execute("DELETE FROM messages WHERE group_id=?", (second,))  # as /undo does
    assert [h.group_id for h in search.groups("a", '"plover"', 5)] == [first]


def test_a_second_search_reusing_the_first_ranks_as_a_fresh_one(store: Store) -> None:
    for i in range(40):
        turn(store, "a", f"the gull parser {'tern' if i % 3 else ''} case {i}", f"fixed gull {i % 7}")
    warm = HistorySearch(store.db)
    warm.groups("a", '"gull"', 50, newest=30)
    expanded = '"gull" OR "tern" OR "parser"'
    assert warm.groups("a", expanded, 50, newest=30) == HistorySearch(store.db).groups("a", expanded, 50, newest=30)


def test_other_query_forms_still_go_through_fts5(store: Store) -> None:
    gid = turn(store, "a", "the sandpiper renderer")
    turn(store, "a", "nothing here")
    assert found(store, "a", "sandpip*") == [gid]
    assert found(store, "a", '"sandpiper" AND "renderer"') == [gid]
