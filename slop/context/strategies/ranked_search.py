"""ranked's search half: its settings, and the candidates one request's search yields
(BM25 hits, the expanded query's, the recent groups and the subset-rule recency list) that
`ranked.py` fuses and fits into the budget."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from slop.context.options import Option, option
from slop.context.rankfusion import expansion_terms
from slop.context.selecting import group_map
from slop.context.strategies.base import HistorySource
from slop.context.textsearch import fts_query
from slop.records import Message, SessionInfo

FEEDBACK_GROUPS = 3  # top hits whose words expand the query
TAIL_FACTOR = 4  # BM25 hits beyond the fused candidates may still fill the budget

RANKED_K = Option("ranked_k", 60, float, 1, 1000, "ranked", "RRF constant k: score = sum of w / (k + rank)")
RANKED_BM25_WEIGHT = Option("ranked_bm25_weight", 1.5, float, 0, 100, "ranked", "RRF weight of the BM25 rank")
RANKED_RECENCY_WEIGHT = Option("ranked_recency_weight", 1.0, float, 0, 100, "ranked", "RRF weight of the recency rank")
RANKED_KEEP_LAST = Option(
    "ranked_keep_last", 2, int, 0, 1000, "ranked", "the last K groups are always kept (current one included)"
)
RANKED_CANDIDATES = Option(
    "ranked_candidates", 50, int, 1, 1000, "ranked", "FTS hits and recent groups ranked per request"
)
RANKED_SEARCH_LIMIT = Option(
    "ranked_search_limit",
    1000,
    int,
    0,
    10_000_000,
    "ranked",
    "matching messages BM25 ranks per search, newest first (0 = all; bounds the cost)",
)
RANKED_RECENT_SHARE = Option(
    "ranked_recent_share",
    1.0,
    float,
    0,
    1,
    "ranked",
    "share of the budget the most recent groups get first, before the ranked ones",
)
RANKED_EXPANSION_TERMS = Option(
    "ranked_expansion_terms", 5, int, 0, 50, "ranked", "query expansion: words taken from the top 3 hits (0 = off)"
)
RANKED_EXPANSION_WEIGHT = Option(
    "ranked_expansion_weight", 1.0, float, 0, 100, "ranked", "RRF weight of the expanded-query ranking"
)
RANKED_OPTIONS = (
    RANKED_K,
    RANKED_BM25_WEIGHT,
    RANKED_RECENCY_WEIGHT,
    RANKED_KEEP_LAST,
    RANKED_CANDIDATES,
    RANKED_SEARCH_LIMIT,
    RANKED_RECENT_SHARE,
    RANKED_EXPANSION_TERMS,
    RANKED_EXPANSION_WEIGHT,
)


@dataclass(frozen=True, slots=True)
class Candidates:
    """What one search found: the current group, the newest groups, BM25 hits and the fused ranking."""

    current: str | None
    recent: list[str]
    hits: list[str]
    tail: Callable[[], list[str]]  # further BM25 hits, searched only when the fill reaches them
    extra: list[str]
    expanded: list[str]
    recency: list[str]  # the hits, newest first (the subset rule)
    loaded: dict[str | None, list[Message]] = field(default_factory=dict)  # groups read already (the top hits)


def find_candidates(source: HistorySource, session: SessionInfo, terms: list[str]) -> Candidates:
    """Search, expand the query from the top hits, and fuse BM25, recency and expansion ranks."""
    sid = session.name
    keep_last = int(option(session, RANKED_KEEP_LAST))
    candidates = int(option(session, RANKED_CANDIDATES))
    recent = source.last_group_ids(sid, max(candidates, keep_last, 1))  # newest first
    latest = source.latest_user(sid)
    current = latest.group_id if latest is not None and latest.group_id else (recent[0] if recent else None)
    newest = int(option(session, RANKED_SEARCH_LIMIT))

    def search(words: list[str], limit: int) -> list[str]:
        return [g for g, _ in source.search_groups(sid, fts_query(words), limit + 1, newest=newest) if g != current]

    hits = search(terms, candidates)[:candidates]
    # subset rule: when the search found groups, only they are ranked by recency (newest first)
    recency = sorted(hits, reverse=True) if hits else [g for g in recent if g != current]
    top = source.messages_of_groups(sid, hits[:FEEDBACK_GROUPS]) if hits else []
    extra = expansion_terms(top, terms, int(option(session, RANKED_EXPANSION_TERMS))) if hits else []
    expanded = search(terms + extra, candidates)[:candidates] if extra else []

    def tail() -> list[str]:
        """The hits past the fused ones, from the expanded query when it found any (the
        same groups and more): a second look at the search this request already ranked."""
        if expanded:
            return [g for g in search(terms + extra, TAIL_FACTOR * candidates)[candidates:] if g not in hits]
        return search(terms, TAIL_FACTOR * candidates)[candidates : TAIL_FACTOR * candidates]

    return Candidates(current, recent, hits, tail, extra, expanded, recency, group_map(top))
