"""/undo, /message remove, /context drop|restore and /session scratchpad as the user types
them: what each says, and what the ledger holds after it."""

from __future__ import annotations

import pytest

from slop.errors import CommandError
from tests.commands.conftest import Harness


def test_undo_in_a_clone_of_a_compacted_session_brings_the_replaced_turns_back(harness: Harness) -> None:
    older = harness.add_turn("the parser question", "the parser answer")
    harness.add_turn("the docs question", "the docs answer")
    replaced = [m.id for m in harness.store.messages.group("default", older)]
    harness.store.archive.compact("default", replaced, "SUMMARY: parser", kind="compact", anchor_message_id=None)
    harness.run("/session clone copy")
    harness.io.clear()

    harness.run("/undo")

    [said] = harness.io.of("success")
    assert said.startswith("undid group ") and "(1 messages)" in said
    shown = [m.content for m in harness.store.messages.window("copy", 0)]
    assert shown == ["the parser question", "the parser answer", "the docs question", "the docs answer"]
    original = [m.content for m in harness.store.messages.window("default", 0)]
    assert original == ["the docs question", "the docs answer", "SUMMARY: parser"]


def test_undo_says_the_state_went_back_or_that_none_remains(harness: Harness) -> None:
    harness.add_turn("one", "a", state="### STATE\nGoal: one")
    harness.add_turn("two", "b", state="### STATE\nGoal: two")
    harness.run("/undo")
    assert harness.io.of("success")[-1].endswith("; STATE is back to the previous one")
    assert harness.store.sessions.state("default") == "### STATE\nGoal: one"
    harness.run("/undo")
    assert harness.io.of("success")[-1].endswith("; no STATE remains")
    harness.run("/undo")
    assert harness.io.of("info")[-1] == "nothing to undo"


@pytest.mark.parametrize("args", ["--files --keep-files", "--all", "files"])
def test_undo_takes_one_of_its_two_flags_only(shared_harness: Harness, args: str) -> None:
    with pytest.raises(CommandError) as caught:
        shared_harness.run(f"/undo {args}")
    assert caught.value.usage == "/undo [--files|--keep-files]"


def test_undo_tells_when_the_scratchpad_stays_because_the_user_edited_it(harness: Harness) -> None:
    gid = harness.add_turn("take notes", "noted")
    harness.store.sessions.set_scratchpad("default", "the model's notes", gid)
    harness.io.edits.append("my own notes")
    harness.run("/session scratchpad edit")
    harness.run("/undo")
    assert "scratchpad left as it is (edited by you after that group)" in harness.io.of("success")[-1]
    assert harness.store.sessions.scratchpad("default").rstrip() == "my own notes"


def test_undo_restores_the_scratchpad_a_turn_changed(harness: Harness) -> None:
    harness.store.sessions.set_scratchpad("default", "before")
    gid = harness.add_turn("change it", "changed")
    harness.store.sessions.set_scratchpad("default", "after", gid)
    harness.run("/undo")
    assert "scratchpad restored to the version before that group" in harness.io.of("success")[-1]
    assert harness.store.sessions.scratchpad("default") == "before"


def test_message_remove_deletes_an_older_turn_and_keeps_the_newer(harness: Harness) -> None:
    old = harness.add_turn("old question", "old answer")
    harness.add_turn("new question", "new answer")
    harness.run(f"/message remove {old}")
    assert harness.io.of("success")[-1] == f"group {old} deleted (2 messages)"
    assert [m.content for m in harness.store.messages.window("default", 0)] == ["new question", "new answer"]


def test_drop_and_restore_say_what_they_did_and_what_was_already_so(harness: Harness) -> None:
    gid = harness.add_turn("side question", "side answer")
    harness.run(f"/context restore {gid}")
    assert harness.io.of("info")[-1] == f"group {gid} was not dropped"
    harness.run(f"/context drop {gid}")
    assert harness.io.of("success")[-1] == (
        f"group {gid} dropped from context (kept in the ledger; /context restore {gid} brings it back)"
    )
    harness.run(f"/context drop {gid}")
    assert harness.io.of("info")[-1] == f"group {gid} was already out of context"
    harness.run(f"/context restore {gid}")
    assert harness.io.of("success")[-1] == f"group {gid} restored to context"
    assert [m.content for m in harness.store.messages.window("default", 0)] == ["side question", "side answer"]


