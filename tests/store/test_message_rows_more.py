"""Rows and groups as /message list, /retry, the start-up replay and the window read
them: ungrouped rows, partly hidden groups, failed requests, invalid writes."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from slop.errors import StoreError
from slop.records import NewMessage, Role, Status
from slop.store import Store
from slop.store.turnlock import process_running
from tests.store.turns import call_row, contents, turn


def test_rows_without_a_group_are_in_every_window_in_their_place(store: Store) -> None:
    store.messages.append("s", None, NewMessage(Role.SYSTEM, "a note from an older tool"))
    for i in range(4):
        turn(store, "s", f"q{i}", f"a{i}")
    store.messages.append("s", None, NewMessage(Role.USER, "ungrouped at the end"))
    window = [m.content for m in store.messages.window("s", 2)]
    assert window == ["a note from an older tool", "q2", "a2", "q3", "a3", "ungrouped at the end"]


def test_a_group_with_some_rows_hidden_is_still_listed_as_active(store: Store) -> None:
    gid = turn(store, "s", "long turn", "final answer")
    first_row = store.messages.group("s", gid)[0].id
    store.archive.compact("s", [first_row], "SUMMARY", kind="compact", anchor_message_id=None)
    statuses = {g.group_id: g.status for g in store.messages.list_groups("s", 5)}
    assert statuses[gid] == "active"


def test_a_group_list_shows_the_prompt_the_reply_size_and_the_row_count(store: Store) -> None:
    gid = store.messages.new_group_id()
    store.messages.append("s", gid, NewMessage(Role.USER, "fix the build"))
    store.messages.append("s", gid, call_row("c1"))
    store.messages.append("s", gid, NewMessage(Role.TOOL, "ok", tool_call_id="c1"))
    store.messages.append("s", gid, NewMessage(Role.ASSISTANT, "fixed", tokens=4321))
    [summary] = store.messages.list_groups("s", 5)
    assert (summary.group_id, summary.prompt, summary.messages, summary.tokens) == (gid, "fix the build", 4, 4321)
    assert summary.created_at


def test_the_newest_failed_request_is_what_retry_sends(store: Store) -> None:
    assert store.messages.latest_failed_request("s") is None
    old = store.messages.new_group_id()
    store.messages.append("s", old, NewMessage(Role.USER, "first try", Status.FAILED))
    turn(store, "s", "worked")
    new = store.messages.new_group_id()
    store.messages.append("s", new, NewMessage(Role.USER, "second try", Status.FAILED))
    assert store.messages.latest_failed_request("s") == (new, "second try")
    assert "second try" not in contents(store, "s")  # a failed request is never sent again


def test_the_last_prompt_and_the_first_one(store: Store) -> None:
    assert store.messages.last_user_text("s") == "" and store.messages.first_prompt("s") == ""
    turn(store, "s", "the original task")
    shown = turn(store, "s", "a follow-up")
    hidden = turn(store, "s", "dropped later")
    store.drop_group("s", hidden)
    assert store.messages.last_user_text("s") == "a follow-up"
    assert store.messages.first_prompt("s") == "the original task"
    assert store.messages.group_owner(shown) == "s" and store.messages.group_owner("0" * 19) is None


def test_an_invalid_role_writes_nothing(store: Store) -> None:
    with pytest.raises(StoreError, match="invalid role 'robot'"):
        store.messages.append_many(
            "s",
            "1",
            [NewMessage(Role.USER, "kept?"), NewMessage("robot", "beep")],  # type: ignore[arg-type]
        )
    assert store.messages.count("s") == 0


def test_text_that_sqlite_cannot_store_is_kept_with_a_replacement_character(store: Store) -> None:
    [mid] = store.messages.append_many("s", "1", [NewMessage(Role.ASSISTANT, "half an emoji \ud83d here")])
    message = store.messages.get(mid)
    assert message is not None and message.content.startswith("half an emoji ") and message.content.endswith(" here")
    assert "\ud83d" not in message.content
    assert store.messages.get(mid + 1000) is None


def test_recent_rows_are_the_last_ones_in_order_whatever_their_status(store: Store) -> None:
    turn(store, "s", "one", "a1")
    dropped = turn(store, "s", "two", "a2")
    store.drop_group("s", dropped)
    assert [m.content for m in store.messages.recent("s", 3)] == ["a1", "two", "a2"]


def test_a_zombie_holder_of_a_turn_lock_is_not_alive() -> None:
    """A slop killed while its parent has not reaped it yet is a zombie: its lock is free."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 10
    while process_running(child.pid):  # exited but not waited for: a zombie
        assert time.monotonic() < deadline, "the child never exited"
        time.sleep(0.02)
    assert os.path.exists(f"/proc/{child.pid}")  # still in the process table
    child.wait()
    assert process_running(os.getpid())
