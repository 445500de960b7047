"""BM25 over a session's newest matching messages, at a cost the bound sets.

FTS5's own `bm25()` first counts, for every phrase of the query, the documents that hold
it in the WHOLE index (its IDF): one walk of each doclist per search, over every
session's rows. A long prompt's 16 common words add their ledger-wide doclists; the walk
costs more than ranking the matches does, and no LIMIT or rowid bound shortens it.

So ranking is done here, over a collection the bound defines: the session's `newest`
most recent matching messages. The index is keyed by session (slop.store.search_index:
a session's rows of a word are one rowid range), so every read below is a range of the
session's own postings, whatever the session's size or layout in the ledger. A small
session's words are read whole (`newest_by_term`), a big one's over a span of its newest
rows (`newest_in_range`); each word's rows are also its postings for the ranking, so the
work follows the bound and the query's words, not the session's length. The expanded
query extends that collection (`widened`). The statistics are those of the range: N =
the session's rows in it, df = how many of the matched messages hold the term, document
length = the row's stored token count. Term frequency is taken as 1 (the index gives
postings by SQL, not counts); BM25's saturation makes a repeat worth little anyway.

Everything here speaks message ids; `Scope` turns them into the index's keys.

A query that is not a plain OR of quoted phrases (what the strategies send) goes to
FTS5's ranking instead (`phrases` returns None for it)."""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from slop.store.search_index import Scope
from slop.store.varints import varint

K1 = 1.2
B = 0.75
COUNT_CAP = 20_000  # rows counted for N; IDF changes little past it
_KEPT_COLLECTIONS = 16
_FIRST_SPAN = 6  # session rows per wanted match in a big session's first span (16 common words: ~3)
_PHRASE = r'"(?:[^"]|"")*"'
_OR_OF_PHRASES = re.compile(rf"^\s*{_PHRASE}(?:\s+OR\s+{_PHRASE})*\s*$")
_ONE_PHRASE = re.compile(_PHRASE)

Query = Callable[[str, tuple[object, ...]], list[tuple[Any, ...]]]  # rows as plain tuples


def phrases(fts_query: str) -> list[str] | None:
    """The quoted phrases of `"a" OR "b" OR ...`, or None for any other query."""
    if not _OR_OF_PHRASES.match(fts_query):
        return None
    return list(dict.fromkeys(_ONE_PHRASE.findall(fts_query)))


@dataclass(frozen=True, slots=True)
class Collection:
    """The session's `newest` latest messages matching the query: what is ranked."""

    rowids: list[int]  # message ids, newest first
    since: int  # the oldest of them: the range's lower bound
    terms: frozenset[str] = frozenset()  # the phrases it matches (empty: not reusable)
    newest: int = 0  # the bound it was read under

    def complete_from(self) -> int:
        """From which id on it holds every session row matching its terms: its oldest
        when the bound cut it, else all of them (0)."""
        return self.since if 0 < self.newest <= len(self.rowids) else 0


@dataclass(frozen=True, slots=True)
class Rows:
    """The ids of a session's newest indexed rows, oldest first: all of them, or the
    newest COUNT_CAP of a big session (slop.store.search_cache keeps them across writes)."""

    ids: Sequence[int]

    @property
    def big(self) -> bool:
        return len(self.ids) >= COUNT_CAP

    def nth_newest(self, n: int) -> int:
        """The id of the session's `n`-th newest row; 0 (from its start) past those known."""
        return self.ids[-n] if 0 < n <= len(self.ids) else 0

    def count_from(self, since: int) -> int:
        """The session's rows from id `since` on, up to COUNT_CAP: BM25's N."""
        return min(COUNT_CAP, len(self.ids) - bisect.bisect_left(self.ids, since))


def read(query: Query, scope: Scope, phrase: str, low: int = 0, *, newest: int = 0) -> list[int]:
    """The ids of the session's rows from id `low` on holding `phrase`: all of them, or
    the `newest` latest, newest first. A range of keys, so FTS5 reads the session's
    postings only: a whole session forwards, oldest first (a small one's rows of a word
    are few, wherever the session lies in the index), a span from `low` on backwards
    from the session's newest row, newest first (1.2-1.5x faster than forwards there:
    measured; a big session's spans are at its end)."""
    sql = "SELECT rowid - ? FROM history_fts WHERE history_fts MATCH ? AND rowid BETWEEN ? AND ?"
    if low > 0 or newest > 0:
        sql += " ORDER BY rowid DESC" + (f" LIMIT {int(newest)}" if newest > 0 else "")
    # the id computed by SQLite: a key is a two-digit Python int, slower to make and subtract
    return [r[0] for r in query(sql, (scope.base, phrase, scope.base + max(0, low), scope.last_key))]


