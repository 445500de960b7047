"""/undo, /message remove, /context drop and restore: what each does to every table a
turn wrote (messages, STATE, scratchpad, file checkpoints, usage, the context log), on
a real ledger file."""

from __future__ import annotations

import pytest

from slop.errors import StoreError
from slop.records import NewMessage, Role, Status, Usage
from slop.store import Store
from tests.store.turns import contents, events, tool_turn, turn


def test_removing_a_turn_takes_back_everything_it_wrote_but_the_bill(store: Store) -> None:
    first = turn(store, "s", "plan it", "STATE: planned")
    store.sessions.push_state("s", first, "goal: plan")
    store.sessions.set_scratchpad("s", "- [ ] step one", first)
    second = tool_turn(store, "s", "edit main.py", "call_1")
    store.sessions.push_state("s", second, "goal: edit")
    store.sessions.append_scratchpad("s", "- [x] edited", second)
    store.checkpoints.record_before("s", second, "/p/main.py", b"old")
    store.checkpoints.record_after(second, "/p/main.py", b"new")
    store.usage.record("s", second, Usage(900, 100, 1000, "gpt-x"))

    result = store.remove_group("s", second)

    assert (result.group_id, result.messages, result.scratchpad_restored) == (second, 4, True)
    assert contents(store, "s") == ["plan it", "STATE: planned"]
    assert store.sessions.state("s") == "goal: plan"  # the previous STATE is the anchor again
    assert store.sessions.scratchpad("s") == "- [ ] step one"
    assert store.checkpoints.changes(second) == []  # nothing left for a later /undo to put back
    assert store.usage.session_total("s") == 1000  # the call was made and paid: usage stays
    assert events(store, "s")[-1] == ("remove", second, "4 message(s) deleted; scratchpad restored")


def test_undo_removes_the_newest_turn_and_says_so_in_the_log(store: Store) -> None:
    older = turn(store, "s", "one")
    newer = turn(store, "s", "two")
    undone = store.undo("s")
    assert undone is not None and undone.group_id == newer and undone.messages == 2
    assert undone.scratchpad == "" and not undone.scratchpad_restored  # the turn never touched it
    assert contents(store, "s") == ["one", "done"]
    assert events(store, "s") == [("undo", newer, "2 message(s) deleted")]
    assert store.undo("s") is not None and store.undo("s") is None  # then `older`, then nothing
    assert store.messages.group_exists("s", older) is False


def test_undo_keeps_a_scratchpad_the_user_edited_after_the_turn(store: Store) -> None:
    gid = turn(store, "s", "write notes")
    store.sessions.set_scratchpad("s", "model notes", gid)
    store.sessions.set_scratchpad("s", "my own notes")  # /scratchpad edit, after the turn
    result = store.undo("s")
    assert result is not None and result.scratchpad == "kept: edited by you"
    assert not result.scratchpad_restored
    assert store.sessions.scratchpad("s") == "my own notes"
    assert events(store, "s")[-1][2] == "2 message(s) deleted; scratchpad kept: edited by you"


def test_removing_an_older_turn_keeps_a_scratchpad_a_later_turn_changed(store: Store) -> None:
    first = turn(store, "s", "start the list")
    store.sessions.set_scratchpad("s", "a", first)
    second = turn(store, "s", "extend the list")
    store.sessions.set_scratchpad("s", "a\nb", second)
    result = store.remove_group("s", first)
    assert result.scratchpad == f"kept: changed by group {second}"
    assert store.sessions.scratchpad("s") == "a\nb"
    # the later turn's own record is intact: undoing it goes back to before *it*
    assert store.undo("s") is not None
    assert store.sessions.scratchpad("s") == "a"


