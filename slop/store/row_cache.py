"""Message records kept from one request to the next.

Every model call reads the groups it sends (the window's and the ranked ones: hundreds
of rows) and the next call, after a write, reads most of them again. Building a row's
record costs more than the query that finds it, and a committed row's text and identity
never change in slop's hands (ids are never reused); only its status and token counts do.
So a read asks the ledger for each row's id and those mutable columns alone, and builds
records only for rows it has not kept or whose mutable columns moved.

What slop never edits can still be edited by hand (sqlite3 in another terminal): the
ledger's edit epoch (its own triggers raise it on any UPDATE of a row's other columns
and on any DELETE, from any process) empties the cache when it moves. Rows read inside
an open transaction are not kept (it may roll back and their ids be reused)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from slop.records import Message
from slop.store.db import Database
from slop.store.edits import EditWatch
from slop.store.sql import MESSAGE_COLUMNS, MESSAGE_STATE, to_messages

KEPT_CHARS = 32_000_000  # text kept in records (about 64 MB at most); past it, start afresh

Rows = Callable[[str], list[tuple[Any, ...]]]  # the rows asked for, with this select list


@dataclass(slots=True)
class RowCache:
    """Records by id, valid while the edit epoch stands."""

    watch: EditWatch = field(default_factory=EditWatch)
    records: dict[int, Message] = field(default_factory=dict)
    groups: set[str | None] = field(default_factory=set)  # groups some of whose records are kept
    chars: int = 0

    def read(self, db: Database, group_ids: list[str], rows: Rows) -> list[Message]:
        """The records of the rows `rows` selects, in its order. Of groups some records
        of which are kept: each row's id and state (MESSAGE_STATE) first, kept records
        reused while their state is unchanged, the others read whole (a row deleted in
        between is left out). Of groups never read: the rows whole, at once, kept for
        the next read (when this ledger state allows)."""
        with db.lock:  # one reader at a time: a turn's worker thread and the REPL's share it
            if self.watch.moved(db):
                self._forget()
            if self.groups.isdisjoint(group_ids):
                messages = to_messages(rows(MESSAGE_COLUMNS))
                self._keep({m.id: m for m in messages})
                return messages
            return self._reuse(db, rows(f"id, {MESSAGE_STATE}"))

    def _reuse(self, db: Database, keys: list[tuple[Any, ...]]) -> list[Message]:
        records = self.records
        stale = [key[0] for key in keys if _state(records.get(key[0])) != key[1:]]
        if not stale:
            return [records[key[0]] for key in keys]
        found = db.tuples(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(stale),),
        )
        fresh = {m.id: m for m in to_messages(found)}
        self._keep(fresh)
        reread = set(stale)  # a kept record of these is out of date, even when the row is gone
        out = []
        for key in keys:
            record = fresh.get(key[0]) if key[0] in reread else records[key[0]]
            if record is not None:
                out.append(record)
        return out

    def _forget(self) -> None:
        self.records = {}
        self.groups = set()
        self.chars = 0

    def _keep(self, fresh: dict[int, Message]) -> None:
        if not self.watch.keep:
            return
        added = sum(len(m.content) for m in fresh.values())
        if self.chars + added > KEPT_CHARS:
            self._forget()
        self.records.update(fresh)
        self.groups.update(m.group_id for m in fresh.values())
        self.chars += added


def _state(msg: Message | None) -> tuple[str, int, int] | None:
    return None if msg is None else (msg.status, msg.tokens, msg.content_tokens)
