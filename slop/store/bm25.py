"""BM25 over a session's newest matching messages, at a cost the bound sets.

FTS5's own `bm25()` first counts, for every phrase of the query, the documents that hold
it in the WHOLE index (its IDF), the session-scope phrase included: one walk of each
doclist per search. In a session of 100,000 groups that is a million-entry walk for the
scope alone, and a long prompt's 16 common words add their ledger-wide doclists; the
walk costs more than ranking the matches does, and no LIMIT or rowid bound shortens it.

So ranking is done here, over a collection the bound defines: the session's `newest`
most recent matching messages. A small session's are read word by word
(`newest_by_term`), a big one's word by word over a span of the ledger's newest rows
(`newest_in_range`); each word's rows, read backwards (FTS5 steps through a doclist to
a lower rowid bound rather than seek to it), are also its postings for the ranking, so
the work follows the bound and the query's words, not the session's length. The
expanded query extends that collection (`widened`). The statistics are those of the range: N =
the session's rows in it, df = how many of the matched messages hold the term, document
length = the row's stored token count. Term frequency is taken as 1 (the index gives
postings by SQL, not counts); BM25's saturation makes a repeat worth little anyway.

A query that is not a plain OR of quoted phrases (what the strategies send) goes to
FTS5's ranking instead (`phrases` returns None for it)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from slop.store.varints import varint

K1 = 1.2
B = 0.75
COUNT_CAP = 20_000  # rows counted for N; IDF changes little past it
_KEPT_COLLECTIONS = 16
_FIRST_SPAN = 6  # rows per wanted match in a big session's first span (16 common words: ~3)
_PHRASE = r'"(?:[^"]|"")*"'
_OR_OF_PHRASES = re.compile(rf"^\s*{_PHRASE}(?:\s+OR\s+{_PHRASE})*\s*$")
_ONE_PHRASE = re.compile(_PHRASE)

Query = Callable[[str, tuple[object, ...]], list[tuple[Any, ...]]]  # rows as plain tuples
Owns = Callable[[int, int], bool]  # whether every row of a rowid range is the session's


def phrases(fts_query: str) -> list[str] | None:
    """The quoted phrases of `"a" OR "b" OR ...`, or None for any other query."""
    if not _OR_OF_PHRASES.match(fts_query):
        return None
    return list(dict.fromkeys(_ONE_PHRASE.findall(fts_query)))


@dataclass(frozen=True, slots=True)
class Collection:
    """The session's `newest` latest messages matching the query: what is ranked."""

    rowids: list[int]  # newest first
    since: int  # the oldest of them: the range's lower bound
    terms: frozenset[str] = frozenset()  # the phrases it matches (empty: not reusable)
    newest: int = 0  # the bound it was read under
    owned: tuple[int, int] = (0, 0)  # a rowid range all of whose rows are the session's (none: (0, 0))

    def complete_from(self) -> int:
        """From which rowid on it holds every session row matching its terms: its
        oldest when the bound cut it, else all of them (0)."""
        return self.since if 0 < self.newest <= len(self.rowids) else 0


def newest_in_range(
    query: Query, scope: str, terms: list[str], newest: int, memo: Memo, last: int, owns: Owns
) -> Collection:
    """The collection of a big session, read word by word over the ledger's newest rows
    (up to rowid `last`): a span guessed to hold `newest` matches, widened by the match
    rate seen until it does. Each word's rows in the span are its postings for the
    ranking, so nothing is read twice, and there is no walk of the whole OR (FTS5 walks
    an OR of 16 words at 2-3x the cost of reading each). When every rowid of the span is
    the session's (the session being worked in, alone at the end of the ledger), the
    words are read without the session token: an AND costs 2x a plain read. `owns(low,
    last)` says whether it is (e.g. `owns_by_count`)."""
    span = _FIRST_SPAN * newest if newest > 0 else last
    while True:
        low = max(1, last - span + 1)
        own = owns(low, last)
        per_term = {t: _read_span(query, f"content : {t}" + ("" if own else f" AND {scope}"), low, last) for t in terms}
        union = set().union(*per_term.values())
        if low == 1 or len(union) >= newest:
            break
        span = int(span * max(1.5, 1.3 * newest / max(1, len(union))))  # the rate seen, and a margin
    for term, rows in per_term.items():
        memo.postings[(scope, term)] = (low, rows)  # every row of the word from `low` on
    ids = sorted(union, reverse=True)[:newest] if newest > 0 else sorted(union, reverse=True)
    return Collection(ids, ids[-1] if ids else 0, frozenset(terms), newest, (low, last) if own else (0, 0))


def owns_by_count(query: Query, scope: str, low: int, last: int) -> bool:
    """Whether every row from `low` to `last` is the session's: as many of its rows as
    the index holds there (ids of deleted rows are gaps, not another session's rows). A
    span past COUNT_CAP rows is not counted: the count would cost what it saves."""
    if last - low + 1 > COUNT_CAP:
        return False
    rows = query("SELECT count(*) FROM history_fts_docsize WHERE id BETWEEN ? AND ?", (low, last))
    return _rows_in_span(query, scope, low, last) == (int(rows[0][0]) if rows else 0)


