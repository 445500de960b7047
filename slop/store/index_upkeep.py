"""Keeping the history index in few pieces, while slop waits for the user.

FTS5 writes every transaction's new rows as a small segment and merges segments of a
size four at a time, so an index grown turn by turn lies in 10-20 segments of every
size. A word read merges all their doclists as it walks them, and a read scoped to a
session whose rows are scattered over a big ledger walks the word's whole doclist: at 1M
messages that costs 2.3x what it costs in one segment (0.8 vs 0.35 ms a word; the
ranked search of a scattered session 143.7 M instructions vs 84.5 M; docs/benchmarks.md).

So, at idle, with FTS5's own incremental 'merge' command, `STEP_PAGES` pages a step:

- segments of a level are merged two by two (FTS5 waits for four): only the small
  recent ones, a few pages a turn;
- once the segments beside the largest hold more than `START_SHARE` of the pages, all
  of them are merged into one: the first step lays every segment on one level to be
  merged (a negative 'merge'), the following ones go on with that merge (a positive
  one), which rows written meanwhile, from any process, never restart. It rewrites the
  index once; starting at a tenth, a page is rewritten about ten times over the
  ledger's life, against FTS5's own ~log4(pages) merges.

Each step is its own short transaction: an input that starts cuts the step under way
short (`IndexUpkeep.pause`; rolled back, the merge goes on later from the last commit),
a second slop on the ledger writes between steps, and a kill loses at most the step
under way (the index is whole at every commit)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from slop.errors import StoreError
from slop.store.db import Database
from slop.store.varints import varint

log = logging.getLogger(__name__)

STRUCTURE_ROWID = 10  # FTS5's structure record in history_fts_data: levels and segments
MIN_PAGES = 1_000  # an index smaller (~25k messages) is read fast enough in any shape
START_SHARE = 0.10  # merge all once the segments beside the largest hold this share of the pages
PAIRWISE = 2  # segments of one level the merge command takes ('usermerge'; FTS5's default 4)
STEP_PAGES = 128  # pages a step writes (~25 ms; more when one word's doclist is longer)
QUIET_SECONDS = 1.0  # after an input, the user reads the answer: merge after that


@dataclass(frozen=True, slots=True)
class IndexShape:
    """The history index's segments (their leaf pages), level by level, and whether a
    merge is under way (a level some of whose segments are being merged)."""

    levels: tuple[tuple[int, ...], ...]
    merging: bool

    @property
    def segments(self) -> tuple[int, ...]:
        return tuple(pages for level in self.levels for pages in level)

    @property
    def pages(self) -> int:
        return sum(self.segments)

    @property
    def tail_share(self) -> float:
        """The share of the pages outside the largest segment."""
        pages = self.pages
        return (pages - max(self.segments)) / pages if pages else 0.0

    @property
    def crowded(self) -> bool:
        """Some level holds segments the merge command would merge."""
        return any(len(level) >= PAIRWISE for level in self.levels)

    def lopsided(self, min_pages: int = MIN_PAGES, start_share: float = START_SHARE) -> bool:
        """Due for a merge of everything."""
        return self.pages >= min_pages and self.tail_share > start_share

    def needs_merge(self, min_pages: int = MIN_PAGES, start_share: float = START_SHARE) -> bool:
        return self.pages >= min_pages and (self.merging or self.crowded or self.tail_share > start_share)


def index_shape(db: Database) -> IndexShape | None:
    """The index's shape; None when there is no index or its structure record is not
    one this code reads (another SQLite's format): then nothing is merged."""
    try:
        blob = db.scalar("SELECT block FROM history_fts_data WHERE id = ?", (STRUCTURE_ROWID,))
    except StoreError:
        return None
    return decode_structure(blob) if isinstance(blob, bytes) else None


def decode_structure(blob: bytes) -> IndexShape | None:
    """FTS5's structure record: a 4-byte cookie, the V2 marker if present, then varints:
    levels, segments, write counter, and for each level its merge count and segments,
    each (id, first page, last page[, five V2 counters]). None if it does not add up."""
    try:
        pos = 8 if blob[4:8] == b"\xff\x00\x00\x01" else 4
        extra = 5 if pos == 8 else 0
        values = _Varints(blob, pos)
        levels, total, _writes = values.next(), values.next(), values.next()
        shape: list[tuple[int, ...]] = []
        merging = False
        for _ in range(levels):
            merge, count = values.next(), values.next()
            merging = merging or merge > 0
            level = []
            for _ in range(count):
                _segid, first, last = values.next(), values.next(), values.next()
                values.skip(extra)
                level.append(last - first + 1)
            shape.append(tuple(level))
    except IndexError:
        return None
    found = IndexShape(tuple(shape), merging)
    if len(found.segments) != total or not found.segments or min(found.segments) < 1:
        return None
    return found


class _Varints:
    """The varints of a blob, one after the other."""

    def __init__(self, blob: bytes, pos: int) -> None:
        self._blob, self._pos = blob, pos

    def next(self) -> int:
        value, self._pos = varint(self._blob, self._pos)
        return value

    def skip(self, count: int) -> None:
        for _ in range(count):
            self.next()


def merge_step(db: Database, pages: int, *, restart: bool = False) -> IndexShape | None:
    """About `pages` pages of merging in one transaction: going on with the merge under
    way or merging a level's segments, or (`restart`) laying every segment on one level
    to be merged."""
    with db.transaction():
        db.execute("INSERT INTO history_fts(history_fts, rank) VALUES ('merge', ?)", (-pages if restart else pages,))
        return index_shape(db)


def _merge_pairwise(db: Database) -> None:
    """The merge command takes a level's segments two at a time (a setting of the index
    the command alone reads; FTS5's merging as rows are written keeps its own)."""
    if db.scalar("SELECT v FROM history_fts_config WHERE k = 'usermerge'") != PAIRWISE:
        with db.transaction():
            db.execute("INSERT INTO history_fts(history_fts, rank) VALUES ('usermerge', ?)", (PAIRWISE,))


@dataclass(frozen=True, slots=True)
class TidyReport:
    after: IndexShape | None
    steps: int
    stopped: bool  # `stop` said so before the merge was over


def tidy(
    db: Database,
    stop: Callable[[], bool] = lambda: False,
    *,
    pages: int = STEP_PAGES,
    min_pages: int = MIN_PAGES,
    start_share: float = START_SHARE,
) -> TidyReport:
    """Merge what needs it, a step at a time, until nothing does or `stop()` (asked
    before every step) says to leave the rest for later. `start_share`: the share of
    the pages beside the largest segment past which everything is merged (1: never)."""
    shape = index_shape(db)
    if shape is None or not shape.needs_merge(min_pages, start_share):
        return TidyReport(shape, 0, False)
    _merge_pairwise(db)
    restart = shape.lopsided(min_pages, start_share) and not shape.merging
    budget = 2 * shape.pages // pages + 16  # one merge of everything, with room for rows written meanwhile
    pairs_left = 2 * len(shape.levels) + 2  # level merges to start: crowding that keeps coming waits for later
    steps = 0
    while steps < budget:
        if stop():
            return TidyReport(shape, steps, True)
        last = shape
        shape = merge_step(db, pages, restart=restart)
        restart, steps = False, steps + 1
        if shape is None or shape == last:
            break  # nothing left that the merge command would merge
        if not shape.merging:
            pairs_left -= 1
            if not shape.crowded or pairs_left <= 0:
                break
    return TidyReport(shape, steps, False)


class IndexUpkeep:
    """Runs `tidy` on a thread of its own with a connection of its own, when asked at
    idle. `pause()` (an input starts) cuts the step under way short (a step that merges
    a word in every row writes its whole doclist: 0.4 s at 1M messages) and `busy()`
    keeps the next from starting; `close()` does both for good. The next quiet moment
    goes on with the merge."""

    def __init__(
        self, path: str, busy: Callable[[], bool], quiet: float = QUIET_SECONDS, pages: int = STEP_PAGES
    ) -> None:
        self._path = path
        self._busy = busy
        self._quiet = quiet
        self._pages = pages
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None
        self._db: Database | None = None  # the thread's connection, while it works
        self._lock = threading.Lock()
        self._failed = False  # a failure is logged once; the index is left as it is for this run
        self.last: TidyReport | None = None

    def when_idle(self) -> None:
        if self._path == ":memory:" or self._failed:
            return
        with self._lock:
            if self._closing.is_set() or (self._thread is not None and self._thread.is_alive()):
                return  # closing, or at work already
            self._thread = threading.Thread(target=self._run, name="slop-index-upkeep", daemon=True)
            self._thread.start()

    @property
    def running(self) -> bool:
        with self._lock:
            return self._thread is not None and self._thread.is_alive()

    def pause(self) -> None:
        """An input starts: its first write must not wait for the step under way (rolled
        back; the merge goes on from the last step committed)."""
        with self._lock:
            if self._db is not None:
                self._db.interrupt()

    def close(self, timeout: float = 10.0) -> None:
        self._closing.set()
        self.pause()
        with self._lock:
            thread = self._thread
        if thread is not None and thread.ident is not None:
            thread.join(timeout)

    def _stop(self) -> bool:
        return self._closing.is_set() or self._busy()

    def _run(self) -> None:
        if self._closing.wait(self._quiet) or self._busy():
            return
        try:
            db = Database(self._path)
        except StoreError:
            return
        with self._lock:
            self._db = db
        try:
            self.last = tidy(db, self._stop, pages=self._pages)
        except Exception as exc:  # never onto the screen: the index stays as it is, and works
            if self._stop():  # cut short by pause() or close()
                self.last = TidyReport(None, 0, True)
            else:
                self._failed = True
                log.warning("history index upkeep stopped for this run: %s", exc)
        finally:
            with self._lock:
                self._db = None
            db.close()