def test_a_turn_that_changed_the_scratchpad_twice_is_undone_to_before_its_first_change(store: Store) -> None:
    store.sessions.set_scratchpad("s", "original")
    gid = turn(store, "s", "rewrite")
    store.sessions.set_scratchpad("s", "draft", gid)
    store.sessions.append_scratchpad("s", "more", gid)
    assert store.sessions.scratchpad("s") == "draft\nmore"
    store.undo("s")
    assert store.sessions.scratchpad("s") == "original"


def test_removing_a_group_of_another_session_changes_nothing(store: Store) -> None:
    mine = turn(store, "a", "mine")
    store.sessions.push_state("a", mine, "my state")
    result = store.remove_group("b", mine)
    assert result.messages == 0
    assert contents(store, "a") == ["mine", "done"] and store.sessions.state("a") == "my state"


def test_drop_hides_a_turn_and_its_state_until_restored(store: Store) -> None:
    first = turn(store, "s", "one")
    store.sessions.push_state("s", first, "state one")
    second = turn(store, "s", "two")
    store.sessions.push_state("s", second, "state two")

    assert store.drop_group("s", second) == 2
    assert contents(store, "s") == ["one", "done"]
    assert store.sessions.state("s") == "state one"  # a dropped turn's STATE is not the anchor
    assert [g.status for g in store.messages.list_groups("s", 5)] == ["dropped", "active"]
    assert [m.content for m in store.messages.group("s", second)] == ["two", "done"]  # still in the ledger

    assert store.restore_group("s", second) == 2
    assert contents(store, "s") == ["one", "done", "two", "done"]
    assert store.sessions.state("s") == "state two"
    assert [e[0] for e in events(store, "s")] == ["drop", "restore"]
    assert events(store, "s")[0][2] == "2 message(s) taken out of context by you"


def test_drop_and_restore_give_back_each_row_s_own_status(store: Store) -> None:
    gid = tool_turn(store, "s", "run it", "c1", answered=False)
    store.messages.append("s", gid, NewMessage(Role.TOOL, "boom", Status.ERROR, tool_call_id="c1"))
    store.messages.append("s", gid, NewMessage(Role.ASSISTANT, "partial", Status.INTERRUPTED))
    before = [m.status for m in store.messages.group("s", gid)]
    store.drop_group("s", gid)
    assert {m.status for m in store.messages.group("s", gid)} == {Status.DROPPED}
    store.restore_group("s", gid)
    assert (
        [m.status for m in store.messages.group("s", gid)]
        == before
        == ["completed", "tool_call", "error", "interrupted"]
    )


def test_dropping_twice_or_restoring_what_is_not_dropped_logs_nothing(store: Store) -> None:
    gid = turn(store, "s", "one")
    assert store.restore_group("s", gid) == 0
    assert store.drop_group("s", gid) == 2
    assert store.drop_group("s", gid) == 0
    assert store.drop_group("s", "0000000000000000001") == 0  # no such group
    assert [e[0] for e in events(store, "s")] == ["drop"]


def test_a_dropped_turn_can_still_be_undone(store: Store) -> None:
    kept = turn(store, "s", "keep")
    gone = turn(store, "s", "drop then undo")
    store.drop_group("s", gone)
    result = store.undo("s")  # /undo takes the newest turn, shown or not
    assert result is not None and result.group_id == gone
    assert store.messages.last_group_id("s") == kept


def test_undoing_a_summary_brings_back_exactly_what_it_replaced(store: Store) -> None:
    first = tool_turn(store, "s", "read a.py", "c1")
    second = turn(store, "s", "explain it")
    store.drop_group("s", second)  # a row hidden before the compaction stays hidden after the undo
    replaced = [m.id for m in store.messages.group("s", first)] + [m.id for m in store.messages.group("s", second)]
    store.archive.record_file_read("s", "/p/a.py")
    gid, summary_id = store.archive.compact(
        "s", replaced, "SUMMARY: read a.py", kind="compact", anchor_message_id=None, reset_files=True
    )
    assert contents(store, "s") == ["SUMMARY: read a.py"]
    assert store.archive.files_read("s") == []  # the summary starts a fresh list
    assert store.archive.active_summaries("s") == {summary_id: None}

    store.remove_group("s", gid)

    assert contents(store, "s") == ["read a.py", store.messages.group("s", first)[1].content, "file text", "read it"]
    assert {m.status for m in store.messages.group("s", second)} == {Status.DROPPED}
    assert store.archive.files_read("s") == ["/p/a.py"]
    assert store.archive.active_summaries("s") == {}
    assert ("uncompact", gid, "summary removed; 4 replaced message(s) back in context") in events(store, "s")