def _rows_in_span(query: Query, scope: str, low: int, last: int) -> int:
    sql = "SELECT count(*) FROM history_fts WHERE history_fts MATCH ? AND rowid BETWEEN ? AND ?"
    rows = query(sql, (scope, low, last))
    return int(rows[0][0]) if rows else 0


def _read_span(query: Query, match: str, low: int, last: int) -> set[int]:
    """Backwards: FTS5 steps through a doclist to a lower bound instead of seeking."""
    sql = "SELECT rowid FROM history_fts WHERE history_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid DESC"
    return {r[0] for r in query(sql, (match, low, last))}


def newest_by_term(query: Query, scope: str, terms: list[str], newest: int, memo: Memo, order: str = "") -> Collection:
    """The same collection for a small session, read one term at a time: each term's
    `newest` latest rows in the session (a scoped AND, cheap when the session is small:
    FTS5 seeks the term's doclist to the session's rows; an OR of many common words
    under the AND is not: it walks them all), whose union's `newest` latest
    are the collection. Every row of a term newer than the collection's oldest is among
    that term's own `newest` (else the union would have `newest` rows newer still), so
    the postings read here are complete for the range and go into the memo. `order`:
    see `walk_order`."""
    per_term: dict[str, list[int]] = {}
    for term in terms:
        # every row, not LIMIT: a small session's rows of one word are few
        match = f"content : {term} AND {scope}"
        rows = query(f"SELECT rowid FROM history_fts WHERE history_fts MATCH ?{order}", (match,))
        newest_first = sorted((r[0] for r in rows), reverse=True)
        per_term[term] = newest_first[:newest] if newest > 0 else newest_first
    union = sorted({rowid for rows in per_term.values() for rowid in rows}, reverse=True)
    ids = union[:newest] if newest > 0 else union
    for term, rowids in per_term.items():
        complete_from = rowids[-1] if newest > 0 and len(rowids) >= newest else 0
        memo.postings[(scope, term)] = (complete_from, set(rowids))
    return Collection(ids, ids[-1] if ids else 0, frozenset(terms), newest)


def walk_order(first: int, last: int) -> str:
    """How to read every row of a word in a small session (a word AND the session
    token). FTS5 ends the AND when the session's doclist runs out, so walked backwards
    it stops at the session's first row, and forwards it steps through the word's
    doclist from the ledger's start (a rowid bound does not make it seek: measured). A
    session that began in the newer half of the ledger (`first` of `last` rowids; the
    usual case: the one being worked in) is read backwards, 2x faster; an old one that
    spans the ledger forwards (backwards is 1.3x slower an entry)."""
    return " ORDER BY rowid DESC" if first > last // 2 else ""


def widened(query: Query, scope: str, base: Collection, terms: list[str], memo: Memo, order: str = "") -> Collection:
    """The collection of `terms`, a superset of `base.terms` (the query expanded from
    the first search's top hits), read from `base` and the added terms' postings alone:
    `base` holds every session row of its terms from `base.complete_from()` on, and the
    `newest` latest rows of the wider query lie in that range (it has at least as many
    matches there), so the added terms are read inside it, scoped to the session: no
    second walk of the whole query. `order`: see `walk_order`."""
    since = base.complete_from()
    rowids = set(base.rowids)
    bound = since  # rises as the union fills: older rows can no longer be among the newest
    for term in terms:
        if term in base.terms:
            continue
        owned = 0 < base.owned[0] <= bound  # every row from `bound` on is the session's: no token needed
        match = f"content : {term}" if owned else f"content : {term} AND {scope}"
        if bound:  # newest first, as far as the bound needs (a word in every other row stops there)
            sql = "SELECT rowid FROM history_fts WHERE history_fts MATCH ? AND rowid >= ? ORDER BY rowid DESC LIMIT ?"
            found = [r[0] for r in query(sql, (match, bound, base.newest if base.newest > 0 else -1))]
        else:  # base holds all the session's matches, so the session is small: every row (forward: faster)
            rows = query(f"SELECT rowid FROM history_fts WHERE history_fts MATCH ?{order}", (match,))
            found = sorted((r[0] for r in rows), reverse=True)
        cut = bound > 0 and base.newest > 0 and len(found) >= base.newest
        memo.postings[(scope, term)] = (found[-1] if cut else bound, set(found))
        rowids.update(found)
        if base.newest > 0 and len(rowids) >= base.newest:
            bound = max(bound, sorted(rowids, reverse=True)[base.newest - 1])  # C's sort: faster than a heap
    ids = sorted(rowids, reverse=True)
    if base.newest > 0:
        ids = ids[: base.newest]
    return Collection(ids, ids[-1] if ids else 0, frozenset(terms), base.newest, base.owned)


