"""`compact`: emdash-style threshold compaction into a continuation summary.

* The context is the whole visible history. Before every model call, when the
  assembled prompt passes `compact_threshold` (0.8) of the budget, the history is
  compacted toward `compact_target` (0.5): it keeps the first user message, a
  structured continuation summary written by the model (header, Analysis and Summary
  sections, a tenth of the budget, 100-800 words; see summarize.compact_instructions)
  and the most recent
  `compact_keep_recent` (6) messages, never splitting a tool call from its results
  (fewer when those alone would exceed the target). The current request (latest user
  message) is kept too.
* Replaced rows stay in the ledger with status `compacted`, readable with query_db and
  /message show. The summary is a group of its own: /undo (or /message remove) of that
  group restores exactly what it replaced.
* Files read by tools are listed in the system prompt ("files already read", last 20)
  and the list is reset by each compaction (their contents are no longer in context).
* A compaction that fails, has no summarizer, or would not shrink the prompt changes
  nothing and says so. `/context compact` forces one.
"""

from __future__ import annotations

from dataclasses import dataclass

from slop.context.costs import cost
from slop.context.options import Option, option
from slop.context.selecting import current_group, pair_safe_cut, place_summaries
from slop.context.strategies.base import HistorySource, Maintenance, Selection, Summarizer, Upkeep
from slop.context.strategies.compacting import CompactingStrategy, shrink
from slop.context.summarize import compact_instructions, summary_words, transcript, with_header
from slop.records import Message, Role, SessionInfo
from slop.tokenestimate import estimate

FILES_READ_MAX = 20
_CHUNK_MARGIN = 64  # headers and the join text around a chunk
_MIN_CHUNK_TOKENS = 256  # a budget too small for this still gets progress, one small chunk a call

COMPACT_THRESHOLD = Option(
    "compact_threshold", 0.8, float, 0.05, 1.0, "compact", "compact when the prompt passes this share of the budget"
)
COMPACT_TARGET = Option(
    "compact_target", 0.5, float, 0.05, 1.0, "compact", "aim for this share of the budget after compaction"
)
COMPACT_KEEP_RECENT = Option("compact_keep_recent", 6, int, 0, 1000, "compact", "most recent messages kept verbatim")


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    keep: tuple[Message, ...]
    middle: tuple[Message, ...]
    anchor: int | None  # the summary goes right before this message


def ordered_history(source: HistorySource, session_id: str) -> list[Message]:
    return place_summaries(source.window(session_id, 0), source.active_summaries(session_id))


def plan_compaction(
    rows: list[Message], *, keep_recent: int, target_tokens: int, overhead: int, keep_more: bool = False
) -> CompactionPlan:
    """Split the visible history into what stays verbatim and what the summary replaces.
    `keep_more`: keep more than `keep_recent` recent messages while they fit the target
    (automatic compactions; a forced one compacts down to `keep_recent`)."""
    if not rows:
        return CompactionPlan((), (), None)
    active = current_group(rows)
    first = next((m for m in rows if m.role == Role.USER), None)
    latest = next((m for m in reversed(rows) if m.role == Role.USER), None)
    pinned = {m.id for m in (first, latest) if m is not None}
    pinned |= {m.id for m in rows if m.role == Role.SYSTEM}

    def size(msg: Message) -> int:
        return cost(msg, active=msg.group_id == active)

    def kept_tokens(cut: int) -> int:  # what stays verbatim (the summary comes on top)
        head = sum(size(m) for m in rows[:cut] if m.id in pinned)
        return head + sum(size(m) for m in rows[cut:]) + overhead

    cut = pair_safe_cut(rows, len(rows) - keep_recent)
    while target_tokens > 0 and kept_tokens(cut) > target_tokens and cut < len(rows) - 1:
        nxt = cut + 1
        while nxt < len(rows) and rows[nxt].role == Role.TOOL:
            nxt += 1
        if nxt >= len(rows):
            break
        cut = nxt
    # Keep the recent flow verbatim as far back as the target allows, not just the last
    # `keep_recent` messages: the turn before the current one is what a follow-up needs.
    while keep_more and target_tokens > 0 and cut > 0:
        back = pair_safe_cut(rows, cut - 1)
        if back >= cut or kept_tokens(back) > target_tokens:
            break
        cut = back
    middle = tuple(m for m in rows[:cut] if m.id not in pinned)
    keep = tuple(m for i, m in enumerate(rows) if m.id in pinned or i >= cut) if middle else tuple(rows)
    return CompactionPlan(keep, middle, rows[cut].id if cut < len(rows) else None)


def summary_tokens(budget: int) -> int:
    """What the summary the budget allows may cost, in tokens (a word is ~1.35)."""
    return int(summary_words(budget) * 1.4)


