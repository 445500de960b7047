"""The ledger's edit epoch: a counter its own triggers raise whenever a committed row is
changed other than by slop's own bookkeeping (its status and token counts), or deleted,
by whichever process or tool (sqlite3 by hand included). What is kept from one request
to the next about committed rows (slop.store.row_cache, slop.store.search_cache) stays
valid while it stands: slop only appends rows, and their ids are never reused."""

from __future__ import annotations

from slop.errors import StoreError
from slop.store.db import Database

M009_EDIT_EPOCH = """
CREATE TABLE IF NOT EXISTS edit_epoch (n INTEGER NOT NULL);
INSERT INTO edit_epoch(n) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM edit_epoch);
CREATE TRIGGER IF NOT EXISTS edit_epoch_update AFTER UPDATE OF
    content, session_id, role, group_id, tool_call_id, parsing_strategy, created_at, reasoning, call_ids
    ON messages
BEGIN UPDATE edit_epoch SET n = n + 1; END;
CREATE TRIGGER IF NOT EXISTS edit_epoch_delete AFTER DELETE ON messages
BEGIN UPDATE edit_epoch SET n = n + 1; END;
"""


def edit_epoch(db: Database) -> int | None:
    """The ledger's edit epoch; None for a ledger without one (not migrated)."""
    try:
        return int(db.scalar("SELECT n FROM edit_epoch") or 0)
    except StoreError:
        return None
