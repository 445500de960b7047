"""The SQLite ledger. Knows records; nothing of providers, tools or the terminal."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from slop.errors import SessionBusy
from slop.records import SessionDefaults, Status
from slop.store.archive import ContextArchive
from slop.store.catalog import Catalog
from slop.store.checkpoints import Checkpoints
from slop.store.context_source import StoreHistory
from slop.store.db import Database
from slop.store.memos import MEMO_SCHEMA, Memos, add_origin_columns
from slop.store.messages import Messages
from slop.store.migrations import migrate
from slop.store.repair import close_unanswered_calls, count_unanswered_calls
from slop.store.search import HistorySearch
from slop.store.sessions import Sessions
from slop.store.turnlock import TurnLocks
from slop.store.usage import UsageLog
from slop.tokenestimate import estimate

__all__ = ["Store", "UndoResult", "open_memo_store"]


@dataclass(frozen=True, slots=True)
class UndoResult:
    group_id: str
    messages: int
    scratchpad_restored: bool
    scratchpad: str = ""  # what happened to it: see Sessions.restore_scratchpad_before


class Store:
    """The project ledger, and its one front: every reader and writer outside the
    package goes through these parts (messages, sessions, usage, archive, search,
    history, catalog, checkpoints, turn locks) or the group operations below."""

    def __init__(
        self, db: Database, count_tokens: Callable[[str], int] = estimate, defaults: SessionDefaults | None = None
    ) -> None:
        self.db = db
        self.path = db.path
        window = (defaults or SessionDefaults()).context_size
        self.messages = Messages(db, count_tokens, window)
        self.sessions = Sessions(db, defaults)
        self.usage = UsageLog(db, window)
        self.catalog = Catalog(db)
        self.checkpoints = Checkpoints(db)
        self.turn_locks = TurnLocks(db)
        self.archive = ContextArchive(db, self.messages)  # also the context log
        self.search = HistorySearch(db)
        # What context strategies read and edit: built once, here, over the parts above.
        self.history = StoreHistory(db, self.messages, self.search, self.archive)

    @classmethod
    def open(
        cls,
        path: str,
        count_tokens: Callable[[str], int] = estimate,
        defaults: SessionDefaults | None = None,
        notice: Callable[[str], None] | None = None,
    ) -> Store:
        """`defaults`: the session settings of the config files (window, mode, budget);
        `notice`: told when an upgrade of the ledger will take a while."""
        db = Database(path)
        migrate(db, notice=notice)
        store = cls(db, count_tokens, defaults)
        store.catalog.install_default_skills()
        return store

    def close(self) -> None:
        self.db.close()

    def close_unanswered_calls(self, session_id: str) -> int:
        """Close the session's tool calls a crashed process left without results (call
        it holding the session's turn lock). Returns how many results were written."""
        if count_unanswered_calls(self.db, session_id) == 0:
            return 0  # the usual case, without taking the write lock
        return close_unanswered_calls(self.db, session_id)

    def recover_session(self, session_id: str) -> int:
        """At start-up: close unanswered calls unless another live slop is running a
        turn in the session (its calls are still running, not dangling)."""
        if count_unanswered_calls(self.db, session_id) == 0 or self.turn_locks.holder(session_id) is not None:
            return 0  # nothing to do (the usual case: no write at start-up), or a live turn's calls
        try:
            with self.turn_locks.hold(session_id):
                return self.close_unanswered_calls(session_id)
        except SessionBusy:
            return 0  # a turn started meanwhile; it closes them itself

    def remove_group(self, session_id: str, group_id: str, *, event: str = "remove") -> UndoResult:
        """Delete a group of this session and roll back what it changed: its STATE
        rows and its scratchpad edits (unless changed again later). One transaction,
        logged in the context log as `event` (remove or undo)."""
        with self.db.transaction():
            scratchpad = self.sessions.restore_scratchpad_before(session_id, group_id)
            count = self.messages.delete_group(session_id, group_id)
            self.checkpoints.forget(group_id)
            detail = f"{count} message(s) deleted" + (f"; scratchpad {scratchpad}" if scratchpad else "")
            self.archive.log(session_id, event, detail, group_id)
        return UndoResult(group_id, count, scratchpad == "restored", scratchpad)

    def undo(self, session_id: str) -> UndoResult | None:
        gid = self.messages.last_group_id(session_id)
        return None if gid is None else self.remove_group(session_id, gid, event="undo")

    def drop_group(self, session_id: str, group_id: str) -> int:
        with self.db.transaction():
            count = self.messages.set_group_status(session_id, group_id, Status.DROPPED)
            if count:
                self.archive.log(session_id, "drop", f"{count} message(s) taken out of context by you", group_id)
            return count

    def restore_group(self, session_id: str, group_id: str) -> int:
        with self.db.transaction():
            count = self.messages.set_group_status(session_id, group_id, Status.COMPLETED, only_from=Status.DROPPED)
            if count:
                self.archive.log(session_id, "restore", f"{count} message(s) back in context", group_id)
            return count

    def log_event(self, session_id: str, event: str, detail: str, group_id: str | None = None) -> None:
        """A manual context change (window, mode, budget) in the context log."""
        self.archive.log(session_id, event, detail, group_id)


def open_memo_store(path: str) -> Memos:
    """The user-level memo database (shared across projects)."""
    db = Database(path)
    with db.transaction():
        db.executescript_in_transaction(MEMO_SCHEMA)
        add_origin_columns(db)
    return Memos(db)
