"""`ranked`: std_slop's FTS_RANKED, with the fixes it needed.

1. Query: the informative words of the latest user message (stop words and
   low-information words such as "continue", "go on", "next" removed). Nothing
   informative left -> the plain window, and the notes say so.
2. BM25: the FTS5 index over the ledger (slop.store.search) ranks the session's
   visible groups by their best-matching message (`ranked_candidates` hits, default 50,
   are fused; up to 3x more hits may follow in BM25 order when the budget has room).
3. Recency with the subset rule: when the search found groups, the recency list holds
   only those groups, newest first; when it found none, it is plain global recency.
4. Reciprocal Rank Fusion: score(g) = w_bm25 / (k + rank_bm25) + w_rec / (k + rank_rec),
   k = 60, w_bm25 = 1.5, w_rec = 1.0 (all settable with /context set). Query expansion,
   the original's suggested fix for vague prompts, adds a third ranking: BM25 for the
   query plus the 5 words most shared by the top 3 hits (pseudo-relevance feedback,
   weight 1.0; `ranked_expansion_terms 0` turns it off). Its further hits form the tail.
5. Mandatory: the current group, the last K groups (default 2, current included) and
   every group holding a system message.
6. Selection: mandatory groups, then groups by RRF score, then further BM25 hits, up to
   the window size N (/context window N; 0 = as many as fit) and always within the
   budget; when N or the budget leave room after that, the most recent remaining groups
   fill it.
7. The chosen groups are put back in chronological order; a system layer says the history has gaps.
"""

from __future__ import annotations

from slop.context.costs import group_cost, marker_tokens
from slop.context.options import option
from slop.context.rankfusion import Ranked, expansion_terms, rrf
from slop.context.selecting import group_map
from slop.context.strategies.base import ContextStrategy, HistorySource, Selection
from slop.context.strategies.ranked_search import (
    FEEDBACK_GROUPS,
    RANKED_BM25_WEIGHT,
    RANKED_EXPANSION_WEIGHT,
    RANKED_K,
    RANKED_KEEP_LAST,
    RANKED_OPTIONS,
    RANKED_RECENCY_WEIGHT,
    RANKED_RECENT_SHARE,
    Candidates,
    find_candidates,
)
from slop.context.textsearch import informative_terms
from slop.records import Message, SessionInfo
from slop.tokenestimate import estimate

__all__ = ["GAPS_LAYER", "Ranked", "RankedStrategy", "expansion_terms", "rrf"]

GAPS_LAYER = (
    "## Context Retrieval (ranked mode)\n"
    "The conversation history below was chosen by relevance to the current request and then put back in time "
    "order, so it has gaps: turns in between were left out, not lost. Do not assume nothing happened between two "
    "turns that look far apart. The ### STATE anchor is the source of truth for the overall timeline. To see what "
    "is missing, call search_history with a few keywords, or query_db on the messages table."
)

_FILL_BATCH = 50
_POINTING_HITS = 10  # top BM25 hits that decide how much the recent flow gets
_MIN_ROOM = 16  # tokens: below this nothing more fits


