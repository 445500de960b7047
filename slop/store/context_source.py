"""The ledger as context strategies see it: `slop.context.strategies.base.HistorySource`
(reading) and `HistoryEditor` (what compacting strategies may change).

Built once, by `Store` (`store.history`), over the store's own messages, search and
archive. Strategies ask for messages, FTS hits, pins and summaries through these
methods and never see SQL; where the archive or the message table already answers in
the protocol's words, its method is bound here rather than forwarded."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from slop.records import Message, Role
from slop.store.archive import ContextArchive
from slop.store.db import Database
from slop.store.messages import Messages
from slop.store.search import HistorySearch
from slop.store.sql import BY_GROUP, MESSAGE_COLUMNS, VISIBLE, to_messages

_NEAR_GROUPS = 8  # groups searched for the current / first request before a full scan


@dataclass
class Edit:
    """The open `StoreHistory.edit()`: `rollback()` undoes the block when it ends."""

    rolled_back: bool = False

    def rollback(self) -> None:
        self.rolled_back = True


class StoreHistory:
    def __init__(self, db: Database, messages: Messages, search: HistorySearch, archive: ContextArchive) -> None:
        self._db = db
        self._messages = messages
        self._search = search
        # reading
        self.window = messages.window
        self.last_group_ids = messages.last_group_ids
        self.active_summaries = archive.active_summaries
        self.summary_group_ids = archive.summary_group_ids
        self.files_read = archive.files_read
        self.pinned_groups = archive.pinned
        self.recovered_since = archive.recovered_since
        self.archived = archive.archived
        # writing: the archive's own transactions, in the protocol's names
        self.compact = archive.compact
        self.set_compaction_tokens = archive.set_tokens_after
        self.archive_group = archive.archive
        self.recover_group = archive.recover
        self.expire_archive = archive.cleanup_expired
        self.log = archive.log

    # ---- reading: HistorySource ------------------------------------------------------
    def messages_of_groups(
        self, session_id: str, group_ids: list[str], *, include_ungrouped: bool = False
    ) -> list[Message]:
        if not group_ids and not include_ungrouped:
            return []
        out: list[Message] = []
        for start in range(0, max(1, len(group_ids)), 500):  # SQLite's variable limit
            chunk = group_ids[start : start + 500]
            ungrouped = include_ungrouped and not start
            out += self._messages.messages_of_groups(session_id, chunk, include_ungrouped=ungrouped)
        return sorted(out, key=lambda m: m.id) if len(group_ids) > 500 else out

    def recent_messages(self, session_id: str, n: int) -> list[Message]:
        """The session's last `n` visible messages, oldest first."""
        rows = self._db.tuples(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id=? AND {VISIBLE} ORDER BY id DESC LIMIT ?",
            (session_id, n),
        )
        return to_messages(rows[::-1])

    def latest_user(self, session_id: str) -> Message | None:
        """The latest visible user message: the current request."""
        return self._edge_user(session_id, newest=True)

    def first_user(self, session_id: str) -> Message | None:
        """The session's first visible user message: the original request."""
        return self._edge_user(session_id, newest=False)

    def _edge_user(self, session_id: str, *, newest: bool) -> Message | None:
        """The newest (or oldest) visible user row, looked for in the last (first) few
        groups through the (session_id, group_id) index, so a long session is not walked;
        only when those groups hold none (or the row has no group) is the session scanned."""
        order = "DESC" if newest else "ASC"
        near = (
            f"SELECT {MESSAGE_COLUMNS} FROM messages {BY_GROUP} WHERE session_id=?1 AND role=?2 AND {VISIBLE}"
            f" AND group_id IN (SELECT DISTINCT group_id FROM messages {BY_GROUP} WHERE session_id=?1"
            f" AND group_id IS NOT NULL AND {VISIBLE} ORDER BY group_id {order} LIMIT {_NEAR_GROUPS})"
            f" ORDER BY id {order} LIMIT 1"
        )
        rows = self._db.tuples(near, (session_id, Role.USER))
        if (
            rows
            and newest
            and self._db.scalar(  # a newer ungrouped user row (ledgers from other tools) wins
                f"SELECT 1 FROM messages {BY_GROUP} WHERE session_id=? AND group_id IS NULL AND role=?"
                f" AND {VISIBLE} AND id > ? LIMIT 1",
                (session_id, Role.USER, rows[0][0]),
            )
            is None
        ):
            return to_messages(rows)[0]
        if (
            rows
            and not newest
            and self._db.scalar(
                f"SELECT 1 FROM messages {BY_GROUP} WHERE session_id=? AND group_id IS NULL AND role=?"
                f" AND {VISIBLE} AND id < ? LIMIT 1",
                (session_id, Role.USER, rows[0][0]),
            )
            is None
        ):
            return to_messages(rows)[0]
        rows = self._db.tuples(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id=? AND role=? AND {VISIBLE}"
            f" ORDER BY id {order} LIMIT 1",
            (session_id, Role.USER),
        )
        return to_messages(rows)[0] if rows else None

    def search_groups(self, session_id: str, fts_query: str, limit: int, *, newest: int = 0) -> list[tuple[str, float]]:
        return [(h.group_id, h.score) for h in self._search.groups(session_id, fts_query, limit, newest=newest)]

    def search_archived(self, session_id: str, fts_query: str, limit: int) -> list[tuple[str, float]]:
        return [(h.group_id, h.score) for h in self._search.groups(session_id, fts_query, limit, archived=True)]

    def system_group_ids(self, session_id: str) -> list[str]:
        rows = self._db.query(
            "SELECT DISTINCT group_id FROM messages INDEXED BY idx_messages_system_groups"
            f" WHERE session_id=? AND role='system' AND group_id IS NOT NULL AND {VISIBLE}",
            (session_id,),
        )
        return [r[0] for r in rows]

    # ---- writing: HistoryEditor --------------------------------------------------------
    @contextmanager
    def edit(self) -> Iterator[Edit]:
        """One transaction (a savepoint inside the caller's): kept when the block ends,
        undone when the block called `rollback()` or raised."""
        edit = Edit()
        with self._db.transaction():
            self._db.execute("SAVEPOINT context_edit")
            try:
                yield edit
            except BaseException:
                self._db.execute("ROLLBACK TO context_edit")
                self._db.execute("RELEASE context_edit")
                raise
            if edit.rolled_back:
                self._db.execute("ROLLBACK TO context_edit")
            self._db.execute("RELEASE context_edit")
