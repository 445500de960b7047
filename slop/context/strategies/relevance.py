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
from dataclasses import dataclass
from datetime import datetime

from slop.context.costs import group_cost
from slop.context.options import option
from slop.context.selecting import current_group, group_map, place_summaries
from slop.context.strategies.base import HistoryEditor, HistorySource, Maintenance, Selection, Upkeep
from slop.context.strategies.compacting import CompactingStrategy, shrink
from slop.context.strategies.relevance_recovery import (
    AUTO_RECOVER_MAX,
    Recovered,
    recover,
    recover_relevant,
    request_text,
)
from slop.context.strategies.relevance_scoring import (
    ARCHIVE_DAYS,
    DROP,
    KEEP,
    RELEVANCE_OPTIONS,
    RELEVANCE_TRIGGER,
    SUMMARIZE,
    GroupScore,
    Weights,
    classify,
    keep_what_fits,
    parse_time,
    score_groups,
    similarities,
    utc_now,
)
from slop.context.summarize import RELEVANCE_INSTRUCTIONS, SUMMARY_TITLE, transcript
from slop.context.textsearch import informative_terms
from slop.records import Message, SessionInfo

__all__ = [  # the scoring and recovery halves live in their own modules; these names stay importable here
    "AUTO_RECOVER_MAX",
    "DROP",
    "KEEP",
    "SUMMARIZE",
    "GroupScore",
    "Recovered",
    "RelevanceStrategy",
    "Weights",
    "classify",
    "keep_what_fits",
    "parse_time",
    "recover",
    "recover_relevant",
    "score_groups",
    "similarities",
]
SUMMARY_WORDS = 370  # memfas' summary_target_tokens = 500


@dataclass(frozen=True, slots=True)
class _Pass:
    """One scoring pass's decisions: what goes to cold storage, what one summary replaces."""

    query: str
    groups: dict[str | None, list[Message]]
    drops: list[GroupScore]
    band: list[GroupScore]  # summarized (empty when there is no summary)
    summary: str
    days: float


