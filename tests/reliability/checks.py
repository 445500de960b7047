"""What "valid request" and "whole ledger" mean, checked the way a strict server and a
careful user would. Shared by the reliability tests and scripts/stress_integrity.py."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from slop.pairs import pair_results
from slop.records import Message
from slop.store.messages import MESSAGE_COLUMNS


def request_problems(body: dict[str, Any]) -> list[str]:
    """Why an OpenAI chat request would be rejected for its tool messages (empty: valid).

    Like OpenAI's own check: an assistant message with tool_calls must be followed, at
    once, by one tool message per call id (in any order) and nothing else in between;
    a tool message anywhere else is an orphan; ids within one request are unique."""
    problems: list[str] = []
    messages = body.get("messages") or []
    seen_ids: set[str] = set()
    i = 0
    while i < len(messages):
        msg = messages[i]
        if msg.get("role") == "tool":
            problems.append(f"message {i}: tool result {msg.get('tool_call_id')!r} does not follow its call")
            i += 1
            continue
        calls = msg.get("tool_calls") or [] if msg.get("role") == "assistant" else []
        ids = [c.get("id") for c in calls]
        for cid in ids:
            if not cid:
                problems.append(f"message {i}: a tool call without an id")
            elif cid in seen_ids:
                problems.append(f"message {i}: tool call id {cid!r} used twice in one request")
            seen_ids.add(cid)
        answered: list[str] = []
        j = i + 1
        while j < len(messages) and messages[j].get("role") == "tool":
            answered.append(messages[j].get("tool_call_id"))
            j += 1
        if sorted(answered) != sorted(ids):
            problems.append(f"message {i}: calls {ids} answered by {answered}")
        i = j
    return problems


def requests_problems(bodies: Iterable[dict[str, Any]]) -> list[str]:
    return [f"request {n}: {p}" for n, body in enumerate(bodies) for p in request_problems(body)]


def ledger_problems(db_path: Path | str) -> list[str]:
    """Opens with a plain sqlite3 connection (not slop's) and lists every tool-call row
    whose calls lack a result, and every result that answers no call."""
    conn = sqlite3.connect(db_path)
    try:
        if conn.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            return ["integrity_check failed"]
        rows = [Message(*r) for r in conn.execute(f"SELECT {MESSAGE_COLUMNS} FROM messages ORDER BY session_id, id")]
    finally:
        conn.close()
    problems: list[str] = []
    by_session: dict[str, list[Message]] = {}
    for row in rows:
        by_session.setdefault(row.session_id, []).append(row)
    for session, messages in by_session.items():
        pairing = pair_results(messages)
        for index, ids in pairing.unanswered.items():
            problems.append(f"session {session}: row {messages[index].id} has unanswered calls {ids}")
        answered = {i for results in pairing.results.values() for i in results}
        for index, msg in enumerate(messages):
            if msg.role == "tool" and index not in answered and msg.status not in ("dropped", "compacted", "archived"):
                problems.append(f"session {session}: result row {msg.id} answers no call")
    return problems
