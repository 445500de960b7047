"""Ledgers whose history index is in many pieces, as turn-by-turn writing leaves it: rows
committed a few at a time (FTS5 writes a segment per transaction), over several sessions."""

from __future__ import annotations

import random
import sqlite3

from slop.store import Store


def vocabulary(seed: int = 1, size: int = 8000) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 9))) for _ in range(size)]


def write_rows(path: str, rows: int, *, per_commit: int = 3, words: int = 40, seed: int = 1, sessions: int = 5) -> None:
    """`rows` user rows of `words` words each (a quarter of them from the vocabulary's
    first 200: words every session has), `per_commit` to a transaction, the sessions
    taking turns (each session's rows scattered over the ledger)."""
    Store.open(path).close()  # the ledger and its index, migrated
    rng = random.Random(seed)
    vocab = vocabulary()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        first = int(conn.execute("SELECT COALESCE(max(id), 0) FROM messages").fetchone()[0])
        for start in range(0, rows, per_commit):
            conn.execute("BEGIN IMMEDIATE")
            for i in range(start, min(rows, start + per_commit)):
                text = " ".join(rng.choices(vocab[:200], k=words // 4) + rng.choices(vocab, k=words - words // 4))
                conn.execute(
                    "INSERT INTO messages(session_id, role, content, status, group_id, parsing_strategy)"
                    " VALUES (?, 'user', ?, 'completed', ?, 'openai')",
                    (f"s{i % sessions}", text, str(10**18 + first + i)),
                )
            conn.execute("COMMIT")
    finally:
        conn.close()


def segment_ids(path: str) -> int:
    """The index's segments as FTS5's own b-tree table lists them (every segment has rows there)."""
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(DISTINCT segid) FROM history_fts_idx").fetchone()[0])
    finally:
        conn.close()


def integrity_ok(path: str) -> bool:
    """FTS5's own check of its index against itself (a contentless index has no text to compare)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("INSERT INTO history_fts(history_fts, rank) VALUES ('integrity-check', 0)")
        return True
    except sqlite3.DatabaseError:
        return False
    finally:
        conn.close()
