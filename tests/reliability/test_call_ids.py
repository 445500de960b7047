"""Item 4: tool-call ids are unique per ledger even when the server sends none or
repeats them, and results are paired with the call row they answer."""

from __future__ import annotations

import json
from typing import Any

from slop.records import Role, Status
from slop.store import Store
from slop.store.db import Database
from slop.store.migrations import MIGRATIONS, migrate
from slop.store.repair import CANCELLED_RESULT
from tests.fakellm import FakeLLM
from tests.providers.conftest import AppFactory
from tests.reliability.checks import ledger_problems, requests_problems

READ = ("read_file", {"path": "notes.txt"})
LIST = ("list_directory", {"path": "."})


def stored_ids(store: Store) -> list[str]:
    rows = store.db.query("SELECT call_ids FROM messages WHERE status='tool_call' ORDER BY id")
    return [cid for row in rows for cid in row[0].split("\n")]


def gemini_pairs(body: dict[str, Any]) -> tuple[list[str], list[str]]:
    calls, answers = [], []
    for content in body["contents"]:
        for part in content["parts"]:
            if "functionCall" in part:
                calls.append(part["functionCall"]["id"])
            if "functionResponse" in part:
                answers.append(part["functionResponse"]["id"])
    return calls, answers


def test_missing_and_repeated_openai_ids_become_unique(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _rec = make_app()
    for _turn in range(2):
        fake_llm.enqueue_tool_calls([(*READ, "call_0"), (*LIST, "call_0")])  # repeated, within and across turns
        fake_llm.enqueue_tool_calls([(*READ, ""), (*LIST, "")])  # none at all
        fake_llm.enqueue_text("done")
        assert app.engine.handle("look around").ok
    ids = stored_ids(app.store)
    assert len(ids) == 8 and len(set(ids)) == 8 and all(ids)
    assert ids[0] == "call_0"  # the provider's own id is kept where it is unique
    results = app.store.db.query("SELECT tool_call_id, content FROM messages WHERE role='tool' ORDER BY id")
    assert [r[0] for r in results] == ids
    assert "alpha" in results[0][1] and "notes.txt" in results[1][1]  # each result answers its own call
    bodies = [r.json for r in fake_llm.requests if "chat" in r.target]
    assert requests_problems(bodies) == []
    sent = [m for m in bodies[-1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in sent] == ids  # the request uses the stored ids
    assert ledger_problems(app.store.path) == []


def test_repeated_gemini_ids_are_rewritten_in_call_and_response(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _rec = make_app("gemini")
    for _turn in range(2):
        fake_llm.enqueue_tool_calls([(*READ, "same"), (*LIST, "same")])
        fake_llm.enqueue_text("done")
        assert app.engine.handle("look").ok
    ids = stored_ids(app.store)
    assert len(set(ids)) == 4 and ids[0] == "same"
    body = [r for r in fake_llm.requests if r.protocol == "gemini" and r.method == "POST"][-1].json
    calls, answers = gemini_pairs(body)
    assert calls == answers == ids
    assert ledger_problems(app.store.path) == []


def test_an_unanswered_legacy_call_is_not_answered_by_an_older_result_of_the_same_id(tmp_path: Any) -> None:
    """Old ledgers: every turn's fallback id was call_0, and a crash left the second
    call without a result. Pairing by position sees it; the upgrade closes it."""
    path = str(tmp_path / "legacy.db")
    db = Database(path)
    migrate(db, MIGRATIONS[:4])
    call = json.dumps(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}],
        }
    )
    rows = [
        ("1", Role.USER, "first", None, Status.COMPLETED),
        ("1", Role.ASSISTANT, call, None, Status.TOOL_CALL),
        ("1", Role.TOOL, "result one", "call_0", Status.COMPLETED),
        ("2", Role.USER, "second", None, Status.COMPLETED),
        ("2", Role.ASSISTANT, call, None, Status.TOOL_CALL),  # killed before its result
    ]
    for gid, role, content, tcid, status in rows:
        db.execute(
            "INSERT INTO messages(session_id, group_id, role, content, tool_call_id, status, parsing_strategy)"
            " VALUES ('s', ?, ?, ?, ?, ?, 'openai')",
            (gid, role, content, tcid, status),
        )
    db.close()
    assert len(ledger_problems(path)) == 1  # seen by position, though the id string has a result
    store = Store.open(path)
    try:
        last = store.messages.window("s", 0)[-1]
        assert (last.role, last.status, last.content, last.group_id) == (
            Role.TOOL,
            Status.CANCELLED,
            CANCELLED_RESULT,
            "2",
        )
    finally:
        store.close()
    assert ledger_problems(path) == []
