"""Ledger rows edited by hand (sqlite3 CLI, a DB browser, a script gone wrong) never
crash a command and never produce an invalid request; /undo and /session list keep
working."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakellm import FakeLLM
from tests.hostile.conftest import Batch, assert_valid_request

EDITS = {
    "text in tokens": "UPDATE messages SET tokens='lots', content_tokens='many' WHERE role='assistant'",
    "a BLOB of UTF-8 in content": "UPDATE messages SET content=CAST('a blob answer' AS BLOB) WHERE role='assistant'"
    " AND status='completed'",
    "a BLOB that is not UTF-8 in content": "UPDATE messages SET content=X'FF00FE61' WHERE role='user'",
    "text that is not UTF-8": "UPDATE messages SET content=CAST(X'FF61' AS TEXT) WHERE role='tool'",
    "a number in content": "UPDATE messages SET content=42 WHERE role='user'",
    "text in context_size": "UPDATE sessions SET context_size='lots'",
    "a huge context_size": "UPDATE sessions SET context_size=1e300",
    "garbage JSON in settings": "UPDATE sessions SET settings='{not json', active_skills='[oops'",
    "wrong types in settings": "UPDATE sessions SET settings="
    """'{"budget": "big", "throttle": [1], "context_mode": 7, "model": null, "messages": 1e999}'""",
    "garbage in a tool-call row": "UPDATE messages SET content='{\"tool_calls\": [garbage' WHERE status='tool_call'",
    "tool calls that are not objects": "UPDATE messages SET content="
    """'{"role": "assistant", "tool_calls": [1, null, {"function": 7}]}' WHERE status='tool_call'""",
    "a result whose call id is gone": "UPDATE messages SET tool_call_id=NULL WHERE role='tool'",
    "text in usage": "UPDATE usage SET prompt_tokens='x', total_tokens='y'",
    "an unknown status": "UPDATE messages SET status='weird' WHERE role='user'",
}

COMMANDS = [
    "/message list",
    "/context show",
    "/context window",
    "/context mode",
    "/context budget",
    "/session list",
    "/usage",
    "/schema",
    "/skill list",
    "/throttle",
]


def _ledger_with_a_tool_turn(batch: Batch, fake: FakeLLM) -> None:
    fake.enqueue_tool_calls([("read_file", {"path": "notes.txt"})], text="Reading.")
    fake.enqueue_text("It says: remember the milk.")
    assert batch("what is in notes.txt?").code == 0
    fake.enqueue_text("Sure.")
    assert batch("thanks").code == 0


# Every edit on the OpenAI wire; on Gemini's, the ones that change what a request holds.
GEMINI_EDITS = (
    "garbage in a tool-call row",
    "tool calls that are not objects",
    "a result whose call id is gone",
    "a BLOB that is not UTF-8 in content",
)
TABLE = [pytest.param(edit, "openai", id=f"{edit} [openai]") for edit in EDITS] + [
    pytest.param(edit, "gemini", id=f"{edit} [gemini]") for edit in GEMINI_EDITS
]


@pytest.mark.parametrize(("edit", "protocol"), TABLE)
def test_hand_edited_rows(edit: str, protocol: str, batch_for: Callable[[str], Batch], fake_llm: FakeLLM) -> None:
    batch = batch_for(protocol)
    _ledger_with_a_tool_turn(batch, fake_llm)
    db = sqlite3.connect(batch.db)
    db.execute(EDITS[edit])
    db.commit()
    db.close()
    for line in COMMANDS:
        run = batch(line)
        assert run.code == 0, (line, run.events)
    fake_llm.enqueue_text("Still here.")
    run = batch("are you still there?")
    assert run.code == 0 and run.texts("assistant") == ["Still here."], run.events
    assert_valid_request(fake_llm.last_request())
    assert batch("/undo").code == 0
    assert batch("/undo").code == 0
    assert batch("/session list").code == 0
    assert batch.crash_logs() == [], "no internal error was hit"


def test_a_ledger_with_every_edit_at_once_still_starts(batch_for: Callable[[str], Batch], fake_llm: FakeLLM) -> None:
    batch = batch_for("openai")
    _ledger_with_a_tool_turn(batch, fake_llm)
    db = sqlite3.connect(batch.db)
    for sql in EDITS.values():
        db.execute(sql)
    db.commit()
    db.close()
    for line in [*COMMANDS, "/message list 50"]:
        assert batch(line).code == 0, line
    fake_llm.enqueue_text("ok")
    assert batch("hello").code == 0
    assert_valid_request(fake_llm.last_request())
    assert batch.crash_logs() == []


def test_an_intact_ledger_keeps_the_fast_decoder(tmp_path: Path) -> None:
    """The lenient UTF-8 decoder costs ~40% on bulk reads: a ledger is read with the C
    decoder until the first row that is not UTF-8, then with the lenient one."""
    from slop.records import NewMessage, Role
    from slop.store import Store

    path = str(tmp_path / "l.db")
    store = Store.open(path)
    try:
        store.messages.append("s", store.messages.new_group_id(), NewMessage(Role.USER, "fine"))
        assert [m.content for m in store.messages.window("s", 5)] == ["fine"]
        assert store.db._conn.text_factory is str
        raw = sqlite3.connect(path)
        raw.execute("UPDATE messages SET content=CAST(X'66FF6E65' AS TEXT)")
        raw.commit()
        raw.close()
        assert [m.content for m in store.messages.window("s", 5)] == ["f\ufffdne"]
        assert store.db._conn.text_factory is not str
    finally:
        store.close()
