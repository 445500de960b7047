"""What the history search keeps from one request to the next.

Every request follows a write (the user's prompt, at least), and the search's per-request
memo (slop.store.bm25.Memo) is emptied by any write. Two facts it reads each time do not
change when rows are appended, only when committed rows are edited or deleted:

- a row's length in the index (its token count, BM25's document length), fixed once the
  row is committed, since ids are never reused (AUTOINCREMENT);
- a session's newest rows (their ids; BM25's N and the spans of a big session are read
  from them): appends only add to them, and the rows written since are one short range
  of the session's keys (a walk of COUNT_CAP keys costs ~1 ms, twice a request).

Both stay valid while the ledger's edit epoch stands (slop.store.edits: raised on any
edit of a committed row other than its status and token counts, and on any deletion,
from whichever process).
Nothing read inside an open transaction is kept: its rows may yet be rolled back and
their ids reused."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

from slop.store.db import Database
from slop.store.edits import EditWatch
from slop.store.search_index import Scope

LENGTHS_KEPT = 200_000  # rows (about 20 MB); past it the lengths start afresh
SESSIONS_KEPT = 64  # sessions' newest rows (at most 160 kB each); past it they start afresh


@dataclass(slots=True)
class LastingFacts:
    """Row lengths and sessions' newest rows, valid while the edit epoch stands."""

    watch: EditWatch = field(default_factory=EditWatch)
    lengths: dict[int, int] = field(default_factory=dict)
    rows: dict[str, array[int]] = field(default_factory=dict)  # session -> its newest ids, oldest first

    def refresh(self, db: Database, stamp: tuple[int, int]) -> None:
        """After a write (`stamp`: the ledger's new change stamp): forget everything when
        the edit epoch moved."""
        if self.watch.moved(db, stamp):
            self.lengths = {}
            self.rows.clear()
        if len(self.lengths) > LENGTHS_KEPT:
            self.lengths = {}
        if len(self.rows) > SESSIONS_KEPT:
            self.rows.clear()

    @property
    def keep(self) -> bool:
        """Whether facts read now may be kept (committed rows only: no open transaction)."""
        return self.watch.keep

    def newest_rows(self, db: Database, scope: Scope, cap: int) -> array[int]:
        """The ids of the session's newest `cap` indexed rows, oldest first: those known
        from an earlier request and the rows written since, else a walk of its keys."""
        known = self.rows.get(scope.session_id)
        if known is None:
            newest_first = db.tuples(
                "SELECT id - ? FROM history_fts_docsize WHERE id BETWEEN ? AND ? ORDER BY id DESC LIMIT ?",
                (scope.base, scope.base, scope.last_key, cap),
            )
            ids = array("q", [rowid for (rowid,) in reversed(newest_first)])
        else:
            since = scope.base + (known[-1] if known else 0) + 1
            added = db.tuples(
                "SELECT id - ? FROM history_fts_docsize WHERE id BETWEEN ? AND ?", (scope.base, since, scope.last_key)
            )
            ids = known if not added else (known + array("q", [rowid for (rowid,) in added]))[-cap:]
        if self.keep:
            self.rows[scope.session_id] = ids
        return ids
