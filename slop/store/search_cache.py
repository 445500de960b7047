"""What the history search keeps from one request to the next.

Every request follows a write (the user's prompt, at least), and the search's per-request
memo (slop.store.bm25.Memo) is emptied by any write. Two facts it reads each time do not
change when rows are appended, only when committed rows are edited or deleted:

- a row's length in the index (its token count, BM25's document length): fixed once the
  row is committed, since ids are never reused (AUTOINCREMENT);
- that every row in a rowid range is one session's (the session being worked in, alone
  at the ledger's end): appends can only extend or end it, and they are checked (the
  rows after the last check, a few).

Both stay valid while the ledger's edit epoch stands (slop.store.edits: raised on any
edit of a committed row other than its status and token counts, and on any deletion,
from whichever process).
Nothing read inside an open transaction is kept: its rows may yet be rolled back and
their ids reused."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from slop.store.db import Database
from slop.store.edits import EditWatch

LENGTHS_KEPT = 200_000  # rows (about 20 MB); past it the lengths start afresh


@dataclass(slots=True)
class LastingFacts:
    """Row lengths and owned rowid ranges, valid while the edit epoch stands."""

    watch: EditWatch = field(default_factory=EditWatch)
    lengths: dict[int, int] = field(default_factory=dict)
    owned: dict[str, tuple[int, int]] = field(default_factory=dict)  # session -> (first, checked)

    def refresh(self, db: Database, stamp: tuple[int, int]) -> None:
        """After a write (`stamp`: the ledger's new change stamp): forget everything when
        the edit epoch moved."""
        if self.watch.moved(db, stamp):
            self.lengths = {}
            self.owned.clear()
        if len(self.lengths) > LENGTHS_KEPT:
            self.lengths = {}

    @property
    def keep(self) -> bool:
        """Whether facts read now may be kept (committed rows only: no open transaction)."""
        return self.watch.keep

    def owns(self, db: Database, session_id: str, low: int, last: int, count: Callable[[], bool]) -> bool:
        """Whether every row from `low` to `last` is the session's. A range known from an
        earlier request is extended over the rows written since (one look at them);
        otherwise `count` decides (a walk of the range) and, when it says yes, the range
        is kept."""
        known = self.owned.get(session_id)
        if known is not None and known[0] <= low:
            first, checked = known
            if checked < last:
                foreign = db.scalar(
                    "SELECT max(id) FROM messages WHERE id > ? AND id <= ? AND session_id IS NOT ?",
                    (checked, last, session_id),
                )
                first = first if foreign is None else int(foreign) + 1
                if self.keep:
                    self.owned[session_id] = (first, last)
            if first <= low:
                return True
        if not count():
            return False
        if self.keep:
            self.owned[session_id] = (low, last)
        return True