class RelevanceStrategy(CompactingStrategy):
    name = "relevance"
    help = "at 50% of the budget: keep / summarize / drop groups to cold storage by relevance"
    kept_because = "kept by relevance"
    placeholder_changes = "which groups are kept or dropped, the memos and the request's own size"
    options = RELEVANCE_OPTIONS
    skipped_event = "relevance-skipped"

    def __init__(self, clock: Callable[[], datetime] = utc_now) -> None:
        self.clock = clock

    def trigger(self, session: SessionInfo) -> float:
        return float(option(session, RELEVANCE_TRIGGER))

    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection:
        sid = session.name
        query = request_text(source, sid, query)
        rows = place_summaries(source.window(sid, 0), source.active_summaries(sid))
        groups = group_map(rows)
        w = Weights.of(session)
        trigger = self.trigger(session)
        notes = [
            f"Strategy relevance: the whole visible history ({len(groups)} group(s)); at {trigger:.0%} of the "
            f"budget groups are scored (similarity x {w.similarity:g} + recency up to {w.recency_bonus:g}, "
            f"half-life {w.half_life_hours:g} h + {w.importance_bonus:g} if pinned) and kept (>= {w.keep:g}), "
            f"summarized, or dropped to cold storage (<= {w.cutoff:g})."
        ]
        scored = self._classified(source, session, query, rows, w, int(trigger * budget))
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
        self, source: HistorySource, session: SessionInfo, query: str, rows: list[Message], w: Weights, room: int
    ) -> list[GroupScore]:
        sid = session.name
        groups = group_map(rows)
        current = current_group(rows)
        sims = similarities(source, sid, query, len(groups), current)
        pinned = source.pinned_groups(sid)
        scores = score_groups(groups, sims, pinned, self.clock(), w)
        latest = source.latest_user(sid)
        recovered = source.recovered_since(sid, latest.created_at) if latest and latest.created_at else set()
        always = {gid: "pinned" for gid in pinned}
        always.update({gid: "recovered for this request" for gid in recovered})
        if current:
            always[current] = "current request"
        classified = classify(scores, w, always_keep=always, no_summary=source.summary_group_ids(sid))
        costs = {gid: group_cost(msgs, active=gid == current) for gid, msgs in groups.items() if gid}
        return keep_what_fits(classified, costs, room)

    def maintain(self, upkeep: Upkeep) -> Maintenance:
        history, sid, session, budget = upkeep.history, upkeep.sid, upkeep.session, upkeep.budget
        if budget <= 0:
            return Maintenance()
        history.expire_archive(sid)
        query = request_text(history, sid, upkeep.query)
        room = int(self.trigger(session) * budget)
        back = recover_relevant(history, session, query, room)
        used = upkeep.measure()
        came_back = (f"relevance: {len(back)} group(s) back from cold storage for this request: {', '.join(back)}",)
        if not self.due(upkeep, used) or (not upkeep.force and not informative_terms(query)):
            # not yet at the trigger, or "continue": nothing to score against
            return Maintenance(bool(back), came_back if back else ())
        rows = place_summaries(history.window(sid, 0), history.active_summaries(sid))
        scored = self._classified(history, session, query, rows, Weights.of(session), room)
        drops = [s for s in scored if s.action == DROP]
        band = [s for s in scored if s.action == SUMMARIZE]
        report: list[str] = list(came_back) if back else []
        groups = group_map(rows)
        summary = self._summary(upkeep, query, band, groups, report)
        if not drops and not summary:
            if upkeep.force:
                report.append("relevance compaction: nothing to drop or summarize; nothing changed")
            return Maintenance(bool(back), tuple(report) if upkeep.force or report else ())
        days = float(option(session, ARCHIVE_DAYS))
        return self._apply(upkeep, _Pass(query, groups, drops, band if summary else [], summary, days), used, report)

    @staticmethod
    def _summary(
        upkeep: Upkeep,
        query: str,
        band: list[GroupScore],
        groups: dict[str | None, list[Message]],
        report: list[str],
    ) -> str:
        """The model's summary of the groups to summarize, or "" (with the reason in `report`)."""
        if not band:
            return ""
        if upkeep.summarize is None:
            report.append(f"relevance: no summarizer (no model provider); {len(band)} group(s) to summarize are kept")
            return ""
        band_rows = [m for s in band for m in groups.get(s.group_id, [])]
        instructions = RELEVANCE_INSTRUCTIONS.format(words=SUMMARY_WORDS)
        try:
            summary = upkeep.summarize(instructions, f"Current request: {query}\n\n" + transcript(band_rows)).strip()
        except Exception as exc:  # report, keep the band as it is
            report.append(f"relevance: summary of {len(band)} group(s) failed ({exc}); they are kept as they are")
            return ""
        if not summary:
            report.append("relevance: the model returned an empty summary; the groups to summarize are kept")
        return summary

    def _apply(self, upkeep: Upkeep, done: _Pass, used: int, report: list[str]) -> Maintenance:
        history, sid = upkeep.history, upkeep.sid
        summary_gid: str | None = None

        def write() -> int:
            nonlocal summary_gid
            summary_gid, summary_id = self._write(history, sid, done, used)
            return summary_id

        def log(after: int) -> None:
            self._log_applied(history, sid, done, summary_gid, used, after)

        shrunk = shrink(upkeep, used, write, log)
        if not shrunk.kept:
            skipped = self.skipped(history, sid, used, shrunk.report("relevance compaction"))
            return Maintenance(False, (*report, *skipped.report))
        parts = []
        if done.drops:
            parts.append(
                f"{len(done.drops)} group(s) dropped to cold storage (/context recover QUERY brings them back)"
            )
        if done.band:
            parts.append(f"{len(done.band)} group(s) summarized (group {summary_gid}; /undo restores them)")
        summary_line = f"relevance compaction: {'; '.join(parts)}; prompt {used:,} -> {shrunk.after:,} tokens"
        return Maintenance(True, (*report, summary_line))

    @staticmethod
    def _write(history: HistoryEditor, sid: str, done: _Pass, used: int) -> tuple[str | None, int]:
        """Move the dropped and the summarized groups to cold storage and add the summary
        group (inside the caller's transaction). Returns the summary's (group id, row id)."""
        for s in done.drops:
            history.archive_group(
                sid, s.group_id, score=round(s.score, 4), prompt=done.query, reason=s.reason, days=done.days
            )
        if not done.band:
            return None, 0
        # The summarized groups go to cold storage too, not to a compaction: a later
        # request they match brings them back (a compacted group never returned).
        ids = [m.id for s in done.band for m in done.groups.get(s.group_id, [])]
        for s in done.band:
            history.archive_group(
                sid,
                s.group_id,
                score=round(s.score, 4),
                prompt=done.query,
                reason=f"summarized ({s.reason})",
                days=done.days,
            )
        text = f"{SUMMARY_TITLE} (groups {', '.join(s.group_id for s in done.band)})\n{done.summary}"
        return history.compact(
            sid, [], text, kind="relevance", anchor_message_id=min(ids) if ids else None, tokens_before=used
        )

    @staticmethod
    def _log_applied(
        history: HistoryEditor, sid: str, done: _Pass, summary_gid: str | None, used: int, after: int
    ) -> None:
        """The ledger's record of one applied pass: each drop, the summary, and the totals."""
        for s in done.drops:
            history.log(sid, "drop", f"score {s.score:.2f} ({s.reason}); prompt: {done.query[:120]}", s.group_id)
        if done.band:
            history.log(
                sid,
                "summarize",
                f"{len(done.band)} group(s): " + ", ".join(f"{s.group_id} ({s.score:.2f})" for s in done.band),
                summary_gid,
            )
        history.log(
            sid,
            "relevance",
            f"{len(done.drops)} dropped to cold storage, {len(done.band)} summarized",
            summary_gid,
            used,
            after,
        )
