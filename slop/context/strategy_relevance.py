"""`relevance`: memfas-style pre-emptive compaction by relevance, with cold storage.

Before every model call, once the prompt passes `relevance_trigger` (0.5) of the
budget, every visible group is scored against the current request:

    score = similarity x relevance_similarity_weight (0.6)
          + relevance_recency_bonus (0.2) x 0.5 ** (age_hours / relevance_half_life_hours (4))
          + relevance_importance_bonus (0.1) if pinned (/context pin GID)

similarity is the group's BM25 score for the request's informative words, divided by
the best group's score (0..1). (Embedding similarity through a provider's embedding
API is not implemented: slop's providers have no embedding call yet.)

Classification: score >= 0.7 KEEP, <= 0.3 DROP, else SUMMARIZE; if fewer than
`relevance_min_keep` (5) groups would stay, the best DROPs become SUMMARIZE. The current
group, pinned groups and groups recovered for this request are always kept; summaries
are never summarized again. SUMMARIZE groups are condensed by the model into one
summary group (kept as they are when no summarizer is available); DROP groups go to
cold storage (status `archived` + a `context_archive` row: score, prompt at drop,
expiry after `archive_days` (30)). `/context recover QUERY` and the `recover_context`
tool bring them back. Every compaction, drop and recovery is logged (/context log).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from slop.context.options import option
from slop.context.selecting import current_group, group_map, place_summaries
from slop.context.strategies import HistoryEditor, HistorySource, Maintenance, Measure, Selection, Summarizer
from slop.context.summarize import RELEVANCE_INSTRUCTIONS, SUMMARY_TITLE, transcript
from slop.context.textsearch import fts_query, informative_terms, jaccard, keywords
from slop.records import Message, SessionInfo

KEEP, SUMMARIZE, DROP = "KEEP", "SUMMARIZE", "DROP"
SUMMARY_WORDS = 370  # memfas' summary_target_tokens = 500


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
    similarity: float = 0.6
    recency_bonus: float = 0.2
    half_life_hours: float = 4.0
    importance_bonus: float = 0.1
    keep: float = 0.7
    cutoff: float = 0.3
    min_keep: int = 5

    @classmethod
    def of(cls, session: SessionInfo) -> Weights:
        return cls(
            similarity=float(option(session, "relevance_similarity_weight")),
            recency_bonus=float(option(session, "relevance_recency_bonus")),
            half_life_hours=float(option(session, "relevance_half_life_hours")),
            importance_bonus=float(option(session, "relevance_importance_bonus")),
            keep=float(option(session, "relevance_keep")),
            cutoff=float(option(session, "relevance_cutoff")),
            min_keep=int(option(session, "relevance_min_keep")),
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


def similarities(source: HistorySource, session_id: str, query: str, limit: int) -> dict[str, float]:
    """BM25 similarity of visible groups to the query's informative words, scaled to 0..1."""
    terms = informative_terms(query)
    if not terms or limit <= 0:
        return {}
    hits = source.search_groups(session_id, fts_query(terms), limit)
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


