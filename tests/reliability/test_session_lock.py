"""Item 2: two slop processes on one session never produce an invalid request.

The semantics (docs/reliability.md): one running turn per session across processes. A
second turn on a busy session is refused with a one-line error and writes nothing."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from slop.errors import SessionBusy
from slop.records import NewMessage, Role, Status
from slop.store import Store
from slop.store.turnlock import STALE_AFTER, TurnLocks, process_running
from tests.fakellm import FakeLLM
from tests.providers.conftest import AppFactory
from tests.reliability.checks import ledger_problems, requests_problems
from tests.reliability.conftest import SlopRunner


def chat_bodies(fake: FakeLLM) -> list[dict[str, object]]:
    return [r.json for r in fake.requests if "chat" in r.target]


def wait_for(predicate: object, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def tool_started(db: Path) -> bool:
    if not db.exists():
        return False
    conn = sqlite3.connect(db)
    try:
        return bool(conn.execute("SELECT 1 FROM messages WHERE status='tool_call'").fetchone())
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def test_second_process_on_a_busy_session_is_refused_and_nothing_breaks(
    slop: SlopRunner, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    release = tmp_path / "release"  # A's tool runs until the test has tried B (no timing guess)
    wait = f"while [ ! -e {release} ]; do sleep 0.05; done; echo released"
    fake_llm.enqueue_tool_calls([("execute_bash", {"command": wait})])
    fake_llm.enqueue_text("A is done.")
    first = slop.popen("--yes", "--prompt", "run the slow thing")
    wait_for(lambda: tool_started(slop.db))
    second = slop.run("--prompt", "meanwhile, hello")
    assert second.returncode == 1
    assert f"session 'default' is busy in another slop (pid {first.pid}); use another session or wait" in (
        second.stdout + second.stderr
    )
    other = slop.run("--session", "other", "--prompt", "a different session is not blocked")
    assert other.returncode == 0, other.stderr
    release.touch()
    _out, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    fake_llm.enqueue_text("B's turn now.")
    again = slop.run("--prompt", "now hello")
    assert again.returncode == 0, again.stderr
    assert requests_problems(chat_bodies(fake_llm)) == []
    assert ledger_problems(slop.db) == []
    conn = sqlite3.connect(slop.db)
    users = [r[0] for r in conn.execute("SELECT content FROM messages WHERE role='user' AND session_id='default'")]
    conn.close()
    assert users == ["run the slow thing", "now hello"]  # the refused turn wrote nothing


def test_a_lock_left_by_a_killed_process_does_not_block(store: Store) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    now = time.time()
    store.db.execute(
        "INSERT INTO turn_locks VALUES ('s', ?, ?, 'tok', ?, ?)", (dead.pid, store.turn_locks._host, now, now)
    )
    assert not process_running(dead.pid)
    assert store.turn_locks.holder("s") is None
    token = store.turn_locks.acquire("s")
    store.turn_locks.release("s", token)


def test_a_live_holder_blocks_until_its_heartbeat_goes_stale(store: Store) -> None:
    now = time.time()
    store.db.execute(
        "INSERT INTO turn_locks VALUES ('s', ?, ?, 'theirs', ?, ?)", (os.getppid(), store.turn_locks._host, now, now)
    )
    with pytest.raises(SessionBusy, match=f"pid {os.getppid()}"):
        store.turn_locks.acquire("s")
    store.db.execute("UPDATE turn_locks SET heartbeat=?", (now - STALE_AFTER - 1,))  # frozen or pid reused
    store.turn_locks.release("s", store.turn_locks.acquire("s"))


def test_rows_interleaved_by_another_writer_still_make_a_valid_request(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    """Defence in depth: rows an older slop (without the lock) wrote between a call and
    its results are moved after the results in the request."""
    app, _rec = make_app()
    store = app.store
    a = store.messages.new_group_id()
    store.messages.append("default", a, NewMessage(Role.USER, "A asks", parsing_strategy="openai"))
    call = {"id": "call_a", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    native = json.dumps({"role": "assistant", "content": None, "tool_calls": [call]})
    store.messages.append(
        "default", a, NewMessage(Role.ASSISTANT, native, Status.TOOL_CALL, parsing_strategy="openai", call_ids="call_a")
    )
    b = store.messages.new_group_id()
    store.messages.append("default", b, NewMessage(Role.USER, "B asks", parsing_strategy="openai"))
    store.messages.append("default", b, NewMessage(Role.ASSISTANT, "B's answer", parsing_strategy="openai"))
    store.messages.append(
        "default", a, NewMessage(Role.TOOL, "file text", tool_call_id="call_a", parsing_strategy="openai")
    )
    fake_llm.enqueue_text("fine")
    assert app.engine.handle("and now?").ok
    body = fake_llm.last_request("chat").json
    assert requests_problems([body]) == []
    roles = [m["role"] for m in body["messages"][1:]]
    assert roles == ["user", "assistant", "tool", "user", "assistant", "user"]


def test_a_holder_that_lost_its_lock_cancels_its_turn(store: Store) -> None:
    """A slop frozen past STALE_AFTER (Ctrl-Z) whose lock another process took over:
    when it runs again, its heartbeat finds the lock gone and cancels its turn."""
    locks = TurnLocks(store.db, heartbeat_every=0.05)
    lost = threading.Event()
    with locks.hold("s", on_lost=lost.set):
        assert not lost.wait(0.2)  # heartbeats keep it
        store.db.execute("UPDATE turn_locks SET token='taken-over', pid=? WHERE session_id='s'", (os.getppid(),))
        assert lost.wait(5)
    assert locks.holder("s") is not None  # the new holder's lock is left alone