def summarize_within(summarize: Summarizer, middle: list[Message], budget: int) -> str:
    """The continuation summary, with every summarization request inside the budget (a
    small local model's context is exactly where compaction is needed): when the
    transcript does not fit next to the instructions and the reply, it goes in chunks,
    each call folding one more chunk into the summary so far."""
    instructions = compact_instructions(budget)
    base = estimate(instructions) + summary_tokens(budget) + _CHUNK_MARGIN  # instructions + the reply
    summary = ""
    rest = list(middle)
    part = 0
    while rest:
        room = max(_MIN_CHUNK_TOKENS, budget - base - estimate(summary))
        chunk, used = [rest.pop(0)], 0
        used = estimate(transcript(chunk))
        while rest and used + estimate(transcript(rest[:1])) <= room:
            used += estimate(transcript(rest[:1]))
            chunk.append(rest.pop(0))
        text = transcript(chunk, limit=max(1000, room * 4))  # ~4 characters a token
        part += 1
        if summary:
            text = f"Summary of the transcript so far (parts 1-{part - 1}):\n{summary}\n\nNext part:\n{text}"
        summary = summarize(instructions, text)
        if not summary or not summary.strip():
            return ""
    return summary


class CompactStrategy(CompactingStrategy):
    name = "compact"
    help = "whole history until 80% of the budget, then a model-written continuation summary"
    kept_because = "visible history"
    options = (COMPACT_THRESHOLD, COMPACT_TARGET, COMPACT_KEEP_RECENT)

    def trigger(self, session: SessionInfo) -> float:
        return float(option(session, COMPACT_THRESHOLD))

    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection:
        sid = session.name
        rows = ordered_history(source, sid)
        summaries = source.active_summaries(sid)
        files = source.files_read(sid, FILES_READ_MAX)
        notes = [
            f"Strategy compact: the whole visible history ({len(rows)} message(s)"
            + (f", {len(summaries)} continuation summar{'y' if len(summaries) == 1 else 'ies'}" if summaries else "")
            + f"); compacts when the prompt passes {self.trigger(session):.0%} of the budget, keeping the first "
            f"request, a summary and the last {int(option(session, COMPACT_KEEP_RECENT))} message(s).",
        ]
        if files:
            notes.append(f"Files already read since the last compaction: {len(files)} (listed in the system prompt).")
        return Selection(tuple(rows), tuple(notes), files_read=tuple(files))

    def maintain(self, upkeep: Upkeep) -> Maintenance:
        history, sid, budget = upkeep.history, upkeep.sid, upkeep.budget
        if budget <= 0:
            return Maintenance()
        used = upkeep.measure()
        if not self.due(upkeep, used):
            return Maintenance()
        why = (
            "forced"
            if upkeep.force
            else f"prompt at {used:,} tokens passed {self.trigger(upkeep.session):.0%} of the {budget:,}-token budget"
        )
        rows = ordered_history(history, sid)
        active = current_group(rows)
        overhead = max(0, used - sum(cost(m, active=m.group_id == active) for m in rows))
        plan = plan_compaction(
            rows,
            keep_recent=int(option(upkeep.session, COMPACT_KEEP_RECENT)),
            target_tokens=int(float(option(upkeep.session, COMPACT_TARGET)) * budget),
            overhead=overhead,
            keep_more=not upkeep.force,
        )
        summaries = history.active_summaries(sid)
        fresh = [m for m in plan.middle if m.id not in summaries]
        replaced = sum(cost(m, active=m.group_id == active) for m in plan.middle)
        if not upkeep.force and (not fresh or replaced <= summary_tokens(budget) // 2):
            return Maintenance()  # nothing worth a model call; the budget guard does the rest
        if not plan.middle:
            return self.skipped(
                history,
                sid,
                used,
                "compaction skipped: nothing to compact (only the first request, "
                "the current request and the most recent messages are left); nothing changed",
            )
        if upkeep.summarize is None:
            return self.skipped(
                history,
                sid,
                used,
                f"compaction needed ({why}) but no model provider is configured to write the summary; nothing changed",
            )
        try:
            summary = summarize_within(upkeep.summarize, list(plan.middle), budget)
        except Exception as exc:  # any provider failure: report, change nothing
            return self.skipped(
                history, sid, used, f"compaction failed: the summary call failed ({exc}); nothing changed"
            )
        if not summary or not summary.strip():
            return self.skipped(
                history, sid, used, "compaction failed: the model returned an empty summary; nothing changed"
            )
        return self._apply(upkeep, plan, with_header(summary), used, why)

    def _apply(self, upkeep: Upkeep, plan: CompactionPlan, summary: str, used: int, why: str) -> Maintenance:
        history, sid = upkeep.history, upkeep.sid
        gid = ""

        def write() -> int:
            nonlocal gid
            gid, summary_id = history.compact(
                sid,
                [m.id for m in plan.middle],
                summary,
                kind="compact",
                anchor_message_id=plan.anchor,
                tokens_before=used,
                reset_files=True,
            )
            return summary_id

        def log(after: int) -> None:
            detail = f"{len(plan.middle)} message(s) replaced by a continuation summary ({why})"
            history.log(sid, "compact", detail, gid, used, after)

        done = shrink(upkeep, used, write, log)
        if not done.kept:
            return self.skipped(history, sid, used, done.report("compaction"))
        return Maintenance(
            True,
            (
                f"context compacted: {len(plan.middle)} message(s) replaced by a continuation summary (group {gid}); "
                f"prompt {used:,} -> {done.after:,} tokens. The originals stay in the ledger (status compacted); "
                f"/undo removes the summary and restores them.",
            ),
        )
