"""Numbered schema migrations, tracked in PRAGMA user_version, each in one transaction.

Safe for several processes opening one ledger at once (see `migrate`).

Tables stay compatible with std::slop's ledger so its SQL works as written
(`SELECT content FROM messages WHERE id=<ID>`)."""

from __future__ import annotations

from collections.abc import Callable

from slop.store.archive import M003_CONTEXT_ARCHIVE
from slop.store.db import Database
from slop.store.edits import M009_EDIT_EPOCH
from slop.store.repair import m005_integrity
from slop.store.search_index import M002_HISTORY_SEARCH, M008_SCOPED_SEARCH, has_scoped_index, m010_keyed_search

# A migration is a script of idempotent statements (CREATE ... IF NOT EXISTS) or a
# callable that inspects the schema before it changes it.
Migration = str | Callable[[Database], None]

M001_INITIAL = """
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL CHECK(role IN ('system', 'user', 'assistant', 'tool')),
    content TEXT NOT NULL DEFAULT '',
    tool_call_id TEXT,
    status TEXT NOT NULL DEFAULT 'completed',
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
    group_id TEXT,
    parsing_strategy TEXT,
    tokens INTEGER DEFAULT 0,
    reasoning TEXT,
    -- the row's own size, counted once on insert (`tokens` keeps std::slop's meaning:
    -- for assistant rows, prompt + completion of the call that produced them)
    content_tokens INTEGER DEFAULT 0
);
CREATE INDEX IF NOT EXISTS idx_messages_session_group ON messages(session_id, group_id, status);
CREATE INDEX IF NOT EXISTS idx_messages_group ON messages(group_id);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    name TEXT,
    context_size INTEGER DEFAULT 5,
    scratchpad TEXT DEFAULT '',
    active_skills TEXT DEFAULT '[]',
    settings TEXT DEFAULT '{}',
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP
);
-- One row per STATE a group produced: the latest row is the anchor, and deleting a
-- group's rows brings the previous STATE back exactly.
CREATE TABLE IF NOT EXISTS session_state (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    group_id TEXT,
    state_blob TEXT NOT NULL,
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX IF NOT EXISTS idx_state_session ON session_state(session_id, id);
-- The scratchpad as it was before a group first changed it, so /undo can restore it.
CREATE TABLE IF NOT EXISTS scratchpad_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    group_id TEXT NOT NULL,
    previous TEXT NOT NULL,
    UNIQUE(session_id, group_id)
);
-- The status a row had before /context drop (or compaction) hid it, for an exact restore.
CREATE TABLE IF NOT EXISTS hidden_status (
    message_id INTEGER PRIMARY KEY,
    status TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS usage (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT,
    model TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    total_tokens INTEGER,
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
    group_id TEXT
);
CREATE INDEX IF NOT EXISTS idx_usage_session ON usage(session_id);
CREATE TABLE IF NOT EXISTS llm_memos (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    content TEXT NOT NULL,
    semantic_tags TEXT NOT NULL,
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS skills (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT UNIQUE,
    description TEXT,
    system_prompt_patch TEXT,
    activation_count INTEGER DEFAULT 0
);
CREATE TABLE IF NOT EXISTS tools (
    name TEXT PRIMARY KEY,
    description TEXT,
    json_schema TEXT,
    is_enabled INTEGER DEFAULT 1,
    call_count INTEGER DEFAULT 0
);
"""


# The call ids a tool-call row issued, written when it is stored, so pair integrity on
# every model call does not have to parse each row's provider JSON again. A callable:
# a ledger left half-migrated by an older slop may already have the column.
def m004_call_ids(db: Database) -> None:
    add_column_if_missing(db, "messages", "call_ids", "TEXT")


# Files a turn changed, with their content before and after it, so /undo can put them back.
M006_FILE_CHECKPOINTS = """
CREATE TABLE IF NOT EXISTS file_checkpoints (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    group_id TEXT NOT NULL,
    path TEXT NOT NULL,
    before BLOB,
    after BLOB,
    note TEXT NOT NULL DEFAULT '',
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (group_id, path)
);
CREATE INDEX IF NOT EXISTS file_checkpoints_group ON file_checkpoints (group_id);
"""


def m007_usage_cache(db: Database) -> None:
    """What the provider billed at the cached-input price, and the reasoning part of the
    output, per call. A callable so a ledger that already has a column is left alone."""
    add_column_if_missing(db, "usage", "cached_tokens", "INTEGER DEFAULT 0")
    add_column_if_missing(db, "usage", "reasoning_tokens", "INTEGER DEFAULT 0")


def m008_scoped_search(db: Database) -> None:
    """The contentless, session-scoped search index (slop.store.search). Two builds
    numbered their own step 7 (the usage columns; this index), so a ledger at version 7
    may hold either: this step adds whichever is missing, and rebuilding the index only
    when it is not already the scoped one keeps a big ledger from being reindexed twice."""
    m007_usage_cache(db)
    if not has_scoped_index(db):
        db.executescript_in_transaction(M008_SCOPED_SEARCH)


MIGRATIONS: tuple[Migration, ...] = (
    M001_INITIAL,
    M002_HISTORY_SEARCH,
    M003_CONTEXT_ARCHIVE,
    m004_call_ids,
    m005_integrity,
    M006_FILE_CHECKPOINTS,
    m007_usage_cache,
    m008_scoped_search,
    M009_EDIT_EPOCH,
    m010_keyed_search,
)


def schema_version(db: Database) -> int:
    return int(db.scalar("PRAGMA user_version") or 0)


# Steps that index every message again: ~30 s at a million messages, so the user is told.
REINDEXING: tuple[Migration, ...] = (m008_scoped_search, m010_keyed_search)
NOTICE_FROM_ROWS = 20_000


def migrate(
    db: Database, migrations: tuple[Migration, ...] = MIGRATIONS, notice: Callable[[str], None] | None = None
) -> int:
    """Apply every migration newer than the file's user_version. Returns the version.

    Several slop processes may open a fresh ledger at once: each migration runs inside
    BEGIN IMMEDIATE and re-reads user_version there, so exactly one process applies it
    and the others see it done. The version only ever goes up (a ledger written by a
    newer slop keeps its number), and every step is safe to meet half-applied.
    `notice` is told, before a step that reindexes a big ledger, what it is waiting for."""
    if schema_version(db) >= len(migrations):
        return schema_version(db)  # the common case: no write lock taken
    for number, step in enumerate(migrations, start=1):
        with db.transaction():
            if schema_version(db) >= number:
                continue
            if notice is not None and step in REINDEXING:
                _tell(db, notice)
            if isinstance(step, str):
                db.executescript_in_transaction(step)
            else:
                step(db)
            db.execute(f"PRAGMA user_version={number}")
    return schema_version(db)


def _tell(db: Database, notice: Callable[[str], None]) -> None:
    rows = int(db.scalar("SELECT COALESCE(max(id), 0) FROM messages") or 0)
    if rows >= NOTICE_FROM_ROWS:
        notice(f"slop: rebuilding the search index of about {rows:,} messages, once, after an upgrade ...")


def add_column_if_missing(db: Database, table: str, column: str, declaration: str) -> None:
    """ALTER TABLE ... ADD COLUMN, unless a previous (interrupted or raced) run added it."""
    if column not in {row[1] for row in db.query(f"PRAGMA table_info({table})")}:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