@dataclass(slots=True)
class Memo:
    """What one search read that the next one over the same ledger state may reuse (a
    ranked request searches twice: the query, then the query expanded from its top
    hits, over an overlapping range): term postings, row lengths, the sessions' row
    counts and the collections read. Emptied whenever the ledger's change stamp moves
    (any write, through this connection or another one); the lengths then start from
    what HistorySearch keeps across writes (slop.store.search_cache), when it may."""

    stamp: tuple[int, int] = (-1, -1)
    postings: dict[tuple[str, str], tuple[int, set[int]]] = field(default_factory=dict)
    lengths: dict[int, int] = field(default_factory=dict)
    session_rows: dict[str, int] = field(default_factory=dict)
    session_order: dict[str, str] = field(default_factory=dict)  # a small session's walk_order
    groups: dict[str, dict[int, str | None]] = field(default_factory=dict)  # by status filter: rowid -> group
    collections: dict[tuple[str, frozenset[str], int], Collection] = field(default_factory=dict)
    rankings: dict[tuple[str, frozenset[str], int], list[tuple[int, float]]] = field(default_factory=dict)

    def check(self, stamp: tuple[int, int]) -> Memo:
        if stamp != self.stamp:
            self.stamp = stamp
            self.postings.clear()
            self.lengths = {}  # a new dict: the one in use may be kept across requests (search_cache)
            self.session_rows.clear()
            self.session_order.clear()
            self.groups.clear()
            self.collections.clear()
            self.rankings.clear()
        return self

    def base_for(self, scope: str, terms: list[str], newest: int) -> Collection | None:
        """A collection read earlier under the same bound for some of `terms` (the
        widest such one), which `widened` can extend to all of them."""
        wanted = set(terms)
        fits = [c for (s, t, n), c in self.collections.items() if s == scope and n == newest and t <= wanted]
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

    def keep(self, scope: str, found: Collection) -> None:
        if len(self.collections) >= _KEPT_COLLECTIONS:  # many searches and no write: start afresh
            self.collections.clear()
        self.collections[(scope, found.terms, found.newest)] = found


def scores(
    query: Query, scope: str, found: Collection, terms: list[str], memo: Memo | None = None
) -> list[tuple[int, float]]:
    """(rowid, BM25 score) of the collection's messages, best first (ties: newer first)."""
    if not found.rowids:
        return []
    memo = memo or Memo()
    ids = set(found.rowids)
    missing = ids.difference(memo.lengths)
    if missing:
        memo.lengths.update(_lengths(query, missing))
    lengths = memo.lengths
    avg = max(1.0, sum(map(lengths.__getitem__, ids)) / len(ids))
    low, last = found.owned
    if low and low <= found.since:  # every rowid from `since` on is the session's: N needs no count
        total = max(len(ids), min(COUNT_CAP, last - found.since + 1))
    else:
        total = _rows_in_range(query, scope, found.since, len(ids))
    idf_sum: dict[int, float] = dict.fromkeys(found.rowids, 0.0)
    for term in terms:
        known = memo.postings.get((scope, term))
        if known is None or known[0] > found.since:
            known = (found.since, _postings(query, scope, term, found.since, len(ids)))
            memo.postings[(scope, term)] = known
        rows = known[1] & ids
        weight = _idf(total, len(rows))
        for rowid in rows:
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


def _postings(query: Query, scope: str, phrase: str, since: int, matched: int) -> set[int]:
    """The rows in the range holding `phrase`. Unscoped first: when the session is most
    of the range that is the cheap walk; when the walk runs past what the session could
    hold (other sessions' rows), the scoped AND walks the session's part only. Both walk
    backwards from the newest row: FTS5 steps through a doclist up to a lower rowid bound
    rather than seek to it, so a forward read of the newest range of a big ledger costs
    what the whole doclist does (2.3x slower at 1M messages: measured)."""
    cap = 4 * matched + 64
    sql = "SELECT rowid FROM history_fts WHERE history_fts MATCH ? AND rowid >= ? ORDER BY rowid DESC LIMIT ?"
    rows = query(sql, (f"content : {phrase}", since, cap))
    if len(rows) < cap:
        return {r[0] for r in rows}
    return {r[0] for r in query(sql, (f"{scope} AND content : {phrase}", since, -1))}


def _rows_in_range(query: Query, scope: str, since: int, matched: int) -> int:
    rows = query(
        "SELECT count(*) FROM (SELECT 1 FROM history_fts WHERE history_fts MATCH ? AND rowid >= ? LIMIT ?)",
        (scope, since, COUNT_CAP),
    )
    return max(matched, int(rows[0][0]) if rows else 0)


def _lengths(query: Query, ids: set[int]) -> dict[int, int]:
    """Each row's token count in the text column, as FTS5 stored it for its own BM25
    (`history_fts_docsize`: one varint per column, the text column's first), at least 1
    (a matching row has a token; a row missing there counts as 1)."""
    rows = query(
        "SELECT id, sz FROM history_fts_docsize WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(ids)),),
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