def test_a_gid_of_another_session_is_not_found_here(harness: Harness) -> None:
    theirs = harness.add_turn("elsewhere", "there", session="other")
    with pytest.raises(CommandError):
        harness.run(f"/context drop {theirs}")
    assert [g.status for g in harness.store.messages.list_groups("other", 5)] == ["active"]


def test_the_window_is_shown_set_and_logged(harness: Harness) -> None:
    harness.run("/context window")
    assert harness.io.of("info")[-1] == "window: last 5 group(s)"
    harness.run("/context window 0")
    assert harness.io.of("success")[-1] == "full history in context"
    harness.run("/context window")
    assert harness.io.of("info")[-1] == "window: full history"
    harness.run("/context window 3")
    log = [(e.event, e.detail) for e in harness.store.archive.log_entries("default")]
    assert log == [("window", "window 5 -> 0 group(s) (0 = all)"), ("window", "window 0 -> 3 group(s) (0 = all)")]


@pytest.mark.parametrize("value", ["-1", "three", "2.5"])
def test_a_bad_window_is_refused_and_changes_nothing(harness: Harness, value: str) -> None:
    with pytest.raises(CommandError) as caught:
        harness.run(f"/context window {value}")
    assert caught.value.usage.startswith("/context window N")
    assert harness.store.sessions.get("default").context_size == 5


def test_message_list_marks_what_the_next_request_carries(harness: Harness) -> None:
    for i in range(3):
        harness.add_turn(f"question {i}", f"answer {i}")
    dropped = harness.store.messages.last_group_id("default")
    assert dropped is not None
    harness.store.drop_group("default", dropped)
    harness.run("/context window 2")  # the next request's own group and the newest one shown
    harness.run("/message list")
    title, columns, rows = harness.io.last_table()
    assert title == "Last 3 group(s) of 'default'"
    assert columns == ["GID", "Prompt", "Tokens", "Msgs", "In context"]
    assert [(r[1], r[4]) for r in rows] == [("question 2", "dropped"), ("question 1", "yes"), ("question 0", "no")]


@pytest.mark.parametrize("arg", ["0", "-3", "many"])
def test_message_list_needs_a_positive_count(shared_harness: Harness, arg: str) -> None:
    with pytest.raises(CommandError) as caught:
        shared_harness.run(f"/message list {arg}")
    assert caught.value.usage == "/message list [N]"


# ---- /session scratchpad --------------------------------------------------------------


def test_an_unchanged_edit_says_so_and_writes_nothing(harness: Harness) -> None:
    harness.store.sessions.set_scratchpad("default", "- plan\n")
    stamp = harness.store.db.change_stamp()
    harness.io.edits.append("- plan\n\n")
    harness.run("/session scratchpad edit")
    assert harness.io.of("info")[-1] == "no changes"
    assert harness.store.db.change_stamp() == stamp  # nothing written


@pytest.mark.parametrize(("confirm", "left"), [(True, ""), (False, "- plan")])
def test_emptying_the_scratchpad_asks_first(harness: Harness, confirm: bool, left: str) -> None:
    harness.store.sessions.set_scratchpad("default", "- plan")
    harness.io.edits.append("   \n")
    harness.io.confirms.append(confirm)
    harness.run("/session scratchpad edit")
    assert harness.io.questions == ["Empty the scratchpad of 'default'?"]
    assert harness.store.sessions.scratchpad("default") == left
    assert harness.io.of("success", "info")[-1] == ("scratchpad emptied" if confirm else "scratchpad kept")


def test_an_empty_scratchpad_says_how_to_write_one(harness: Harness) -> None:
    harness.run("/session scratchpad")
    assert harness.io.of("info")[-1] == "the scratchpad of 'default' is empty (/session scratchpad edit writes it)"
    with pytest.raises(CommandError) as caught:
        harness.run("/session scratchpad erase")
    assert "unknown scratchpad operation 'erase'" in str(caught.value)
