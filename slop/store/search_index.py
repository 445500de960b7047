"""The history index's schema: what each message contributes to it, under which key.

An FTS5 table, *contentless* (``content=''``): it stores only the inverted index, and
texts are read back from `messages`. Triggers feed it the searchable form of each row as
rows are inserted, deleted or edited, whoever writes them.

Since migration 10 a row's key in the index (its FTS5 rowid) is not the message id but
``session number << 40 | message id``. FTS5 keeps every word's postings sorted by that
key, so a session's rows of a word lie side by side and a search scoped to a session is
a rowid range (``rowid BETWEEN lo AND hi``): FTS5 seeks to it and reads the session's own
postings, however its rows are spread over the ledger. The session token of migration 8
(an AND with it) walked the word's whole doclist instead: 0.44 ms a common word in a
1M-message ledger, 0.04 ms as a range (docs/benchmarks.md, "fifth pass").

Session numbers are kept in `search_scopes`, one per session id ever indexed, never
reused. Message ids stay below 2**40 (a trillion rows), so the key gives both back."""

from __future__ import annotations

from dataclasses import dataclass

from slop.store.db import Database

ID_BITS = 40
ID_MASK = (1 << ID_BITS) - 1  # a key's message id: key & ID_MASK
TOKENIZER = "porter unicode61 remove_diacritics 2"

M002_HISTORY_SEARCH = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS history_fts USING fts5(
    content,
    content='messages',
    content_rowid='id',
    tokenize='{TOKENIZER}'
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
# Migration 8's session token: each row carried its session as one word of a second column.
_SCOPE = "'s' || hex({row}session_id)"


def searchable(row: str) -> str:
    """The SQL of a row's searchable text; `row` is the row's prefix (`new.`, `m.`, ``)."""
    return _SEARCHABLE.format(row=row)


def _key(row: str) -> str:
    number = f"(SELECT n FROM search_scopes WHERE session_id = {row}session_id)"
    return f"(({number} << {ID_BITS}) | {row}id)"


# (An external-content view could compute the searchable form, but SQLite 3.40's FTS5
# cannot read a view that calls the JSON functions.)
M008_SCOPED_SEARCH = f"""
DROP TRIGGER IF EXISTS history_fts_insert;
DROP TRIGGER IF EXISTS history_fts_delete;
DROP TRIGGER IF EXISTS history_fts_update;
DROP TABLE IF EXISTS history_fts;
CREATE VIRTUAL TABLE history_fts USING fts5(content, scope, content='', tokenize='{TOKENIZER}');
INSERT INTO history_fts(history_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)');
CREATE TRIGGER history_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO history_fts(rowid, content, scope)
    VALUES (new.id, {searchable("new.")}, {_SCOPE.format(row="new.")});
END;
CREATE TRIGGER history_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO history_fts(history_fts, rowid, content, scope)
    VALUES ('delete', old.id, {searchable("old.")}, {_SCOPE.format(row="old.")});
END;
CREATE TRIGGER history_fts_update AFTER UPDATE OF content, session_id, role ON messages BEGIN
    INSERT INTO history_fts(history_fts, rowid, content, scope)
    VALUES ('delete', old.id, {searchable("old.")}, {_SCOPE.format(row="old.")});
    INSERT INTO history_fts(rowid, content, scope)
    VALUES (new.id, {searchable("new.")}, {_SCOPE.format(row="new.")});
END;
INSERT INTO history_fts(rowid, content, scope)
    SELECT id, {searchable("")}, {_SCOPE.format(row="")} FROM messages;
"""

INSERT_TRIGGER = f"""CREATE TRIGGER history_fts_insert AFTER INSERT ON messages BEGIN
    INSERT OR IGNORE INTO search_scopes(session_id) VALUES (new.session_id);
    INSERT INTO history_fts(rowid, content) VALUES ({_key("new.")}, {searchable("new.")});
END"""

M010_KEYED_SEARCH = f"""
DROP TRIGGER IF EXISTS history_fts_insert;
DROP TRIGGER IF EXISTS history_fts_delete;
DROP TRIGGER IF EXISTS history_fts_update;
DROP TABLE IF EXISTS history_fts;
CREATE TABLE IF NOT EXISTS search_scopes (n INTEGER PRIMARY KEY, session_id TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE history_fts USING fts5(content, content='', tokenize='{TOKENIZER}');
{INSERT_TRIGGER};
CREATE TRIGGER history_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO history_fts(history_fts, rowid, content) VALUES ('delete', {_key("old.")}, {searchable("old.")});
END;
CREATE TRIGGER history_fts_update AFTER UPDATE OF content, session_id, role ON messages BEGIN
    INSERT INTO history_fts(history_fts, rowid, content) VALUES ('delete', {_key("old.")}, {searchable("old.")});
    INSERT OR IGNORE INTO search_scopes(session_id) VALUES (new.session_id);
    INSERT INTO history_fts(rowid, content) VALUES ({_key("new.")}, {searchable("new.")});
END;
-- for query_db: the index with message ids (`WHERE query MATCH 'word' ORDER BY rank`)
CREATE VIEW IF NOT EXISTS history_search AS
    SELECT rowid & {ID_MASK} AS message_id, rank, history_fts AS query FROM history_fts;
"""


def has_scoped_index(db: Database) -> bool:
    """Whether the ledger's index is contentless and scoped to sessions (migration 8's
    token or migration 10's keys; a ledger a recall build numbered 7 has the first)."""
    sql = str(db.scalar("SELECT sql FROM sqlite_master WHERE name = 'history_fts'") or "")
    return "content=''" in sql and ("scope" in sql or has_keyed_index(db))


def has_keyed_index(db: Database) -> bool:
    """Whether the index is migration 10's, keyed by session number and message id."""
    return bool(db.scalar("SELECT 1 FROM sqlite_master WHERE name = 'search_scopes'")) and "scope" not in str(
        db.scalar("SELECT sql FROM sqlite_master WHERE name = 'history_fts'") or ""
    )


def m010_keyed_search(db: Database) -> None:
    """The index keyed by session (see the module's docstring), built once: a ledger met
    again half way (a raced upgrade) is left as it is."""
    if has_keyed_index(db):
        return
    db.executescript_in_transaction(M010_KEYED_SEARCH)
    index_rows(db, since=0)


def index_rows(db: Database, since: int) -> None:
    """Index every message with an id above `since`, in key order: FTS5 flushes its
    pending postings whenever a key is lower than the one before it, so rows of many
    sessions inserted as they come would leave the index in thousands of pieces. For a
    bulk load with the insert trigger dropped (migration 10; benchmarks)."""
    db.execute(
        "INSERT OR IGNORE INTO search_scopes(session_id)"
        " SELECT session_id FROM messages WHERE id > ? GROUP BY session_id ORDER BY min(id)",
        (since,),
    )
    db.execute(
        f"INSERT INTO history_fts(rowid, content) SELECT {_key('messages.')}, {searchable('messages.')} FROM messages"
        " WHERE id > ? ORDER BY 1",
        (since,),
    )


@dataclass(frozen=True, slots=True)
class Scope:
    """One session's part of the index: the keys `base | message id`."""

    session_id: str
    base: int

    @property
    def last_key(self) -> int:
        return self.base | ID_MASK


def scope_of(db: Database, session_id: str) -> Scope | None:
    """The session's scope; None for a session that never had a row indexed."""
    number = db.scalar("SELECT n FROM search_scopes WHERE session_id = ?", (session_id,))
    return None if number is None else Scope(session_id, int(number) << ID_BITS)
