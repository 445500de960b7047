"""Full-text search over the ledger: an FTS5 index of every message, BM25-ranked.

Since migration 8 the index is *contentless* (``content=''``): it stores only the
inverted index, and texts are read back from `messages`, so the ledger does not double
in size. Triggers feed it the searchable form of each row (tool-call rows without their
JSON structure) and its session token, as rows are inserted, deleted or edited, whoever
writes them (the orchestrator's steps, /undo, /session clear). Documents are messages;
a group's rank is the rank of its best message (lower is better): BM25 computed by
slop.store.bm25 over the session's newest matches for the strategies' searches, FTS5's
``rank`` for search_history and other query forms.

Every query goes through the index (`MATCH`), so its cost follows the number of
matching rows, not the length of the history (see perf_anchors.md §3b). The joins are
CROSS JOINs on purpose: they make SQLite drive the query from the FTS index; left to
itself it walks the session's messages and runs the MATCH once per row (30x slower)."""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from slop.errors import StoreError
from slop.records import SearchHit, Status
from slop.store import bm25
from slop.store.db import Database
from slop.store.search_cache import LastingFacts
from slop.store.sql import HIDDEN

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

# What a message contributes to the index: its text, except that a tool-call row (the
# provider's native JSON) contributes only its string values (the reply text, the tool's
# name, the argument values), never the JSON keys ("role", "tool_calls", "function", ...)
# or ids and signatures: those occur in every tool-call row, so they matched every one of
# them and became the query expansion's "top words". A pure function of (role, content),
# so the delete trigger recomputes exactly what the insert indexed.
_SEARCHABLE = """CASE WHEN {row}role = 'assistant' AND json_valid({row}content)
 AND (json_type({row}content, '$.tool_calls') = 'array' OR json_type({row}content, '$.parts') = 'array')
THEN COALESCE((SELECT group_concat(CASE WHEN t.key = 'arguments' AND json_valid(t.value)
    THEN (SELECT group_concat(a.value, ' ') FROM json_tree(t.value) a WHERE a.type IN ('text', 'integer', 'real'))
    ELSE t.value END, ' ')
  FROM json_tree({row}content) t
  WHERE t.type = 'text' AND t.key NOT IN ('id', 'type', 'role', 'thoughtSignature', 'thought_signature')), '')
ELSE {row}content END"""
# Each row also carries its session as one token, so a search is scoped inside the index
# (`scope : "<token>" AND ...`): FTS5 intersects doclists and never enumerates other
# sessions' matches (a small session in a 1M-message ledger costs what its own rows cost).
_SCOPE = "'s' || hex({row}session_id)"


def _searchable(row: str) -> str:
    return _SEARCHABLE.format(row=row)


# Contentless (`content=''`): the index stores no copy of the texts and the triggers feed
# it the searchable form of each row; the texts are read back from `messages`. (An
# external-content view could compute the searchable form, but SQLite 3.40's FTS5 cannot
# read a view that calls the JSON functions.)
M008_SCOPED_SEARCH = f"""
DROP TRIGGER IF EXISTS history_fts_insert;
DROP TRIGGER IF EXISTS history_fts_delete;
DROP TRIGGER IF EXISTS history_fts_update;
DROP TABLE IF EXISTS history_fts;
CREATE VIRTUAL TABLE history_fts USING fts5(
    content,
    scope,
    content='',
    tokenize='porter unicode61 remove_diacritics 2'
);
-- rank = BM25 over the text only; the scope column is a filter, not evidence
INSERT INTO history_fts(history_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)');
CREATE TRIGGER history_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO history_fts(rowid, content, scope)
    VALUES (new.id, {_searchable("new.")}, {_SCOPE.format(row="new.")});
END;
CREATE TRIGGER history_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO history_fts(history_fts, rowid, content, scope)
    VALUES ('delete', old.id, {_searchable("old.")}, {_SCOPE.format(row="old.")});
END;
CREATE TRIGGER history_fts_update AFTER UPDATE OF content, session_id, role ON messages BEGIN
    INSERT INTO history_fts(history_fts, rowid, content, scope)
    VALUES ('delete', old.id, {_searchable("old.")}, {_SCOPE.format(row="old.")});
    INSERT INTO history_fts(rowid, content, scope)
    VALUES (new.id, {_searchable("new.")}, {_SCOPE.format(row="new.")});
END;
INSERT INTO history_fts(rowid, content, scope)
    SELECT id, {_searchable("")}, {_SCOPE.format(row="")} FROM messages;
"""


def has_scoped_index(db: Database) -> bool:
    """Whether the ledger's index is already the contentless, session-scoped one (a
    ledger a recall build numbered 7 before the renumbering has it)."""
    sql = str(db.scalar("SELECT sql FROM sqlite_master WHERE name = 'history_fts'") or "")
    return "scope" in sql and "content=''" in sql


def scope_token(session_id: str) -> str:
    """The index token of a session (what `_SCOPE` writes), as an FTS5 string."""
    return '"s' + session_id.encode("utf-8").hex() + '"'