def newest_in_range(query: Query, scope: Scope, terms: list[str], newest: int, memo: Memo, rows: Rows) -> Collection:
    """The collection of a big session, read word by word over a span of its newest rows:
    a span guessed to hold `newest` matches, widened by the match rate seen until it
    does. Each word's rows in the span are its postings for the ranking, so nothing is
    read twice, and there is no walk of the whole OR (FTS5 walks an OR of 16 words at
    2-3x the cost of reading each)."""
    span = _FIRST_SPAN * newest if newest > 0 else 0
    while True:
        low = (rows.nth_newest(span) or _nth_newest(query, scope, span)) if span else 0
        per_term = {t: set(read(query, scope, t, low)) for t in terms}
        union = set().union(*per_term.values())
        if low == 0 or len(union) >= newest:
            break
        span = int(span * max(1.5, 1.3 * newest / max(1, len(union))))  # the rate seen, and a margin
    for term, postings in per_term.items():
        memo.postings[(scope.session_id, term)] = (low, postings)  # every row of the word from `low` on
    ids = sorted(union, reverse=True)[:newest] if newest > 0 else sorted(union, reverse=True)
    return Collection(ids, ids[-1] if ids else 0, frozenset(terms), newest)


def _nth_newest(query: Query, scope: Scope, n: int) -> int:
    """The id of the session's `n`-th newest row, past those Rows holds: a walk of n keys
    of the row-length table (a span that wide is rare: its words are); 0 when it has fewer."""
    sql = "SELECT id FROM history_fts_docsize WHERE id BETWEEN ? AND ? ORDER BY id DESC LIMIT 1 OFFSET ?"
    found = query(sql, (scope.base, scope.last_key, n - 1))
    return int(found[0][0]) - scope.base if found else 0


def newest_by_term(query: Query, scope: Scope, terms: list[str], newest: int, memo: Memo) -> Collection:
    """The same collection for a small session, read one term at a time: every row of
    the term in the session (few), whose union's `newest` latest are the collection.
    Every row of a term newer than the collection's oldest is among that term's own
    `newest` (else the union would have `newest` rows newer still), so the postings read
    here are complete for the range and go into the memo."""
    per_term: dict[str, list[int]] = {}
    for term in terms:
        newest_first = read(query, scope, term)[::-1]
        per_term[term] = newest_first[:newest] if newest > 0 else newest_first
    union = sorted({rowid for rows in per_term.values() for rowid in rows}, reverse=True)
    ids = union[:newest] if newest > 0 else union
    for term, rowids in per_term.items():
        complete_from = rowids[-1] if newest > 0 and len(rowids) >= newest else 0
        memo.postings[(scope.session_id, term)] = (complete_from, set(rowids))
    return Collection(ids, ids[-1] if ids else 0, frozenset(terms), newest)


def widened(query: Query, scope: Scope, base: Collection, terms: list[str], memo: Memo) -> Collection:
    """The collection of `terms`, a superset of `base.terms` (the query expanded from
    the first search's top hits), read from `base` and the added terms' postings alone:
    `base` holds every session row of its terms from `base.complete_from()` on, and the
    `newest` latest rows of the wider query lie in that range (it has at least as many
    matches there), so the added terms are read inside it: no second walk of the whole
    query."""
    since = base.complete_from()
    rowids = set(base.rowids)
    bound = since  # rises as the union fills: older rows can no longer be among the newest
    for term in terms:
        if term in base.terms:
            continue
        # newest first: as far as the bound needs (a word in every other row stops there),
        # or every row when base holds all the session's matches (a small session)
        found = read(query, scope, term, bound, newest=base.newest) if bound else read(query, scope, term)[::-1]
        cut = bound > 0 and base.newest > 0 and len(found) >= base.newest
        memo.postings[(scope.session_id, term)] = (found[-1] if cut else bound, set(found))
        rowids.update(found)
        if base.newest > 0 and len(rowids) >= base.newest:
            bound = max(bound, sorted(rowids, reverse=True)[base.newest - 1])  # C's sort: faster than a heap
    ids = sorted(rowids, reverse=True)
    if base.newest > 0:
        ids = ids[: base.newest]
    return Collection(ids, ids[-1] if ids else 0, frozenset(terms), base.newest)


