"""Full-text search over the ledger: an FTS5 index of every message, BM25-ranked.

The index (slop.store.search_index) is contentless and keyed by session: a search of one
session reads a range of keys, its own rows only. Documents are messages; a group's rank
is the rank of its best message (lower is better): BM25 computed by slop.store.bm25 over
the session's newest matches for the strategies' searches, FTS5's ``rank`` for
search_history and other query forms.

Every query goes through the index (`MATCH`), so its cost follows the number of
matching rows, not the length of the history (see perf_anchors.md §3b). The joins are
CROSS JOINs on purpose: they make SQLite drive the query from the FTS index; left to
itself it walks the session's messages and runs the MATCH once per row (30x slower)."""

from __future__ import annotations

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
from slop.store.search_index import ID_MASK, Scope, scope_of, searchable
from slop.store.sql import HIDDEN

_GROUP_BATCH = 64
_JOIN = f"m.id = (f.rowid & {ID_MASK})"  # an index key's message id


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
        self._lasting = LastingFacts()  # row lengths and sessions' newest rows, kept across writes
        self._scopes: dict[str, Scope] = {}  # a committed session number never changes

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
        scope = self._scope(session_id)
        if scope is None:
            return []
        terms = bm25.phrases(fts_query)
        if terms is None:
            return self._fts5_ranked(scope, fts_query, limit, status)
        memo = self._fresh_memo()
        ranked = memo.ranking((session_id, frozenset(terms), newest), lambda: self._ranked(scope, terms, newest, memo))
        return self._best_groups(ranked, status, limit, memo)

    def _scope(self, session_id: str) -> Scope | None:
        """The session's keys in the index; None while it has no row indexed. Kept once
        read outside a transaction: a number given inside one may be rolled back and
        given to another session."""
        scope = self._scopes.get(session_id)
        if scope is None:
            scope = scope_of(self._db, session_id)
            if scope is not None and not self._db.in_transaction:
                self._scopes[session_id] = scope
        return scope

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

    def _ranked(self, scope: Scope, terms: list[str], newest: int, memo: bm25.Memo) -> list[tuple[int, float]]:
        """(id, BM25 score) of the session's `newest` latest messages matching `terms`, best first."""
        base = memo.base_for(scope.session_id, terms, newest)
        rows = self._rows(scope, memo)
        if base is not None:  # the expanded query of the same request: extend the first collection
            found = bm25.widened(self._safe_tuples, scope, base, terms, memo)
        elif rows.big:
            found = bm25.newest_in_range(self._safe_tuples, scope, terms, newest, memo, rows)
        else:
            found = bm25.newest_by_term(self._safe_tuples, scope, terms, newest, memo)
        memo.keep(scope.session_id, found)
        return bm25.scores(self._safe_tuples, scope, found, terms, memo, rows)

    def _rows(self, scope: Scope, memo: bm25.Memo) -> bm25.Rows:
        """The session's newest rows, read once per ledger state (kept across writes when
        they may be: slop.store.search_cache)."""
        rows = memo.rows.get(scope.session_id)
        if rows is None:
            rows = bm25.Rows(self._lasting.newest_rows(self._db, scope, bm25.COUNT_CAP))
            memo.rows[scope.session_id] = rows
        return rows

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

    def _fts5_ranked(self, scope: Scope, fts_query: str, limit: int, status: str) -> list[GroupHit]:
        """Any other FTS5 query (NEAR, prefixes, ...): FTS5's own BM25 over all the matches."""
        rows = self._safe_query(
            f"SELECT m.group_id AS gid, MIN(f.rank) AS score FROM history_fts f CROSS JOIN messages m ON {_JOIN}"
            f" WHERE history_fts MATCH ? AND f.rowid BETWEEN ? AND ? AND m.group_id IS NOT NULL AND {status}"
            " GROUP BY m.group_id ORDER BY score LIMIT ?",
            (fts_query, scope.base, scope.last_key, limit),
        )
        return [GroupHit(r["gid"], float(r["score"])) for r in rows]

    def messages(self, session_id: str, fts_query: str, limit: int) -> list[SearchHit]:
        """Messages of the session matching `fts_query`, best first, whatever their
        status (compacted, archived and dropped rows are found too, and say so)."""
        scope = self._scope(session_id)
        if not fts_query.strip() or limit <= 0 or scope is None:
            return []
        rows = self._safe_query(
            "SELECT m.id AS id, m.group_id AS gid, m.role AS role, m.status AS status, m.created_at AS created,"
            f" {searchable('m.')} AS body, f.rank AS score FROM history_fts f CROSS JOIN messages m ON {_JOIN}"
            " WHERE history_fts MATCH ? AND f.rowid BETWEEN ? AND ? ORDER BY f.rank LIMIT ?",
            (fts_query, scope.base, scope.last_key, limit),
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
        if _query_error(str(exc), str(params[0]) if params else ""):
            return []
        raise


_NO_COLUMN = re.compile(r"no such column: (\S+)")


def _query_error(message: str, fts_query: str) -> bool:
    """Whether SQLite's error is about the FTS5 query (the first parameter), not the
    statement: its syntax, or a `word:` FTS5 took for a column filter ("src:main")."""
    low = message.lower()
    if "fts5" in low or "unterminated string" in low or "unknown special query" in low:
        return True
    column = _NO_COLUMN.search(message)
    return column is not None and column.group(1).lower() + ":" in fts_query.lower().replace(" ", "")