class RelevanceStrategy:
    name = "relevance"

    def __init__(self, clock: Callable[[], datetime] = utc_now) -> None:
        self.clock = clock

    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection:
        sid = session.name
        rows = place_summaries(source.window(sid, 0), source.active_summaries(sid))
        groups = group_map(rows)
        w = Weights.of(session)
        trigger = float(option(session, "relevance_trigger"))
        notes = [
            f"Strategy relevance: the whole visible history ({len(groups)} group(s)); at {trigger:.0%} of the "
            f"budget groups are scored (similarity x {w.similarity:g} + recency up to {w.recency_bonus:g}, "
            f"half-life {w.half_life_hours:g} h + {w.importance_bonus:g} if pinned) and kept (>= {w.keep:g}), "
            f"summarized, or dropped to cold storage (<= {w.cutoff:g})."
        ]
        scored = self._classified(source, session, query, rows, w)
        if scored:
            shown = sorted(scored, key=lambda s: -s.score)[:15]
            notes.append(
                "Scores for the current request (sim + recency + importance = score -> action): "
                + "; ".join(
                    f"{s.group_id} {s.similarity:.2f}+{s.recency:.2f}+{s.importance:.2f}={s.score:.2f} -> {s.action}"
                    for s in shown
                )
                + (" …" if len(scored) > len(shown) else "")
                + "."
            )
        pinned = source.pinned_groups(sid)
        if pinned:
            notes.append("Pinned: " + ", ".join(sorted(pinned)) + ".")
        return Selection(tuple(rows), tuple(notes))

    def _classified(
        self, source: HistorySource, session: SessionInfo, query: str, rows: list[Message], w: Weights
    ) -> list[GroupScore]:
        sid = session.name
        groups = group_map(rows)
        current = current_group(rows)
        sims = similarities(source, sid, query, len(groups))
        pinned = source.pinned_groups(sid)
        scores = score_groups(groups, sims, pinned, self.clock(), w)
        latest = source.latest_user(sid)
        recovered = source.recovered_since(sid, latest.created_at) if latest and latest.created_at else set()
        always = {gid: "pinned" for gid in pinned}
        always.update({gid: "recovered for this request" for gid in recovered})
        if current:
            always[current] = "current request"
        return classify(scores, w, always_keep=always, no_summary=source.summary_group_ids(sid))

    def maintain(
        self,
        history: HistoryEditor,
        session: SessionInfo,
        query: str,
        budget: int,
        measure: Measure,
        summarize: Summarizer | None,
        force: bool = False,
    ) -> Maintenance:
        sid = session.name
        if budget <= 0:
            return Maintenance()
        history.expire_archive(sid)
        trigger = float(option(session, "relevance_trigger"))
        used = measure()
        if not force and used < trigger * budget:
            return Maintenance()
        if not force and not informative_terms(query):
            return Maintenance()  # "continue": nothing to score against; wait for a real request
        w = Weights.of(session)
        rows = place_summaries(history.window(sid, 0), history.active_summaries(sid))
        groups = group_map(rows)
        scored = self._classified(history, session, query, rows, w)
        drops = [s for s in scored if s.action == DROP]
        band = [s for s in scored if s.action == SUMMARIZE]
        report: list[str] = []
        summary = ""
        if band and summarize is not None:
            band_rows = [m for s in band for m in groups.get(s.group_id, [])]
            instructions = RELEVANCE_INSTRUCTIONS.format(words=SUMMARY_WORDS)
            try:
                summary = summarize(instructions, f"Current request: {query}\n\n" + transcript(band_rows)).strip()
            except Exception as exc:  # report, keep the band as it is
                report.append(f"relevance: summary of {len(band)} group(s) failed ({exc}); they are kept as they are")
            if not summary and not report:
                report.append("relevance: the model returned an empty summary; the groups to summarize are kept")
        elif band:
            report.append(f"relevance: no summarizer (no model provider); {len(band)} group(s) to summarize are kept")
        if not drops and not summary:
            if force:
                report.append("relevance compaction: nothing to drop or summarize; nothing changed")
            return Maintenance(False, tuple(report) if force or report else ())
        return self._apply(
            history,
            sid,
            query,
            groups,
            drops,
            band if summary else [],
            summary,
            used,
            measure,
            float(option(session, "archive_days")),
            report,
        )

    def _apply(
        self,
        history: HistoryEditor,
        sid: str,
        query: str,
        groups: dict[str | None, list[Message]],
        drops: list[GroupScore],
        band: list[GroupScore],
        summary: str,
        used: int,
        measure: Measure,
        days: float,
        report: list[str],
    ) -> Maintenance:
        applied = False
        after = used
        summary_gid: str | None = None
        summary_id = 0
        with history.atomic():
            for s in drops:
                history.archive_group(
                    sid, s.group_id, score=round(s.score, 4), prompt=query, reason=s.reason, days=days
                )
            if band:
                ids = [m.id for s in band for m in groups.get(s.group_id, [])]
                text = f"{SUMMARY_TITLE} (groups {', '.join(s.group_id for s in band)})\n{summary}"
                summary_gid, summary_id = history.compact(
                    sid,
                    ids,
                    text,
                    kind="relevance",
                    anchor_message_id=min(ids) if ids else None,
                    tokens_before=used,
                )
            after = measure()
            if after >= used:
                raise history.rollback_error()
            if band:
                history.set_compaction_tokens(summary_id, after)
            for s in drops:
                history.log(sid, "drop", f"score {s.score:.2f} ({s.reason}); prompt: {query[:120]}", s.group_id)
            if band:
                history.log(
                    sid,
                    "summarize",
                    f"{len(band)} group(s): " + ", ".join(f"{s.group_id} ({s.score:.2f})" for s in band),
                    summary_gid,
                )
            history.log(
                sid,
                "relevance",
                f"{len(drops)} dropped to cold storage, {len(band)} summarized",
                summary_gid,
                used,
                after,
            )
            applied = True
        if not applied:
            message = (
                f"relevance compaction would not shrink the prompt ({used:,} -> {after:,} tokens); nothing changed"
            )
            history.log(sid, "relevance-skipped", message, tokens_before=used)
            return Maintenance(False, (*report, message))
        parts = []
        if drops:
            parts.append(f"{len(drops)} group(s) dropped to cold storage (/context recover QUERY brings them back)")
        if band:
            parts.append(f"{len(band)} group(s) summarized (group {summary_gid}; /undo restores them)")
        summary_line = f"relevance compaction: {'; '.join(parts)}; prompt {used:,} -> {after:,} tokens"
        return Maintenance(True, (*report, summary_line))


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
        with history.atomic():
            if history.recover_group(session_id, entry.group_id):
                history.log(session_id, "recover", f"overlap {overlap:.2f} with {query[:120]!r}", entry.group_id)
                preview = " ".join(entry.text.split())[:120]
                out.append(Recovered(entry.group_id, overlap, entry.prompt_at_drop, preview))
    return out