def test_an_archived_turn_is_recoverable_until_it_is_removed(store: Store) -> None:
    gid = turn(store, "s", "the heron migration", "moved herons")
    current = turn(store, "s", "now something else")
    assert store.archive.archive("s", gid, score=0.1, prompt="now something else", reason="stale", days=7) == 2
    assert contents(store, "s") == ["now something else", "done"]
    [entry] = store.archive.archived("s")
    assert (entry.group_id, entry.prompt_at_drop, entry.text) == (
        gid,
        "now something else",
        "the heron migration moved herons",
    )

    assert store.archive.recover("s", gid) == 2
    assert contents(store, "s")[:2] == ["the heron migration", "moved herons"]
    assert store.archive.archived("s") == []  # recovered: no longer listed

    store.archive.archive("s", gid, score=None, prompt="", reason="again", days=7)
    store.remove_group("s", gid)
    assert store.archive.archived("s") == []  # nothing left to recover
    assert store.messages.last_group_id("s") == current


def test_cold_storage_entries_expire_and_the_rows_stay_readable(store: Store) -> None:
    gid = turn(store, "s", "old work")
    store.archive.archive("s", gid, score=0.0, prompt="", reason="old", days=0)
    assert store.archive.archived("s") == []  # expired at once
    assert store.archive.cleanup_expired("s") == 1
    assert events(store, "s")[-1][0:3:2] == ("expire", "1 cold-storage entry expired")
    assert [m.content for m in store.messages.group("s", gid)] == ["old work", "done"]  # never deleted
    assert store.archive.cleanup_expired("s") == 0


def test_pins_are_logged_once_and_go_with_the_session(store: Store) -> None:
    gid = turn(store, "s", "important decision")
    assert store.archive.pin("s", gid) is True
    assert store.archive.pin("s", gid) is False  # already pinned
    assert store.archive.pinned("s") == {gid}
    assert store.archive.unpin("s", gid) is True and store.archive.unpin("s", gid) is False
    assert [e[0] for e in events(store, "s")] == ["pin", "unpin"]
    store.archive.pin("s", gid)
    store.sessions.clear("s")
    assert store.archive.pinned("s") == set() and events(store, "s") == []


def test_clearing_a_session_empties_its_tables_and_leaves_the_others(store: Store) -> None:
    gid = turn(store, "a", "a's turn")
    store.sessions.push_state("a", gid, "a state")
    store.sessions.set_scratchpad("a", "a notes", gid)
    store.usage.record("a", gid, Usage(10, 5, 15, "m"))
    store.archive.record_file_read("a", "/p/x")
    store.archive.log("a", "window", "window 3")
    other = turn(store, "b", "b's turn")
    store.sessions.push_state("b", other, "b state")
    store.usage.record("b", other, Usage(1, 1, 2, "m"))

    store.sessions.clear("a")

    assert store.messages.count("a") == 0 and store.sessions.exists("a") is False
    assert (store.sessions.state("a"), store.sessions.scratchpad("a"), store.usage.session_total("a")) == ("", "", 0)
    assert store.archive.files_read("a") == [] and events(store, "a") == []
    assert contents(store, "b") == ["b's turn", "done"] and store.sessions.state("b") == "b state"
    assert store.usage.session_total("b") == 2