def scoped(session_id: str, fts_query: str) -> str:
    """`fts_query` restricted to one session's rows and to the text column."""
    return f"scope : {scope_token(session_id)} AND content : ({fts_query})"


_GROUP_BATCH = 64


@dataclass(frozen=True, slots=True)
class GroupHit:
    group_id: str
    score: float  # FTS5 bm25 rank of the group's best message: more negative = better


_QUOTED = re.compile(r'"((?:[^"]|"")*)"')
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
SNIPPET_WORDS = 24


def _query_words(fts_query: str) -> list[str]:
    quoted = [q.replace('""', '"') for q in _QUOTED.findall(fts_query)]
    return [w.lower() for q in (quoted or [fts_query]) for w in _TOKEN.findall(q)]


def _matches(word: str, terms: list[str]) -> bool:
    """A word matches a term when they share a stem-length prefix (the index stems with
    Porter; this is close enough to mark the hit in a snippet)."""
    low = word.lower()
    return any(low.startswith(t[: max(3, len(t) - 2)]) or (t.startswith(low) and len(low) >= 3) for t in terms)


def snippet(text: str, terms: list[str], size: int = SNIPPET_WORDS) -> str:
    """About `size` words of `text` around its first run of matching words, matches in
    [brackets], cuts marked with an ellipsis (what FTS5's snippet() gave)."""
    tokens = text.split()
    hits = {i for i, tok in enumerate(tokens) if any(_matches(w, terms) for w in _TOKEN.findall(tok))}
    if not tokens:
        return ""
    first = min(hits, default=0)
    start = max(0, min(first - size // 4, len(tokens) - size))
    shown = []
    for i in range(start, min(len(tokens), start + size)):
        shown.append(f"[{tokens[i]}]" if i in hits else tokens[i])
    return ("…" if start > 0 else "") + " ".join(shown) + ("…" if start + size < len(tokens) else "")


class HistorySearch:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._memo = bm25.Memo()
        # Sessions once counted at bm25.COUNT_CAP rows or more: not counted again (a
        # 2 ms walk each request). Should rows be deleted since, the search only reads
        # the collection the other way (newest_in_range instead of newest_by_term: the
        # same rows, at another cost), so a stale entry never changes a result.
        self._big: set[str] = set()
        self._lasting = LastingFacts()  # row lengths and owned ranges, kept across writes

    def groups(
        self, session_id: str, fts_query: str, limit: int, *, archived: bool = False, newest: int = 0
    ) -> list[GroupHit]:
        """The session's groups matching `fts_query`, best first.

        Visible groups by default; `archived=True` searches cold storage instead (the
        relevance strategy's dropped groups). `newest` > 0 bounds the work: only the
        session's `newest` most recent matching messages are ranked, by slop.store.bm25
        (an OR of quoted phrases, what the strategies send; any other FTS5 query is
        ranked by FTS5 over all its matches). A malformed query finds nothing."""
        if not fts_query.strip() or limit <= 0:
            return []
        status = f"m.status = '{Status.ARCHIVED}'" if archived else f"m.status NOT IN {HIDDEN}"
        terms = bm25.phrases(fts_query)
        if terms is None:
            return self._fts5_ranked(session_id, fts_query, limit, status)
        scope = f"scope : {scope_token(session_id)}"
        memo = self._fresh_memo()
        ranked = memo.ranking(
            (scope, frozenset(terms), newest), lambda: self._ranked(session_id, scope, terms, newest, memo)
        )
        return self._best_groups(ranked, status, limit, memo)

    def _fresh_memo(self) -> bm25.Memo:
        """The memo of the ledger's current state; after a write, with the lengths kept
        from earlier states (when the edit epoch stands and no transaction is open)."""
        stamp = self._db.change_stamp()
        if stamp == self._memo.stamp:
            return self._memo
        memo = self._memo.check(stamp)
        self._lasting.refresh(self._db, stamp)
        if self._lasting.keep:
            memo.lengths = self._lasting.lengths
        return memo

    def _owns(self, session_id: str, scope: str, low: int, last: int) -> bool:
        """Whether every row from `low` to `last` is the session's (see search_cache)."""
        return self._lasting.owns(
            self._db, session_id, low, last, lambda: bm25.owns_by_count(self._safe_tuples, scope, low, last)
        )

    def _ranked(
        self, session_id: str, scope: str, terms: list[str], newest: int, memo: bm25.Memo
    ) -> list[tuple[int, float]]:
        """(rowid, BM25 score) of the session's `newest` latest messages matching `terms`, best first."""
        base = memo.base_for(scope, terms, newest)
        small = self._session_rows(session_id, memo) < bm25.COUNT_CAP
        order = memo.session_order.get(session_id, "") if small else ""
        if base is not None:  # the expanded query of the same request: extend the first collection
            found = bm25.widened(self._safe_tuples, scope, base, terms, memo, order)
        elif small:
            found = bm25.newest_by_term(self._safe_tuples, scope, terms, newest, memo, order)
        else:
            last = int(self._db.scalar("SELECT max(id) FROM messages") or 0)
            owns = functools.partial(self._owns, session_id, scope)
            found = bm25.newest_in_range(self._safe_tuples, scope, terms, newest, memo, last, owns)
        memo.keep(scope, found)
        return bm25.scores(self._safe_tuples, scope, found, terms, memo)

    def _session_rows(self, session_id: str, memo: bm25.Memo) -> int:
        """The session's rows, counted up to bm25.COUNT_CAP (an index range, at most that
        long), and, below the cap, how to read its words (memo.session_order)."""
        if session_id in self._big:
            return bm25.COUNT_CAP
        if session_id not in memo.session_rows:
            row = self._db.tuples(
                "SELECT count(*), min(id), (SELECT max(id) FROM messages)"
                " FROM (SELECT id FROM messages WHERE session_id = ? LIMIT ?)",
                (session_id, bm25.COUNT_CAP),
            )[0]
            memo.session_rows[session_id] = int(row[0] or 0)
            # below the cap every row was read, so min(id) is the session's first row
            memo.session_order[session_id] = bm25.walk_order(int(row[1] or 0), int(row[2] or 0))
            if memo.session_rows[session_id] >= bm25.COUNT_CAP:
                self._big.add(session_id)
        return memo.session_rows[session_id]

    def _best_groups(self, ranked: list[tuple[int, float]], status: str, limit: int, memo: bm25.Memo) -> list[GroupHit]:
        """The groups of the best-scored rows, each at its best row's score (negated:
        lower is better, as FTS5's rank), looked up a batch at a time, as far down as
        `limit` groups need (rows looked up by an earlier search of the same ledger state
        are not looked up again)."""
        out: dict[str, float] = {}
        group_of = memo.groups.setdefault(status, {})  # rowid -> its group, None: hidden or ungrouped
        size = max(_GROUP_BATCH, 2 * limit)  # top rows are mostly of distinct groups
        for start in range(0, len(ranked), size):
            batch = ranked[start : start + size]
            unknown = [rowid for rowid, _ in batch if rowid not in group_of]
            if unknown:
                rows = self._db.tuples(
                    f"SELECT id, group_id FROM messages WHERE id IN (SELECT value FROM json_each(?))"
                    f" AND group_id IS NOT NULL AND {status.replace('m.', '')}",
                    (json.dumps(unknown),),
                )
                group_of.update(dict.fromkeys(unknown))
                group_of.update((int(r[0]), str(r[1])) for r in rows)
            for rowid, score in batch:
                gid = group_of[rowid]
                if gid is not None and gid not in out:
                    out[gid] = -score
                    if len(out) >= limit:
                        return [GroupHit(g, s) for g, s in out.items()]
        return [GroupHit(g, s) for g, s in out.items()]

    def _fts5_ranked(self, session_id: str, fts_query: str, limit: int, status: str) -> list[GroupHit]:
        """Any other FTS5 query (NEAR, prefixes, ...): FTS5's own BM25 over all the matches."""
        rows = self._safe_query(
            "SELECT m.group_id AS gid, MIN(f.rank) AS score FROM history_fts f CROSS JOIN messages m ON m.id = f.rowid"
            f" WHERE history_fts MATCH ? AND m.session_id = ? AND m.group_id IS NOT NULL AND {status}"
            " GROUP BY m.group_id ORDER BY score LIMIT ?",
            (scoped(session_id, fts_query), session_id, limit),
        )
        return [GroupHit(r["gid"], float(r["score"])) for r in rows]

    def messages(self, session_id: str, fts_query: str, limit: int) -> list[SearchHit]:
        """Messages of the session matching `fts_query`, best first, whatever their
        status (compacted, archived and dropped rows are found too, and say so)."""
        if not fts_query.strip() or limit <= 0:
            return []
        rows = self._safe_query(
            "SELECT m.id AS id, m.group_id AS gid, m.role AS role, m.status AS status, m.created_at AS created,"
            f" {_searchable('m.')} AS body, f.rank AS score"
            " FROM history_fts f CROSS JOIN messages m ON m.id = f.rowid"
            " WHERE history_fts MATCH ? AND m.session_id = ? ORDER BY f.rank LIMIT ?",
            (scoped(session_id, fts_query), session_id, limit),
        )
        return [
            SearchHit(
                r["id"],
                r["gid"],
                r["role"],
                r["status"],
                r["created"] or "",
                snippet(r["body"] or "", _query_words(fts_query)),
                float(r["score"]),
            )
            for r in rows
        ]

    def _safe_tuples(self, sql: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]:
        """Rows as plain tuples (the ranking reads thousands of them)."""
        return _finds_nothing_on_bad_query(self._db.tuples, sql, params)

    def _safe_query(self, sql: str, params: tuple[object, ...]) -> list[sqlite3.Row]:
        return _finds_nothing_on_bad_query(self._db.query, sql, params)


_Row = TypeVar("_Row")


def _finds_nothing_on_bad_query(
    fetch: Callable[[str, tuple[object, ...]], list[_Row]], sql: str, params: tuple[object, ...]
) -> list[_Row]:
    try:
        return fetch(sql, params)
    except StoreError as exc:  # an FTS5 query syntax error finds nothing; other errors stay errors
        if "fts5" in str(exc).lower():
            return []
        raise
