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
from dataclasses import dataclass, field

from slop.records import Message
from slop.store.db import Database
from slop.store.edits import edit_epoch
from slop.store.sql import MESSAGE_COLUMNS, to_messages

KEPT_CHARS = 32_000_000  # text kept in records (about 64 MB at most); past it, start afresh


@dataclass(slots=True)
class RowCache:
    """Records by id, valid while the edit epoch stands."""

    stamp: tuple[int, int] = (-1, -1)
    keep_now: bool = False  # whether rows read in this ledger state may be kept
    epoch: int | None = None
    records: dict[int, Message] = field(default_factory=dict)
    groups: set[str | None] = field(default_factory=set)  # groups some of whose records are kept
    chars: int = 0

    def knows_any(self, db: Database, group_ids: list[str]) -> bool:
        """Whether records of any of these groups are kept: when none are (a session read
        for the first time), the rows are read whole at once (`keep`), with no look at
        their states first."""
        with db.lock:
            self._check(db)
            return not self.groups.isdisjoint(group_ids)

    def keep(self, db: Database, messages: list[Message]) -> list[Message]:
        """Records read whole, kept for the next read (when this ledger state allows)."""
        with db.lock:
            self._check(db)
            if self.keep_now:
                self._keep({m.id: m for m in messages})
        return messages

    def messages(self, db: Database, keys: list[tuple[int, str, int, int]]) -> list[Message]:
        """The records of rows (id, *MESSAGE_STATE), in the order given: kept ones when
        their state is unchanged, the others read whole (a row deleted in between is
        left out)."""
        with db.lock:  # one reader at a time: a turn's worker thread and the REPL's share it
            return self._messages(db, keys)

    def _messages(self, db: Database, keys: list[tuple[int, str, int, int]]) -> list[Message]:
        self._check(db)
        records = self.records
        stale = [key[0] for key in keys if _state(records.get(key[0])) != key[1:]]
        fresh: dict[int, Message] = {}
        if stale:
            rows = db.tuples(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(stale),),
            )
            fresh = {m.id: m for m in to_messages(rows)}
            if self.keep_now:
                self._keep(fresh)
        if not stale:
            return [records[key[0]] for key in keys]
        reread = set(stale)  # a kept record of these is out of date, even when the row is gone
        out = []
        for key in keys:
            found = fresh.get(key[0]) if key[0] in reread else records[key[0]]
            if found is not None:
                out.append(found)
        return out

    def _check(self, db: Database) -> None:
        stamp = db.change_stamp()
        if stamp == self.stamp:
            return
        self.stamp = stamp
        epoch = edit_epoch(db)
        if epoch is None or epoch != self.epoch:
            self.records = {}
            self.groups = set()
            self.chars = 0
            self.epoch = epoch
        self.keep_now = epoch is not None and not db.in_transaction

    def _keep(self, fresh: dict[int, Message]) -> None:
        added = sum(len(m.content) for m in fresh.values())
        if self.chars + added > KEPT_CHARS:
            self.records = {}
            self.groups = set()
            self.chars = 0
        self.records.update(fresh)
        self.groups.update(m.group_id for m in fresh.values())
        self.chars += added


def _state(msg: Message | None) -> tuple[str, int, int] | None:
    return None if msg is None else (msg.status, msg.tokens, msg.content_tokens)