@dataclass(slots=True)
class Memo:
    """What one search read that the next one over the same ledger state may reuse (a
    ranked request searches twice: the query, then the query expanded from its top
    hits, over an overlapping range): term postings, row lengths, the sessions' row
    counts and the collections read, by session id. Emptied whenever the ledger's change
    stamp moves (any write, through this connection or another one); the lengths then
    start from what HistorySearch keeps across writes (slop.store.search_cache), when it may."""

    stamp: tuple[int, int] = (-1, -1)
    postings: dict[tuple[str, str], tuple[int, set[int]]] = field(default_factory=dict)
    lengths: dict[int, int] = field(default_factory=dict)
    rows: dict[str, Rows] = field(default_factory=dict)  # by session
    groups: dict[str, dict[int, str | None]] = field(default_factory=dict)  # by status filter: id -> group
    collections: dict[tuple[str, frozenset[str], int], Collection] = field(default_factory=dict)
    rankings: dict[tuple[str, frozenset[str], int], list[tuple[int, float]]] = field(default_factory=dict)

    def check(self, stamp: tuple[int, int]) -> Memo:
        if stamp != self.stamp:
            self.stamp = stamp
            self.postings.clear()
            self.lengths = {}  # a new dict: the one in use may be kept across requests (search_cache)
            self.rows.clear()
            self.groups.clear()
            self.collections.clear()
            self.rankings.clear()
        return self

    def base_for(self, session_id: str, terms: list[str], newest: int) -> Collection | None:
        """A collection read earlier under the same bound for some of `terms` (the
        widest such one), which `widened` can extend to all of them."""
        wanted = set(terms)
        fits = [c for (s, t, n), c in self.collections.items() if s == session_id and n == newest and t <= wanted]
        return max(fits, key=lambda c: len(c.terms), default=None)

    def ranking(
        self, key: tuple[str, frozenset[str], int], rank: Callable[[], list[tuple[int, float]]]
    ) -> list[tuple[int, float]]:
        """The ranking of a search, ranked once per ledger state (a further look at the
        same search, for more groups, ranks nothing again)."""
        if key not in self.rankings:
            if len(self.rankings) >= _KEPT_COLLECTIONS:
                self.rankings.clear()
            self.rankings[key] = rank()
        return self.rankings[key]

    def keep(self, session_id: str, found: Collection) -> None:
        if len(self.collections) >= _KEPT_COLLECTIONS:  # many searches and no write: start afresh
            self.collections.clear()
        self.collections[(session_id, found.terms, found.newest)] = found


def scores(
    query: Query, scope: Scope, found: Collection, terms: list[str], memo: Memo, rows: Rows
) -> list[tuple[int, float]]:
    """(id, BM25 score) of the collection's messages, best first (ties: newer first)."""
    if not found.rowids:
        return []
    ids = set(found.rowids)
    missing = ids.difference(memo.lengths)
    if missing:
        memo.lengths.update(_lengths(query, scope, missing))
    lengths = memo.lengths
    avg = max(1.0, sum(map(lengths.__getitem__, ids)) / len(ids))
    total = max(len(ids), rows.count_from(found.since))
    idf_sum: dict[int, float] = dict.fromkeys(found.rowids, 0.0)
    for term in terms:
        known = memo.postings.get((scope.session_id, term))
        if known is None or known[0] > found.since:
            known = (found.since, set(read(query, scope, term, found.since)))
            memo.postings[(scope.session_id, term)] = known
        holding = known[1] & ids
        weight = _idf(total, len(holding))
        for rowid in holding:
            idf_sum[rowid] += weight
    # score = idf * (k1 + 1) / (1 + k1 * (1 - b + b * length / avg)), its constants hoisted
    top, base, per_token = K1 + 1, 1 + K1 * (1 - B), K1 * B / avg
    score = {rowid: idf * top / (base + per_token * lengths[rowid]) for rowid, idf in idf_sum.items()}
    # best first; the sort is stable, so equal scores stay newest first (a sort keyed by
    # floats alone is faster than one of (score, rowid) pairs)
    best = sorted(score, key=score.__getitem__, reverse=True)
    return [(rowid, score[rowid]) for rowid in best]


def _idf(total: int, df: int) -> float:
    return math.log(1 + (total - df + 0.5) / (df + 0.5))


def _lengths(query: Query, scope: Scope, ids: set[int]) -> dict[int, int]:
    """Each row's token count in the text column, as FTS5 stored it for its own BM25
    (`history_fts_docsize`: one varint per column), at least 1 (a matching row has a
    token; a row missing there counts as 1)."""
    base = scope.base
    rows = query(
        "SELECT id - ?, sz FROM history_fts_docsize WHERE id IN (SELECT value FROM json_each(?))",
        (base, json.dumps(sorted(base + i for i in ids))),
    )
    found = dict.fromkeys(ids, 1)
    found.update({rowid: _doc_length(blob) for rowid, blob in rows})
    return found


def _doc_length(blob: bytes | None) -> int:
    """The text column's token count (the blob's first varint), at least 1; rows under
    16,384 tokens (all but a few) take one or two bytes."""
    if not blob:
        return 1
    first = blob[0]
    if first < 0x80:
        return first or 1
    if len(blob) > 1 and blob[1] < 0x80:
        return ((first & 0x7F) << 7) | blob[1]
    try:
        return max(1, varint(blob)[0])
    except IndexError:  # a blob cut short: as a row missing there
        return 1
