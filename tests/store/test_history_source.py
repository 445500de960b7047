"""`store.history`: the ledger as the context strategies read and edit it. What they get
here is what the model gets, so: the current and the original request, the recent rows,
whole groups in order however many, and edits that are all or nothing."""

from __future__ import annotations

import pytest

from slop.records import NewMessage, Role
from slop.store import Store
from tests.store.turns import turn


def test_the_current_request_is_the_newest_user_row_even_far_into_a_session(store: Store) -> None:
    for i in range(20):
        turn(store, "s", f"question {i}")
    latest, first = store.history.latest_user("s"), store.history.first_user("s")
    assert latest is not None and latest.content == "question 19"
    assert first is not None and first.content == "question 0"


def test_a_dropped_request_is_neither_the_current_nor_the_original_one(store: Store) -> None:
    first = turn(store, "s", "original")
    turn(store, "s", "middle")
    last = turn(store, "s", "newest")
    store.drop_group("s", first)
    store.drop_group("s", last)
    assert store.history.latest_user("s").content == "middle"  # type: ignore[union-attr]
    assert store.history.first_user("s").content == "middle"  # type: ignore[union-attr]


def test_rows_without_a_group_from_other_tools_count_by_their_place(store: Store) -> None:
    store.messages.append("s", None, NewMessage(Role.USER, "written by std::slop first"))
    for i in range(10):
        turn(store, "s", f"grouped {i}")
    store.messages.append("s", None, NewMessage(Role.USER, "written by a script last"))
    assert store.history.first_user("s").content == "written by std::slop first"  # type: ignore[union-attr]
    assert store.history.latest_user("s").content == "written by a script last"  # type: ignore[union-attr]


def test_a_session_without_requests_has_none(store: Store) -> None:
    assert store.history.latest_user("empty") is None and store.history.first_user("empty") is None
    store.messages.append("s", "1", NewMessage(Role.ASSISTANT, "only an answer"))
    assert store.history.latest_user("s") is None


def test_recent_messages_are_the_last_visible_ones_oldest_first(store: Store) -> None:
    turn(store, "s", "one", "a1")
    hidden = turn(store, "s", "two", "a2")
    turn(store, "s", "three", "a3")
    store.drop_group("s", hidden)
    assert [m.content for m in store.history.recent_messages("s", 3)] == ["a1", "three", "a3"]
    assert [m.content for m in store.history.recent_messages("s", 100)] == ["one", "a1", "three", "a3"]


def test_many_groups_at_once_come_back_whole_and_in_order(store: Store) -> None:
    """More groups than SQLite takes variables in one statement (a long session, window 0)."""
    gids = []
    for i in range(600):
        gid = store.messages.new_group_id()
        store.messages.append_many("s", gid, [NewMessage(Role.USER, f"q{i}"), NewMessage(Role.ASSISTANT, f"a{i}")])
        gids.append(gid)
    store.messages.append("s", None, NewMessage(Role.USER, "ungrouped"))
    rows = store.history.messages_of_groups("s", list(reversed(gids)), include_ungrouped=True)
    assert len(rows) == 1201
    assert [m.id for m in rows] == sorted(m.id for m in rows)
    assert rows[0].content == "q0" and rows[-1].content == "ungrouped"
    assert [m.content for m in rows].count("ungrouped") == 1


def test_only_the_asked_groups_and_never_another_session_s(store: Store) -> None:
    mine = turn(store, "s", "mine")
    turn(store, "s", "not asked")
    theirs = turn(store, "t", "theirs")
    rows = store.history.messages_of_groups("s", [mine, theirs])
    assert [m.content for m in rows] == ["mine", "done"]
    assert store.history.messages_of_groups("s", []) == []


def test_an_edit_rolled_back_leaves_nothing_and_an_error_undoes_it_too(store: Store) -> None:
    gid = turn(store, "s", "keep me")
    ids = [m.id for m in store.messages.group("s", gid)]
    with store.history.edit() as edit:
        store.history.compact("s", ids, "SUMMARY", kind="compact", anchor_message_id=None)
        store.history.log("s", "compact", "tried")
        edit.rollback()
    assert [m.content for m in store.messages.window("s", 0)] == ["keep me", "done"]
    assert store.archive.log_entries("s") == []
    with pytest.raises(RuntimeError), store.history.edit():
        store.history.compact("s", ids, "SUMMARY", kind="compact", anchor_message_id=None)
        raise RuntimeError("the summary call failed")
    assert [m.content for m in store.messages.window("s", 0)] == ["keep me", "done"]
    assert store.archive.active_summaries("s") == {}


def test_a_rolled_back_edit_inside_a_step_keeps_the_step_s_own_writes(store: Store) -> None:
    with store.db.transaction():  # the orchestrator's step
        gid = turn(store, "s", "the request")
        with store.history.edit() as edit:
            store.history.log("s", "compact", "not kept")
            edit.rollback()
        store.history.log("s", "window", "kept")
    assert [m.content for m in store.messages.group("s", gid)] == ["the request", "done"]
    assert [e.detail for e in store.archive.log_entries("s")] == ["kept"]


def test_system_groups_are_the_visible_groups_holding_a_system_row(store: Store) -> None:
    note = store.messages.new_group_id()
    store.messages.append("s", note, NewMessage(Role.SYSTEM, "rebuild the STATE"))
    hidden = store.messages.new_group_id()
    store.messages.append("s", hidden, NewMessage(Role.SYSTEM, "an old note"))
    store.drop_group("s", hidden)
    turn(store, "s", "plain turn")
    assert store.history.system_group_ids("s") == [note]
