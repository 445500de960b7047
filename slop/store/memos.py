"""Memos: long-lived knowledge tagged for retrieval, kept in a user-level database so
they follow the user across sessions and projects."""

from __future__ import annotations

import json
import re

from slop.records import Memo
from slop.stopwords import STOP_WORDS
from slop.store.db import Database

MEMO_SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_memos (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    content TEXT NOT NULL,
    semantic_tags TEXT NOT NULL,
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP
);
"""

# Columns the user-level memo database adds to std::slop's schema: who saved the memo,
# in which project, and whether the user has been told it entered a prompt.
ORIGIN_COLUMNS = {
    "source": "TEXT NOT NULL DEFAULT 'user'",
    "project": "TEXT NOT NULL DEFAULT ''",
    "announced": "INTEGER NOT NULL DEFAULT 0",
}
MODEL = "model"

# Sentence and markdown punctuation splits words: "how do I run the tests?" must find a
# memo tagged `tests`, and `pytest` in backticks one tagged `pytest`.
_SPLIT = re.compile(r"[\s.,;:!?()\[\]{}<>\"'`*#\-]+")


def extract_keywords(text: str) -> list[str]:
    """Lower-cased words longer than 3 letters that are not stop words, first occurrence first."""
    seen: dict[str, None] = {}
    for word in _SPLIT.split(text.lower()):
        word = word.strip()
        if len(word) > 3 and word not in STOP_WORDS:
            seen.setdefault(word, None)
    return list(seen)


def normalise_tags(tags: list[str]) -> list[str]:
    out: dict[str, None] = {}
    for tag in tags:
        clean = tag.strip().lower().replace(" ", "-")
        if clean:
            out.setdefault(clean, None)
    return list(out)


def tag_matches(tag: str, wanted: str) -> bool:
    """A memo tag matches a keyword exactly or as one part of a compound tag (arch-decision)."""
    return tag == wanted or wanted in tag.split("-")


def add_origin_columns(db: Database) -> None:
    """Add the origin columns to an llm_memos table that lacks them (inside a transaction)."""
    present = {row["name"] for row in db.query("PRAGMA table_info(llm_memos)")}
    for name, decl in ORIGIN_COLUMNS.items():
        if name not in present:
            db.execute(f"ALTER TABLE llm_memos ADD COLUMN {name} {decl}")


class Memos:
    def __init__(self, db: Database) -> None:
        self._db = db
        # the project ledger keeps std::slop's plain table; only the user-level store tracks origins
        columns = {row["name"] for row in db.query("PRAGMA table_info(llm_memos)")}
        self.tracks_origin = set(ORIGIN_COLUMNS) <= columns

    @property
    def path(self) -> str:
        """The database file the memos live in (query_db attaches it read-only)."""
        return self._db.path

    def add(self, content: str, tags: list[str], *, source: str = "user", project: str = "") -> int:
        encoded = json.dumps(normalise_tags(tags))
        with self._db.transaction():
            if self.tracks_origin:
                cur = self._db.execute(
                    "INSERT INTO llm_memos(content, semantic_tags, source, project) VALUES (?, ?, ?, ?)",
                    (content, encoded, source, project),
                )
            else:
                cur = self._db.execute(
                    "INSERT INTO llm_memos(content, semantic_tags) VALUES (?, ?)", (content, encoded)
                )
            return int(cur.lastrowid or 0)

    def take_unannounced(self, memos: list[Memo]) -> list[Memo]:
        """The model-saved memos among `memos` the user has not been told about yet, marked
        as told in the same transaction (so two slop processes announce a memo once)."""
        candidates = tuple(m.id for m in memos if m.source == MODEL)
        if not self.tracks_origin or not candidates or not self._unannounced(candidates):
            return []  # the common case: a read, no write transaction
        with self._db.transaction():
            fresh = self._unannounced(candidates)
            if fresh:
                marks = ",".join("?" * len(fresh))
                self._db.execute(f"UPDATE llm_memos SET announced=1 WHERE id IN ({marks})", tuple(fresh))
        return [m for m in memos if m.id in fresh]

    def _unannounced(self, ids: tuple[int, ...]) -> set[int]:
        marks = ",".join("?" * len(ids))
        rows = self._db.query(f"SELECT id FROM llm_memos WHERE announced=0 AND id IN ({marks})", ids)
        return {int(row[0]) for row in rows}

    def update(self, memo_id: int, content: str, tags: list[str]) -> bool:
        with self._db.transaction():
            cur = self._db.execute(
                "UPDATE llm_memos SET content=?, semantic_tags=? WHERE id=?",
                (content, json.dumps(normalise_tags(tags)), memo_id),
            )
            return cur.rowcount > 0

    def remove(self, memo_id: int) -> bool:
        with self._db.transaction():
            return self._db.execute("DELETE FROM llm_memos WHERE id=?", (memo_id,)).rowcount > 0

    def get(self, memo_id: int) -> Memo | None:
        row = self._db.execute("SELECT * FROM llm_memos WHERE id=?", (memo_id,)).fetchone()
        return None if row is None else _to_memo(row)

    def all(self) -> list[Memo]:
        return [_to_memo(r) for r in self._db.query("SELECT * FROM llm_memos ORDER BY id")]

    def find(self, queries: list[str], limit: int = 5) -> list[Memo]:
        """Memos whose tags match the keywords of `queries`, best first.

        Ranked by how many keywords matched, then by recency. Tags are parsed in
        Python, so one memo with broken tags cannot disable retrieval for all."""
        wanted: dict[str, None] = {}
        for item in queries:
            for word in extract_keywords(item):
                wanted.setdefault(word, None)
            whole = item.strip().lower()
            if len(whole) > 2 and whole not in STOP_WORDS:
                wanted.setdefault(whole, None)
        if not wanted:
            return []
        scored: list[tuple[int, int, Memo]] = []
        for memo in self.all():
            hits = sum(1 for w in wanted if any(tag_matches(t, w) for t in memo.tags))
            if hits:
                scored.append((hits, memo.id, memo))
        scored.sort(key=lambda item: (-item[0], -item[1]))
        return [memo for _, _, memo in scored[:limit]]


def _to_memo(row: object) -> Memo:
    try:
        tags = json.loads(row["semantic_tags"])  # type: ignore[index]
        tags = [str(t) for t in tags] if isinstance(tags, list) else [str(tags)]
    except (json.JSONDecodeError, TypeError):
        tags = [t for t in str(row["semantic_tags"]).split(",") if t]  # type: ignore[index]
    keys = row.keys()  # type: ignore[attr-defined]
    source = str(row["source"]) if "source" in keys else "user"  # type: ignore[index]
    project = str(row["project"]) if "project" in keys else ""  # type: ignore[index]
    return Memo(
        int(row["id"]),  # type: ignore[index]
        row["content"],  # type: ignore[index]
        tuple(normalise_tags(tags)),
        row["created_at"] or "",  # type: ignore[index]
        source,
        project,
    )
