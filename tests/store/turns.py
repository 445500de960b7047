"""Turns written into a real ledger the way slop writes them: a user row, tool-call rows
with their results, a reply, each in the turn's group."""

from __future__ import annotations

import json

from slop.records import NewMessage, Role, Status
from slop.store import Store


def turn(store: Store, session: str, prompt: str, answer: str = "done") -> str:
    """A plain question and answer; returns the group id."""
    gid = store.messages.new_group_id()
    store.messages.append(session, gid, NewMessage(Role.USER, prompt, parsing_strategy="openai"))
    store.messages.append(session, gid, NewMessage(Role.ASSISTANT, answer, parsing_strategy="openai"))
    return gid


def call_row(*call_ids: str, tool: str = "read_file") -> NewMessage:
    """An assistant row asking for tools, as the OpenAI wire stores it."""
    calls = [{"id": cid, "type": "function", "function": {"name": tool, "arguments": "{}"}} for cid in call_ids]
    native = json.dumps({"role": "assistant", "content": None, "tool_calls": calls})
    return NewMessage(Role.ASSISTANT, native, Status.TOOL_CALL, parsing_strategy="openai", call_ids="\n".join(call_ids))


def result_row(call_id: str, text: str = "file text", status: str = Status.COMPLETED) -> NewMessage:
    return NewMessage(Role.TOOL, text, status, tool_call_id=call_id, parsing_strategy="openai")


def tool_turn(store: Store, session: str, prompt: str, *call_ids: str, answered: bool = True) -> str:
    """A turn whose model called tools; `answered=False` stops where a killed process would."""
    gid = store.messages.new_group_id()
    store.messages.append(session, gid, NewMessage(Role.USER, prompt, parsing_strategy="openai"))
    store.messages.append(session, gid, call_row(*call_ids))
    if answered:
        for cid in call_ids:
            store.messages.append(session, gid, result_row(cid))
        store.messages.append(session, gid, NewMessage(Role.ASSISTANT, "read it", parsing_strategy="openai"))
    return gid


def contents(store: Store, session: str) -> list[str]:
    """What the session's full window holds, oldest first."""
    return [m.content for m in store.messages.window(session, 0)]


def events(store: Store, session: str) -> list[tuple[str, str | None, str]]:
    """The session's context log: (event, group, detail)."""
    return [(e.event, e.group_id, e.detail) for e in store.archive.log_entries(session, 100)]
