"""Two slop terminals on one ledger: two Store instances (two connections) on one file,
and real second processes where a connection in this process would prove nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from slop.errors import SessionBusy
from slop.records import Memo, NewMessage, Role, Usage
from slop.store import Store, open_memo_store
from slop.store.repair import CANCELLED_RESULT
from tests.store.turns import contents, tool_turn, turn

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    path = str(tmp_path / "ledger.db")
    first, second = Store.open(path), Store.open(path)
    yield first, second
    first.close()
    second.close()


def run_python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """A second slop process: Python with the project on its path."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_a_turn_written_in_one_terminal_is_in_the_other_s_next_window(pair: tuple[Store, Store]) -> None:
    a, b = pair
    turn(a, "s", "asked in terminal A")
    assert contents(b, "s") == ["asked in terminal A", "done"]
    turn(b, "s", "asked in terminal B")
    assert contents(a, "s") == ["asked in terminal A", "done", "asked in terminal B", "done"]


def test_the_change_stamp_moves_only_when_someone_writes(pair: tuple[Store, Store]) -> None:
    a, b = pair
    before = a.db.change_stamp()
    contents(b, "s")  # a read in the other terminal
    assert a.db.change_stamp() == before
    turn(b, "s", "a write in the other terminal")
    assert a.db.change_stamp() != before
    mine = a.db.change_stamp()
    turn(a, "s", "a write here")
    assert a.db.change_stamp() != mine


def test_group_ids_from_two_terminals_never_collide_and_keep_their_order(pair: tuple[Store, Store]) -> None:
    a, b = pair
    ids = []
    for _ in range(20):
        for store in (a, b):
            gid = store.messages.new_group_id()
            store.messages.append("s", gid, NewMessage(Role.USER, "x"))
            ids.append(gid)
    assert len(set(ids)) == len(ids) and ids == sorted(ids)


def test_a_tool_call_id_taken_in_one_terminal_is_replaced_in_the_other(pair: tuple[Store, Store]) -> None:
    a, b = pair
    tool_turn(a, "s", "read", "call_0")
    chosen = b.messages.reserve_call_ids(["call_0", "call_1", "call_1", ""])
    assert chosen[1] == "call_1"  # new to the ledger: the provider's own id is kept
    assert chosen[0] != "call_0" and chosen[2] != "call_1" and chosen[3]  # used, repeated or missing: fresh
    assert len(set(chosen)) == 4


def test_settings_and_scratchpad_set_in_one_terminal_are_read_in_the_other(pair: tuple[Store, Store]) -> None:
    a, b = pair
    a.sessions.update_settings("s", model="gpt-x", budget=5000)
    a.sessions.set_context_size("s", 9)
    b.sessions.append_scratchpad("s", "from B")
    info = b.sessions.get("s")
    assert (info.model, info.budget, info.context_size) == ("gpt-x", 5000, 9)
    assert a.sessions.scratchpad("s") == "from B"


def test_an_edit_in_the_other_terminal_survives_an_undo_here(pair: tuple[Store, Store]) -> None:
    a, b = pair
    gid = turn(a, "s", "take notes")
    a.sessions.set_scratchpad("s", "model's notes", gid)
    b.sessions.set_scratchpad("s", "the user's notes")  # /scratchpad edit in terminal B
    result = a.undo("s")
    assert result is not None and result.scratchpad == "kept: edited by you"
    assert b.sessions.scratchpad("s") == "the user's notes"


def test_the_turn_lock_of_one_terminal_refuses_the_other_until_released(pair: tuple[Store, Store]) -> None:
    a, b = pair
    with a.turn_locks.hold("s"):
        with pytest.raises(SessionBusy) as busy:
            b.turn_locks.acquire("s")
        assert (
            str(busy.value) == f"session 's' is busy in another slop (pid {os.getpid()}); use another session or wait"
        )
        holder = b.turn_locks.holder("s")
        assert holder is not None and holder.pid == os.getpid()
        b.turn_locks.release("t", b.turn_locks.acquire("t"))  # another session is free
    assert b.turn_locks.holder("s") is None
    b.turn_locks.release("s", b.turn_locks.acquire("s"))