def test_a_clone_is_a_separate_session_with_the_same_past(store: Store) -> None:
    kept = turn(store, "main", "first")
    store.sessions.push_state("main", kept, "state 1")
    store.sessions.set_scratchpad("main", "notes", kept)
    dropped = turn(store, "main", "dropped one")
    store.drop_group("main", dropped)
    store.sessions.update_settings("main", model="gpt-x", context_mode="ranked")
    store.usage.record("main", kept, Usage(100, 10, 110, "gpt-x"))

    store.sessions.clone("main", "copy", int(store.messages.new_group_id()))

    assert contents(store, "copy") == contents(store, "main") == ["first", "done"]
    info = store.sessions.get("copy")
    assert (info.model, info.context_mode, info.scratchpad) == ("gpt-x", "ranked", "notes")
    assert store.sessions.state("copy") == "state 1"
    assert store.usage.session_total("copy") == 0  # a clone starts its own bill
    [copied_dropped, copied_kept] = store.messages.last_group_ids("copy", 0, include_hidden=True)
    assert copied_kept not in (kept, dropped) and copied_dropped not in (kept, dropped)
    assert store.restore_group("copy", copied_dropped) == 2  # the dropped turn is restorable in the copy too
    assert contents(store, "copy") == ["first", "done", "dropped one", "done"]
    assert contents(store, "main") == ["first", "done"]  # and still dropped in the original
    store.undo("copy")
    store.undo("copy")
    assert store.sessions.scratchpad("copy") == "" and store.sessions.scratchpad("main") == "notes"


def test_a_clone_refuses_a_name_in_use_or_empty(store: Store) -> None:
    turn(store, "main", "x")
    turn(store, "taken", "y")
    with pytest.raises(StoreError, match=r"^session 'taken' already exists; pick another name$"):
        store.sessions.clone("main", "taken", int(store.messages.new_group_id()))
    with pytest.raises(StoreError, match=r"^the new session needs a name$"):
        store.sessions.clone("main", "  ", int(store.messages.new_group_id()))
    assert contents(store, "taken") == ["y", "done"]


def test_a_summary_undone_in_a_clone_brings_back_what_it_replaced_there(store: Store) -> None:
    older = turn(store, "main", "the parser question", "the parser answer")
    turn(store, "main", "the docs question")
    replaced = [m.id for m in store.messages.group("main", older)]
    store.archive.compact("main", replaced, "SUMMARY: parser done", kind="compact", anchor_message_id=None)
    store.sessions.clone("main", "copy", int(store.messages.new_group_id()))
    assert contents(store, "copy") == ["the docs question", "done", "SUMMARY: parser done"]
    assert len(store.archive.active_summaries("copy")) == 1  # the clone knows its summary is one

    undone = store.undo("copy")

    assert undone is not None and undone.messages == 1
    assert contents(store, "copy") == ["the parser question", "the parser answer", "the docs question", "done"]
    assert contents(store, "main") == ["the docs question", "done", "SUMMARY: parser done"]  # the original is as it was


def test_a_clone_keeps_cold_storage_and_pins_of_its_own(store: Store) -> None:
    archived = turn(store, "main", "the heron migration", "moved herons")
    pinned = turn(store, "main", "the decision", "use sqlite")
    store.archive.archive("main", archived, score=0.2, prompt="other work", reason="stale", days=7)
    store.archive.pin("main", pinned)
    store.sessions.clone("main", "copy", int(store.messages.new_group_id()))

    [entry] = store.archive.archived("copy")
    assert entry.prompt_at_drop == "other work" and entry.text == "the heron migration moved herons"
    assert len(store.archive.pinned("copy")) == 1 and store.archive.pinned("copy") != {pinned}
    assert store.archive.recover("copy", entry.group_id) == 2
    assert contents(store, "copy")[:2] == ["the heron migration", "moved herons"]
    assert store.archive.archived("main") != []  # still in the original's cold storage
