"""Cold storage recovery for the relevance strategy: by query (`/context recover`, the
recover_context tool) and automatic, for the groups the current request is about."""

from __future__ import annotations

from dataclasses import dataclass

from slop.context.strategies.base import HistoryEditor, HistorySource
from slop.context.strategies.relevance_scoring import Weights
from slop.context.textsearch import fts_query, informative_terms, jaccard, keywords
from slop.records import SessionInfo
from slop.tokenestimate import estimate

AUTO_RECOVER_MAX = 20  # groups brought back from cold storage per request, at most


def request_text(source: HistorySource, session_id: str, fallback: str) -> str:
    """The user's current request (the latest visible user message), whatever group is
    newest: scoring against anything else (a summary's empty prompt) scores nothing."""
    latest = source.latest_user(session_id)
    return latest.content if latest is not None and latest.content.strip() else fallback


def recover_relevant(history: HistoryEditor, session: SessionInfo, query: str, room: int) -> list[str]:
    """Bring back from cold storage the groups the request is about: those whose BM25
    match with the request is strong enough, relative to the best visible or archived match,
    as staying needs (similarity x weight + the largest recency bonus > cutoff), best
    first, up to AUTO_RECOVER_MAX groups in `room` tokens (half the trigger level). memfas
    planned this as recovery on a topic shift; without it a topic dropped once never
    returns unless someone asks for it."""
    sid = session.name
    terms = informative_terms(query)
    if not terms:
        return []
    w = Weights.of(session)
    latest = history.latest_user(sid)
    current = latest.group_id if latest is not None else None
    archived = history.search_archived(sid, fts_query(terms), AUTO_RECOVER_MAX * 4)
    if not archived:
        return []
    visible = [s for g, s in history.search_groups(sid, fts_query(terms), 2) if g != current]
    best = min([s for _, s in archived] + visible)
    if best >= 0 or w.similarity <= 0:
        return []
    # would score above the cutoff (not be dropped again) with the largest recency bonus
    need = max(0.0, (w.cutoff - w.recency_bonus) / w.similarity)
    good = [g for g, s in archived if s / best > need]
    texts = {a.group_id: a.text for a in history.archived(sid, good)}
    wanted: list[str] = []
    spent = 0
    for gid in good[:AUTO_RECOVER_MAX]:
        size = estimate(texts.get(gid, ""))
        if room > 0 and spent + size > room:
            continue
        wanted.append(gid)
        spent += size
    back: list[str] = []
    for gid in wanted:
        with history.edit():
            if history.recover_group(sid, gid):
                history.log(sid, "recover", f"automatic: matches the request {query[:120]!r}", gid)
                back.append(gid)
    return back


@dataclass(frozen=True, slots=True)
class Recovered:
    group_id: str
    overlap: float  # Jaccard overlap of keywords with the query
    prompt_at_drop: str
    preview: str


def recover(history: HistoryEditor, session_id: str, query: str, limit: int = 3) -> list[Recovered]:
    """Bring back the cold-storage groups that best match `query` (FTS5 finds the
    candidates, keyword Jaccard overlap ranks them, BM25 breaks ties). Expired entries
    are not recoverable. Raises ValueError when the query has no informative words."""
    terms = informative_terms(query)
    if not terms:
        raise ValueError(f"{query!r} has no words to search for; name something the dropped turns were about")
    history.expire_archive(session_id)
    hits = history.search_archived(session_id, fts_query(terms), max(20, limit * 10))
    rank = {gid: i for i, (gid, _) in enumerate(hits)}
    entries = history.archived(session_id, list(rank))
    wanted = keywords(query)
    ordered = sorted(entries, key=lambda a: (-jaccard(wanted, keywords(a.text)), rank.get(a.group_id, 0)))
    out: list[Recovered] = []
    for entry in ordered[: max(0, limit)]:
        overlap = jaccard(wanted, keywords(entry.text))
        with history.edit():
            if history.recover_group(session_id, entry.group_id):
                history.log(session_id, "recover", f"overlap {overlap:.2f} with {query[:120]!r}", entry.group_id)
                preview = " ".join(entry.text.split())[:120]
                out.append(Recovered(entry.group_id, overlap, entry.prompt_at_drop, preview))
    return out
