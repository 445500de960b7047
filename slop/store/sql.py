"""SQL fragments the ledger modules share: which rows are visible, the whole-row column
list that builds a `Message`, the index hint for group lookups, the session upsert. Written
once here so a new hidden status or a new message column is one edit."""

from __future__ import annotations

from collections import deque
from dataclasses import fields
from itertools import repeat
from typing import Any

from slop.records import Message, Status

# The statuses the model never sees (dropped, compacted, archived), as an SQL list.
HIDDEN = "('" + "','".join(Status.HIDDEN) + "')"
VISIBLE = f"status NOT IN {HIDDEN}"  # a row the context may carry

# A new session's window is the configured default (SessionDefaults.context_size), written
# into the row so std::slop's own SQL reads a number, as it always did. Used by every
# ledger module that may create a session row.
ENSURE_SESSION = "INSERT OR IGNORE INTO sessions(id, name, context_size) VALUES (?, ?, ?)"

# The (session_id, group_id, status) index, named: with ANALYZE statistics SQLite may
# otherwise prefer a scan of the whole session.
BY_GROUP = "INDEXED BY idx_messages_session_group"

# Each Message field's SQL, NULLs mapped to the record's defaults. The CASTs make a row
# edited by hand (a BLOB or a number in `content`, text in `tokens`) read back as the
# types the record promises; they cost nothing on intact rows.
_FIELD_SQL = {
    "id": "id",
    "session_id": "session_id",
    "role": "CAST(role AS TEXT)",
    "content": "COALESCE(CAST(content AS TEXT), '')",
    "status": "COALESCE(CAST(status AS TEXT), 'completed')",
    "group_id": "CAST(group_id AS TEXT)",
    "tool_call_id": "CAST(tool_call_id AS TEXT)",
    "parsing_strategy": "CAST(parsing_strategy AS TEXT)",
    "tokens": "COALESCE(CAST(tokens AS INTEGER), 0)",
    "created_at": "COALESCE(created_at, '')",
    "reasoning": "CAST(reasoning AS TEXT)",
    "content_tokens": "COALESCE(CAST(content_tokens AS INTEGER), 0)",
    "call_ids": "CAST(call_ids AS TEXT)",
}
# Laid out in Message's own field order (a field without SQL fails at import), so a row
# tuple is the constructor's positional arguments: window loads build ~200 records per
# model call, and keyword construction would cost more than the query.
MESSAGE_FIELDS = tuple(f.name for f in fields(Message))


def message_columns(**instead: str) -> str:
    """The select list of a whole Message row, in field order; `instead` replaces some
    fields' SQL by name (e.g. `tokens="0"` where a reader does not need them)."""
    unknown = set(instead) - set(MESSAGE_FIELDS)
    if unknown:
        raise ValueError(f"not Message fields: {', '.join(sorted(unknown))}")
    return ", ".join(instead.get(name) or _FIELD_SQL[name] for name in MESSAGE_FIELDS)


MESSAGE_COLUMNS = message_columns()
# What slop changes in a stored row (slop.store.row_cache): its status and token counts.
MESSAGE_STATE = ", ".join(_FIELD_SQL[name] for name in ("status", "tokens", "content_tokens"))


# Message's slots, in MESSAGE_FIELDS order. A frozen dataclass's __init__ sets each field
# through object.__setattr__ (3.4 us a row); setting the slots from C takes half that,
# and the context reads hundreds of rows a request.
_SLOTS = tuple(getattr(Message, name) for name in MESSAGE_FIELDS)
_SET_SLOT = type(_SLOTS[0]).__set__


def _message(row: tuple[Any, ...]) -> Message:
    msg = object.__new__(Message)
    deque(map(_SET_SLOT, _SLOTS, repeat(msg), row), maxlen=0)  # runs the map, keeps nothing
    return msg


def to_messages(rows: list[tuple[Any, ...]]) -> list[Message]:
    """Records from rows selected with MESSAGE_COLUMNS (each equal to Message(*row))."""
    return [_message(row) for row in rows]
