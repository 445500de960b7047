"""Full-text search over the ledger: an FTS5 index of every message, BM25-ranked.

The index is *external content* (``content='messages'``): it stores only the inverted
index and reads texts back from `messages`, so the ledger does not double in size.
Triggers keep it current as rows are inserted, deleted or edited, whoever writes them
(the orchestrator's steps, /undo, /session clear). Documents are messages; a group's
rank is the rank of its best message (BM25 via FTS5 ``rank``, lower is better).

Every query goes through the index (`MATCH`), so its cost follows the number of
matching rows, not the length of the history (see perf_anchors.md §3b). The joins are
CROSS JOINs on purpose: they make SQLite drive the query from the FTS index; left to
itself it walks the session's messages and runs the MATCH once per row (30x slower)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from slop.errors import StoreError
from slop.records import Status
from slop.store.db import Database

M002_HISTORY_SEARCH = """
CREATE VIRTUAL TABLE IF NOT EXISTS history_fts USING fts5(
    content,
    content='messages',
    content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS history_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO history_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER IF NOT EXISTS history_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO history_fts(history_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER IF NOT EXISTS history_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO history_fts(history_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO history_fts(rowid, content) VALUES (new.id, new.content);
END;
INSERT INTO history_fts(history_fts) VALUES ('rebuild');
-- groups holding a system message are always in the ranked context: a tiny partial index
CREATE INDEX IF NOT EXISTS idx_messages_system_groups ON messages(session_id, group_id) WHERE role = 'system';
"""

_HIDDEN = "('" + "','".join(Status.HIDDEN) + "')"


@dataclass(frozen=True, slots=True)
class GroupHit:
    group_id: str
    score: float  # FTS5 bm25 rank of the group's best message: more negative = better


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One message found by search_history."""

    message_id: int
    group_id: str | None
    role: str
    status: str
    created_at: str
    snippet: str
    score: float


class HistorySearch:
    def __init__(self, db: Database) -> None:
        self._db = db

    def groups(self, session_id: str, fts_query: str, limit: int, *, archived: bool = False) -> list[GroupHit]:
        """The session's groups matching `fts_query`, best first.

        Visible groups by default; `archived=True` searches cold storage instead (the
        relevance strategy's dropped groups). A malformed query finds nothing."""
        if not fts_query.strip() or limit <= 0:
            return []
        status = f"m.status = '{Status.ARCHIVED}'" if archived else f"m.status NOT IN {_HIDDEN}"
        rows = self._safe_query(
            "SELECT m.group_id AS gid, MIN(f.rank) AS score FROM history_fts f CROSS JOIN messages m ON m.id = f.rowid"
            f" WHERE history_fts MATCH ? AND m.session_id = ? AND m.group_id IS NOT NULL AND {status}"
            " GROUP BY m.group_id ORDER BY score LIMIT ?",
            (fts_query, session_id, limit),
        )
        return [GroupHit(r["gid"], float(r["score"])) for r in rows]

    def messages(self, session_id: str, fts_query: str, limit: int) -> list[SearchHit]:
        """Messages of the session matching `fts_query`, best first, whatever their
        status (compacted, archived and dropped rows are found too, and say so)."""
        if not fts_query.strip() or limit <= 0:
            return []
        rows = self._safe_query(
            "SELECT m.id AS id, m.group_id AS gid, m.role AS role, m.status AS status, m.created_at AS created,"
            " snippet(history_fts, 0, '[', ']', '…', 24) AS snip, f.rank AS score"
            " FROM history_fts f CROSS JOIN messages m ON m.id = f.rowid"
            " WHERE history_fts MATCH ? AND m.session_id = ? ORDER BY f.rank LIMIT ?",
            (fts_query, session_id, limit),
        )
        return [
            SearchHit(r["id"], r["gid"], r["role"], r["status"], r["created"] or "", r["snip"] or "", float(r["score"]))
            for r in rows
        ]

    def _safe_query(self, sql: str, params: tuple[object, ...]) -> list[sqlite3.Row]:
        try:
            return self._db.query(sql, params)
        except StoreError as exc:  # an FTS5 query syntax error finds nothing; other errors stay errors
            if "fts5" in str(exc).lower():
                return []
            raise
