"""A stored row reads back with every column in its own Message field: the fast
positional construction (`Message(*row)`) is laid out by field name, not by hand."""

from __future__ import annotations

from dataclasses import fields

import pytest

from slop.records import Message, NewMessage, Role, Status
from slop.store import Store
from slop.store.sql import MESSAGE_FIELDS, message_columns, to_messages


def test_every_column_lands_in_the_field_of_its_name(store: Store) -> None:
    gid = store.messages.new_group_id()
    store.messages.append(
        "s", gid, NewMessage(Role.TOOL, "the output", Status.COMPLETED, "call-7", "openai", reasoning="why")
    )
    (row,) = store.db.query("SELECT * FROM messages WHERE session_id='s'")
    stored = {name: row[name] for name in row.keys()}  # noqa: SIM118 - sqlite3.Row has no items()
    message = store.messages.recent("s", 1)[0]
    for field in fields(Message):
        assert getattr(message, field.name) == stored[field.name], field.name


def test_a_hand_edited_row_reads_back_as_the_record_promises(store: Store) -> None:
    """NULLs and wrong types written by another tool become the record's defaults and types."""
    store.db.execute(
        "INSERT INTO messages(session_id, role, content, tokens, content_tokens) VALUES ('s', 'user', 42, 'x', NULL)"
    )
    message = store.messages.recent("s", 1)[0]
    assert (message.content, message.tokens, message.content_tokens) == ("42", 0, 0)


def test_a_reader_replaces_fields_by_name_only(store: Store) -> None:
    store.messages.append("s", None, NewMessage(Role.USER, "a long request", tokens=99))
    rows = store.db.tuples(f"SELECT {message_columns(tokens='0')} FROM messages")
    assert len(rows[0]) == len(MESSAGE_FIELDS)
    (message,) = to_messages(rows)
    assert (message.content, message.tokens, message.role) == ("a long request", 0, Role.USER)
    with pytest.raises(ValueError, match="not Message fields: tokenz"):
        message_columns(tokenz="0")


def test_strategies_and_tools_share_the_store_s_one_history(store: Store) -> None:
    """The history object is built once with the store and sees what the store writes."""
    assert store.history is store.history
    gid = store.messages.new_group_id()
    store.messages.append("s", gid, NewMessage(Role.USER, "pin me"))
    assert store.archive.pin("s", gid)
    assert store.history.pinned_groups("s") == {gid}