def test_a_lock_is_released_when_the_turn_fails(pair: tuple[Store, Store]) -> None:
    a, b = pair
    with pytest.raises(RuntimeError), a.turn_locks.hold("s"):
        raise RuntimeError("the model call failed")
    assert b.turn_locks.holder("s") is None


def test_releasing_with_a_stale_token_does_not_free_the_new_holder_s_lock(pair: tuple[Store, Store]) -> None:
    a, b = pair
    old = a.turn_locks.acquire("s")
    a.turn_locks.release("s", old)
    new = b.turn_locks.acquire("s")
    a.turn_locks.release("s", old)  # a late release of a lock long gone
    assert a.turn_locks.holder("s") is not None
    assert a.turn_locks.beat("s", old) is False and b.turn_locks.beat("s", new) is True
    b.turn_locks.release("s", new)


def test_a_process_killed_mid_tool_leaves_calls_the_next_start_closes(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    crashed = run_python(
        """
        import os, sys
        from slop.store import Store
        from tests.store.turns import tool_turn
        store = Store.open(sys.argv[1])
        store.turn_locks.acquire("s")
        tool_turn(store, "s", "run the tests", "call_a", "call_b", answered=False)
        os._exit(9)  # killed: no result rows, no lock release, no close
        """,
        str(path),
    )
    assert crashed.returncode == 9, crashed.stderr
    store = Store.open(str(path))
    try:
        assert store.turn_locks.holder("s") is None  # its holder is gone
        assert store.recover_session("s") == 2
        rows = store.messages.window("s", 0)
        assert [(m.tool_call_id, m.content, m.status) for m in rows[2:]] == [
            ("call_a", CANCELLED_RESULT, "cancelled"),
            ("call_b", CANCELLED_RESULT, "cancelled"),
        ]
        assert store.recover_session("s") == 0  # nothing left to close, and no write
    finally:
        store.close()


def test_calls_of_a_turn_running_in_another_live_process_are_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    store = Store.open(str(path))
    ready, go = tmp_path / "ready", tmp_path / "go"
    running = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import pathlib, sys, time
                from slop.store import Store
                from tests.store.turns import tool_turn
                store = Store.open(sys.argv[1])
                with store.turn_locks.hold("s"):
                    tool_turn(store, "s", "slow tool", "call_slow", answered=False)
                    pathlib.Path(sys.argv[2]).touch()
                    while not pathlib.Path(sys.argv[3]).exists():
                        time.sleep(0.02)
                """
            ),
            str(path),
            str(ready),
            str(go),
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        while not ready.exists():
            assert running.poll() is None, "the other process ended early"
            time.sleep(0.02)
        assert store.recover_session("s") == 0  # its call is running, not dangling
        assert [m.status for m in store.messages.window("s", 0)] == ["completed", "tool_call"]
    finally:
        go.touch()
        running.wait(timeout=30)
        store.close()


def test_memos_saved_by_the_model_are_announced_in_one_terminal_only(tmp_path: Path) -> None:
    path = str(tmp_path / "memos.db")
    a, b = open_memo_store(path), open_memo_store(path)
    mine = a.add("use uv, not pip", ["tooling"], source="model", project="/p")
    users = a.add("tabs are banned", ["style"], source="user")
    found: list[Memo] = b.all()
    assert [m.id for m in a.take_unannounced(found)] == [mine]  # the user's own memo needs no announcement
    assert b.take_unannounced(b.all()) == []  # the other terminal does not announce it again
    assert {m.id for m in b.find(["tooling and style"])} == {mine, users}


def test_usage_recorded_by_two_terminals_adds_up(pair: tuple[Store, Store]) -> None:
    a, b = pair
    a.usage.record("s", None, Usage(100, 20, 120, "gpt-x", cached_tokens=50))
    b.usage.record("s", None, Usage(200, 30, 230, "gpt-x", reasoning_tokens=10))
    [row] = a.usage.by_model("s")
    assert (row.prompt_tokens, row.completion_tokens, row.total_tokens) == (300, 50, 350)
    assert (row.cached_tokens, row.reasoning_tokens) == (50, 10)