class RankedStrategy(ContextStrategy):
    name = "ranked"
    help = "BM25 search of the history fused with recency (RRF), last groups always kept"
    windowed = True
    kept_because = "ranked selection"
    placeholder_changes = "the ranked selection of older groups, the memos and the request's own size"
    options = RANKED_OPTIONS

    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection:
        sid = session.name
        terms = informative_terms(query)
        if not terms:
            return self._window_fallback(source, session, query)
        keep_last = int(option(session, RANKED_KEEP_LAST))
        found = find_candidates(source, session, terms)
        mandatory: list[str] = []
        for gid in [found.current, *found.recent[:keep_last], *source.system_group_ids(sid)]:
            if gid and gid not in mandatory:
                mandatory.append(gid)

        room = budget - marker_tokens() - estimate(GAPS_LAYER) if budget > 0 else 0
        share = float(option(session, RANKED_RECENT_SHARE))
        recent_note = ""
        recency_weight = 1.0
        # The recent flow first, as far as the search points there; only when the budget
        # decides how many groups go in (window 0): a window of N means "the top N groups".
        if room > 0 and share > 0 and session.context_size <= 0:
            block, pointed = self._recent_block(
                source, sid, found.current, found.recent, mandatory, found.hits, room, share
            )
            mandatory += block
            # Recency among the hits counts as much as the search says the recent part
            # matters: old evidence is not pushed down by newer, weaker matches.
            recency_weight = pointed
            recent_note = (
                f"Recent flow first: {pointed:.0%} of the top search hits (by rank weight) are in the "
                f"recent window, so the {len(block)} most recent group(s) take up to "
                f"{pointed**2 * share:.0%} of the budget, and recency among the hits weighs {pointed:.2f} "
                "of its setting."
            )
        ranked = self._fuse(session, found, recency_weight)
        cap = session.context_size  # the original's "top N groups"; 0 = as many as fit
        chosen, used, loaded = self._fill(source, sid, found, mandatory, [r.group_id for r in ranked], room, cap)
        filled: list[str] = []
        if cap <= 0 or len(chosen) < cap + len(mandatory):
            filled = self._fill_recent(source, sid, found.current, chosen, used, room, cap, len(mandatory), loaded)
            chosen += filled
        order = sorted(set(chosen))
        messages = self._chosen_messages(source, sid, order, loaded)
        gaps = bool(order) and sorted(order, reverse=True) != source.last_group_ids(sid, len(order))
        notes = self._notes(terms, found.hits, ranked, mandatory, chosen, filled, order, gaps, budget)
        if recent_note:
            notes.insert(1, recent_note)
        if found.extra:
            notes.insert(
                1,
                f"Query expansion from the top {FEEDBACK_GROUPS} hits: {' '.join(found.extra)} "
                f"({len(found.expanded)} group(s) found with it, fused as a third ranking).",
            )
        return Selection(tuple(messages), tuple(notes), GAPS_LAYER if gaps else "")

    @staticmethod
    def _chosen_messages(
        source: HistorySource, sid: str, order: list[str], loaded: dict[str | None, list[Message]]
    ) -> list[Message]:
        """The chosen groups' messages and the ungrouped ones, in ledger order: the groups
        the filling loaded already are not read (nor parsed) a second time."""
        missing = [g for g in order if g not in loaded]
        rows = source.messages_of_groups(sid, missing, include_ungrouped=True)
        rows += [m for g in order if g in loaded for m in loaded[g]]
        return sorted(rows, key=lambda m: m.id)

    @staticmethod
    def _fuse(session: SessionInfo, found: Candidates, recency_scale: float) -> list[Ranked]:
        """RRF of the BM25, recency and expanded-query rankings."""
        return rrf(
            found.hits,
            found.recency,
            k=float(option(session, RANKED_K)),
            w_bm25=float(option(session, RANKED_BM25_WEIGHT)),
            w_recency=float(option(session, RANKED_RECENCY_WEIGHT)) * recency_scale,
            expanded_order=found.expanded,
            w_expanded=float(option(session, RANKED_EXPANSION_WEIGHT)),
        )

    @staticmethod
    def _window_fallback(source: HistorySource, session: SessionInfo, query: str) -> Selection:
        messages = source.window(session.name, session.context_size)
        shown = " ".join(query.split())[:60]
        n = session.context_size
        return Selection(
            tuple(messages),
            (
                f"Strategy ranked: the request {shown!r} has no informative words to search for; "
                f"fell back to the window ({'full history' if n <= 0 else f'last {n} group(s)'}).",
            ),
        )

    def _fill(
        self,
        source: HistorySource,
        sid: str,
        found: Candidates,
        mandatory: list[str],
        ranked: list[str],
        room: int,
        cap: int,
    ) -> tuple[list[str], int, dict[str | None, list[Message]]]:
        current = found.current
        loaded = dict(found.loaded)  # the top hits, read for the query expansion
        loaded.update(group_map(source.messages_of_groups(sid, [g for g in mandatory if g not in loaded])))
        chosen: list[str] = []
        used = 0
        for gid in mandatory:
            if gid in loaded or gid == current:
                chosen.append(gid)
                used += group_cost(loaded.get(gid, []), active=gid == current)
        ranked = list(ranked)
        optional = start = 0
        tail_read = False
        while start < len(ranked) or not tail_read:  # load as far down the ranking as the room reaches
            if start >= len(ranked):  # then further BM25 hits, beyond the fused ones
                listed = set(ranked)
                ranked += [g for g in found.tail() if g not in listed]
                tail_read = True
                continue
            # no more groups than the window still takes: parsing rows is most of the cost
            end = min(len(ranked), start + (min(_FILL_BATCH, cap - optional) if cap > 0 else _FILL_BATCH))
            loaded.update(group_map(source.messages_of_groups(sid, [g for g in ranked[start:end] if g not in loaded])))
            for gid in ranked[start:end]:
                if gid in chosen or gid not in loaded:
                    continue
                if cap > 0 and optional >= cap:
                    return chosen, used, loaded
                size = group_cost(loaded[gid], active=False)
                if room > 0 and used + size > room:
                    continue  # a smaller, lower-ranked group may still fit
                chosen.append(gid)
                used += size
                optional += 1
            if (room > 0 and room - used < _MIN_ROOM) or (cap > 0 and optional >= cap):
                break
            start = end
        return chosen, used, loaded

    def _recent_block(
        self,
        source: HistorySource,
        sid: str,
        current: str | None,
        recent: list[str],
        mandatory: list[str],
        hits: list[str],
        room: int,
        share: float,
    ) -> tuple[list[str], float]:
        """The most recent groups, newest first, in a share of the room that follows the
        search: `pointed` = the part of the top BM25 hits that lie in what a plain window
        would hold. A follow-up on recent work (hits recent) gets the recent flow intact,
        paraphrases included, which no search finds; a question about old turns (hits
        old) leaves the room to the ranking. Returns (groups, pointed)."""
        loaded = group_map(source.messages_of_groups(sid, [g for g in dict.fromkeys([*mandatory, *recent]) if g]))
        used = sum(group_cost(loaded.get(g, []), active=g == current) for g in mandatory)
        window: list[str] = []  # what the plain window would hold in the whole room
        total = used
        for gid in recent:
            if gid in mandatory:
                continue
            total += group_cost(loaded.get(gid, []), active=False)
            if total > room:
                break
            window.append(gid)
        top = hits[:_POINTING_HITS]
        inside = set(window)
        weights = [1 / (1 + i) for i in range(len(top))]  # the best hits say the most
        pointed = sum(w for w, g in zip(weights, top, strict=True) if g in inside) / sum(weights) if top else 1.0
        limit = int(room * share * pointed**2)  # a few recent hits among old ones move little
        block: list[str] = []
        for gid in window:
            size = group_cost(loaded.get(gid, []), active=False)
            if used + size > limit:
                break
            block.append(gid)
            used += size
        return block, pointed

    def _fill_recent(
        self,
        source: HistorySource,
        sid: str,
        current: str | None,
        chosen: list[str],
        used: int,
        room: int,
        cap: int,
        n_mandatory: int,
        loaded: dict[str | None, list[Message]],
    ) -> list[str]:
        """Spend what is left of the window or budget on the most recent other groups."""
        if room <= 0 and cap <= 0:
            return []  # no budget and no window size: nothing bounds a fill
        taken = set(chosen)
        filled: list[str] = []
        seen = 0
        while True:
            batch = source.last_group_ids(sid, seen + _FILL_BATCH)[seen:]
            if not batch:
                return filled
            seen += len(batch)
            need = [g for g in batch if g not in taken and g not in loaded]
            loaded.update(group_map(source.messages_of_groups(sid, need)))
            for gid in batch:
                if gid in taken:
                    continue
                if cap > 0 and len(chosen) + len(filled) - n_mandatory >= cap:
                    return filled
                size = group_cost(loaded.get(gid, []), active=gid == current)
                if room > 0 and used + size > room:
                    return filled
                filled.append(gid)
                taken.add(gid)
                used += size

    @staticmethod
    def _notes(
        terms: list[str],
        hits: list[str],
        ranked: list[Ranked],
        mandatory: list[str],
        chosen: list[str],
        filled: list[str],
        order: list[str],
        gaps: bool,
        budget: int,
    ) -> list[str]:
        notes = [
            f"Strategy ranked: query terms {' '.join(terms)}; {len(hits)} matching group(s)"
            + ("" if hits else " (no match: recency only)")
            + "."
        ]
        if mandatory:
            notes.append("Always kept (current group, last groups, system messages): " + ", ".join(mandatory) + ".")
        picked = set(chosen)
        top = [r for r in ranked if r.group_id in picked and r.group_id not in mandatory][:12]
        if top:
            notes.append(
                "Chosen by RRF (score; BM25 rank; recency rank; expanded-query rank): "
                + ", ".join(
                    f"{r.group_id} ({r.score:.4f}; {r.bm25_rank or '-'}; {r.recency_rank or '-'}; "
                    f"{r.expanded_rank or '-'})"
                    for r in top
                )
                + (" …" if len([r for r in ranked if r.group_id in picked]) > len(top) else "")
                + "."
            )
        if filled:
            notes.append(
                f"Filled with {len(filled)} more recent group(s) to use the " + ("budget." if budget > 0 else "window.")
            )
        skipped = [r.group_id for r in ranked if r.group_id not in picked]
        if skipped:
            notes.append(f"Ranked but left out (window size or budget): {len(skipped)} group(s).")
        notes.append(
            f"{len(order)} group(s) in chronological order" + (" (with gaps; the model is told)." if gaps else ".")
        )
        return notes
