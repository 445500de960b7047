"""The relevance strategy's scores: similarity, recency, importance; KEEP / SUMMARIZE /
DROP by thresholds; then what matches the request and fits is kept (see
strategies/relevance.py for the whole design)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone

from slop.context.options import Option, option
from slop.context.strategies.base import HistorySource
from slop.context.textsearch import fts_query, informative_terms
from slop.records import Message, SessionInfo

KEEP, SUMMARIZE, DROP = "KEEP", "SUMMARIZE", "DROP"

RELEVANCE_TRIGGER = Option(
    "relevance_trigger", 0.5, float, 0.05, 1.0, "relevance", "score and compact at this share of the budget"
)
RELEVANCE_KEEP = Option("relevance_keep", 0.7, float, 0, 10, "relevance", "score >= this: KEEP")
RELEVANCE_CUTOFF = Option("relevance_cutoff", 0.3, float, 0, 10, "relevance", "score <= this: DROP to cold storage")
RELEVANCE_SIMILARITY_WEIGHT = Option(
    "relevance_similarity_weight", 0.6, float, 0, 10, "relevance", "weight of prompt similarity (BM25, 0-1)"
)
RELEVANCE_RECENCY_BONUS = Option(
    "relevance_recency_bonus", 0.2, float, 0, 10, "relevance", "largest recency bonus (a group written just now)"
)
RELEVANCE_HALF_LIFE_HOURS = Option(
    "relevance_half_life_hours", 4.0, float, 0.001, 100_000, "relevance", "recency bonus half-life, hours"
)
RELEVANCE_IMPORTANCE_BONUS = Option(
    "relevance_importance_bonus", 0.1, float, 0, 10, "relevance", "bonus of pinned groups (/context pin)"
)
RELEVANCE_MIN_KEEP = Option("relevance_min_keep", 5, int, 0, 10_000, "relevance", "never keep fewer groups than this")
ARCHIVE_DAYS = Option("archive_days", 30, float, 0, 36_500, "relevance", "days a dropped group stays recoverable")
RELEVANCE_OPTIONS = (
    RELEVANCE_TRIGGER,
    RELEVANCE_KEEP,
    RELEVANCE_CUTOFF,
    RELEVANCE_SIMILARITY_WEIGHT,
    RELEVANCE_RECENCY_BONUS,
    RELEVANCE_HALF_LIFE_HOURS,
    RELEVANCE_IMPORTANCE_BONUS,
    RELEVANCE_MIN_KEEP,
    ARCHIVE_DAYS,
)


@dataclass(frozen=True, slots=True)
class GroupScore:
    group_id: str
    similarity: float
    recency: float
    importance: float
    score: float
    action: str = KEEP
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Weights:
    """The scoring settings, defaults those of the options `of` reads."""

    similarity: float = RELEVANCE_SIMILARITY_WEIGHT.default
    recency_bonus: float = RELEVANCE_RECENCY_BONUS.default
    half_life_hours: float = RELEVANCE_HALF_LIFE_HOURS.default
    importance_bonus: float = RELEVANCE_IMPORTANCE_BONUS.default
    keep: float = RELEVANCE_KEEP.default
    cutoff: float = RELEVANCE_CUTOFF.default
    min_keep: int = int(RELEVANCE_MIN_KEEP.default)

    @classmethod
    def of(cls, session: SessionInfo) -> Weights:
        return cls(
            similarity=float(option(session, RELEVANCE_SIMILARITY_WEIGHT)),
            recency_bonus=float(option(session, RELEVANCE_RECENCY_BONUS)),
            half_life_hours=float(option(session, RELEVANCE_HALF_LIFE_HOURS)),
            importance_bonus=float(option(session, RELEVANCE_IMPORTANCE_BONUS)),
            keep=float(option(session, RELEVANCE_KEEP)),
            cutoff=float(option(session, RELEVANCE_CUTOFF)),
            min_keep=int(option(session, RELEVANCE_MIN_KEEP)),
        )


def parse_time(text: str) -> datetime | None:
    for fmt in ("%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def similarities(
    source: HistorySource, session_id: str, query: str, limit: int, current: str | None = None
) -> dict[str, float]:
    """BM25 similarity of visible groups to the query's informative words, scaled to 0..1
    against the best group other than the current one: the current group holds the
    request itself, so scaled against it no other group could ever reach KEEP."""
    terms = informative_terms(query)
    if not terms or limit <= 0:
        return {}
    hits = [(g, s) for g, s in source.search_groups(session_id, fts_query(terms), limit + 1) if g != current]
    best = min((s for _, s in hits), default=0.0)
    if best >= 0:
        return {g: 1.0 for g, _ in hits}
    return {g: max(0.0, s / best) for g, s in hits}


def score_groups(
    groups: dict[str | None, list[Message]], sims: dict[str, float], pinned: set[str], now: datetime, w: Weights
) -> list[GroupScore]:
    out = []
    for gid, rows in groups.items():
        if gid is None:
            continue
        times = [t for t in (parse_time(m.created_at) for m in rows) if t is not None]
        age = max(0.0, (now - max(times)).total_seconds() / 3600) if times else 0.0
        sim = sims.get(gid, 0.0) * w.similarity
        rec = w.recency_bonus * 0.5 ** (age / w.half_life_hours)
        imp = w.importance_bonus if gid in pinned else 0.0
        out.append(GroupScore(gid, sim, rec, imp, sim + rec + imp))
    return out


def classify(
    scores: list[GroupScore], w: Weights, *, always_keep: dict[str, str], no_summary: set[str]
) -> list[GroupScore]:
    """KEEP / SUMMARIZE / DROP by the thresholds, then the minimum-kept rule."""
    out = []
    for s in scores:
        if s.group_id in always_keep:
            out.append(replace(s, action=KEEP, reason=always_keep[s.group_id]))
        elif s.score >= w.keep:
            out.append(replace(s, action=KEEP, reason=f"score >= {w.keep:g}"))
        elif s.score <= w.cutoff:
            out.append(replace(s, action=DROP, reason=f"score <= {w.cutoff:g}"))
        elif s.group_id in no_summary:
            out.append(replace(s, action=KEEP, reason="already a summary"))
        else:
            out.append(replace(s, action=SUMMARIZE, reason=f"{w.cutoff:g} < score < {w.keep:g}"))
    staying = sum(1 for s in out if s.action != DROP)
    if staying < w.min_keep:
        drops = sorted((s for s in out if s.action == DROP), key=lambda s: (-s.score, s.group_id))
        promote = {s.group_id for s in drops[: w.min_keep - staying]}
        out = [
            replace(
                s,
                action=KEEP if s.group_id in no_summary else SUMMARIZE,
                reason=f"promoted: at least {w.min_keep} groups stay",
            )
            if s.group_id in promote
            else s
            for s in out
        ]
    return out


def keep_what_fits(scores: list[GroupScore], costs: dict[str, int], room: int) -> list[GroupScore]:
    """KEEP, best score first, the groups that match the request while the kept groups
    fit in `room` (the trigger level): the thresholds alone keep nothing old (without
    the recency bonus the best possible score is similarity x 0.6 < 0.7), yet the one
    old turn the request is about is the last thing to summarize away."""
    if room <= 0:
        return scores
    used = sum(costs.get(s.group_id, 0) for s in scores if s.action == KEEP)
    promote: set[str] = set()
    for s in sorted((s for s in scores if s.action != KEEP and s.similarity > 0), key=lambda s: (-s.score, s.group_id)):
        size = costs.get(s.group_id, 0)
        if used + size <= room:
            promote.add(s.group_id)
            used += size
    return [
        replace(s, action=KEEP, reason="matches the request and fits") if s.group_id in promote else s for s in scores
    ]
