"""Tunable parameters of the context strategies, stored per session in
`sessions.settings` (SessionInfo.options) and set with `/context set KEY VALUE`."""

from __future__ import annotations

from dataclasses import dataclass

from slop.records import SessionInfo


@dataclass(frozen=True, slots=True)
class Option:
    name: str
    default: float
    kind: type  # int or float
    low: float
    high: float
    strategy: str
    help: str


OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option("messages", 10, int, 1, 10_000, "messages", "how many recent messages the window holds"),
        Option(
            "truncate_once",
            0,
            int,
            0,
            1,
            "all",
            "1: a tool result stays whole while among the 5 newest, then is cut once to 300 characters "
            "(no 1,000 tier, no re-cut at the end of its turn); 0: three tiers",
        ),
        Option(
            "window_step",
            1,
            int,
            1,
            10_000,
            "window",
            "groups the window and the budget guard drop at once when they slide (>1: the request's "
            "prefix stays the same, and cacheable, for several turns)",
        ),
        Option(
            "max_input_chars",
            500,
            int,
            0,
            10_000_000,
            "messages",
            "longest user message accepted, in characters (0 = no limit)",
        ),
        Option("ranked_k", 60, float, 1, 1000, "ranked", "RRF constant k: score = sum of w / (k + rank)"),
        Option("ranked_bm25_weight", 1.5, float, 0, 100, "ranked", "RRF weight of the BM25 rank"),
        Option("ranked_recency_weight", 1.0, float, 0, 100, "ranked", "RRF weight of the recency rank"),
        Option(
            "ranked_keep_last", 2, int, 0, 1000, "ranked", "the last K groups are always kept (current one included)"
        ),
        Option("ranked_candidates", 50, int, 1, 1000, "ranked", "FTS hits and recent groups ranked per request"),
        Option(
            "ranked_search_limit",
            1000,
            int,
            0,
            10_000_000,
            "ranked",
            "matching messages BM25 ranks per search, newest first (0 = all; bounds the cost)",
        ),
        Option(
            "ranked_recent_share",
            1.0,
            float,
            0,
            1,
            "ranked",
            "share of the budget the most recent groups get first, before the ranked ones",
        ),
        Option(
            "ranked_expansion_terms",
            5,
            int,
            0,
            50,
            "ranked",
            "query expansion: words taken from the top 3 hits (0 = off)",
        ),
        Option("ranked_expansion_weight", 1.0, float, 0, 100, "ranked", "RRF weight of the expanded-query ranking"),
        Option(
            "compact_threshold",
            0.8,
            float,
            0.05,
            1.0,
            "compact",
            "compact when the prompt passes this share of the budget",
        ),
        Option("compact_target", 0.5, float, 0.05, 1.0, "compact", "aim for this share of the budget after compaction"),
        Option("compact_keep_recent", 6, int, 0, 1000, "compact", "most recent messages kept verbatim"),
        Option(
            "relevance_trigger", 0.5, float, 0.05, 1.0, "relevance", "score and compact at this share of the budget"
        ),
        Option("relevance_keep", 0.7, float, 0, 10, "relevance", "score >= this: KEEP"),
        Option("relevance_cutoff", 0.3, float, 0, 10, "relevance", "score <= this: DROP to cold storage"),
        Option(
            "relevance_similarity_weight", 0.6, float, 0, 10, "relevance", "weight of prompt similarity (BM25, 0-1)"
        ),
        Option(
            "relevance_recency_bonus",
            0.2,
            float,
            0,
            10,
            "relevance",
            "largest recency bonus (a group written just now)",
        ),
        Option("relevance_half_life_hours", 4.0, float, 0.001, 100_000, "relevance", "recency bonus half-life, hours"),
        Option("relevance_importance_bonus", 0.1, float, 0, 10, "relevance", "bonus of pinned groups (/context pin)"),
        Option("relevance_min_keep", 5, int, 0, 10_000, "relevance", "never keep fewer groups than this"),
        Option("archive_days", 30, float, 0, 36_500, "relevance", "days a dropped group stays recoverable"),
    )
}


def option(session: SessionInfo, name: str) -> float:
    """The session's value of `name`, or its default when unset or unreadable."""
    spec = OPTIONS[name]
    raw = session.options.get(name, spec.default)
    try:
        value = spec.kind(raw)
    except (TypeError, ValueError, OverflowError):  # a hand-edited settings row
        return spec.default
    if not spec.low <= value <= spec.high:
        return spec.default
    return float(value) if spec.kind is float else int(value)


def parse_option(name: str, text: str) -> float:
    """Validate a /context set value; raises ValueError with a message for the user."""
    spec = OPTIONS.get(name)
    if spec is None:
        raise ValueError(f"unknown setting {name!r}; known: {', '.join(OPTIONS)}")
    try:
        value = spec.kind(float(text)) if spec.kind is int and float(text).is_integer() else spec.kind(text)
    except ValueError:
        raise ValueError(
            f"{name} must be a{'' if spec.kind is int else ' decimal'} number"
            f"{' (whole)' if spec.kind is int else ''}, got {text!r}"
        ) from None
    if not spec.low <= value <= spec.high:
        raise ValueError(f"{name} must be between {spec.low:g} and {spec.high:g}, got {text}")
    return value
