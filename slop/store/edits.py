"""The ledger's edit epoch: a counter its own triggers raise whenever a committed row is
changed other than by slop's own bookkeeping (its status and token counts), or deleted,
by whichever process or tool (sqlite3 by hand included). What is kept from one request
to the next about committed rows (slop.store.row_cache, slop.store.search_cache) stays
valid while it stands: slop only appends rows, and their ids are never reused."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(slots=True)
class EditWatch:
    """Whether what a reader kept about committed rows still holds, checked once per
    ledger state: it does not once the edit epoch moved (or the ledger has none), and
    what is read while a transaction is open may not be kept (`keep`)."""

    stamp: tuple[int, int] = (-1, -1)
    epoch: int | None = None
    keep: bool = False

    def moved(self, db: Database, stamp: tuple[int, int] | None = None) -> bool:
        """Look at the ledger's state (`stamp`: its change stamp, when the caller read it
        already); True when what was kept must be forgotten."""
        stamp = stamp or db.change_stamp()
        if stamp == self.stamp:
            return False
        self.stamp = stamp
        epoch = edit_epoch(db)
        void = epoch is None or epoch != self.epoch
        self.epoch = epoch
        self.keep = epoch is not None and not db.in_transaction
        return void
