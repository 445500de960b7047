#!/usr/bin/env python3
"""Context quality on real conversations: how much of each question's evidence is in the
context that slop's strategies assemble, under a token budget.

    python scripts/bench_context_quality.py --data FILE [--budget 2000,4000,8000] [--mode end|mid]
        [--strategy window,messages,ranked,compact,relevance,bm25] [--limit N] [--json]

FILE is in LoCoMo format (a list of {sample_id, conversation{speaker_a, speaker_b,
session_N[{speaker, dia_id, text}], session_N_date_time}, qa[{question, evidence[...],
category}]}); any file of that shape works. Each conversation becomes a slop ledger (a
real Store on a temp file): a speaker_a turn opens a group as the user message, the
turns that follow join it as assistant messages. Each question is then asked as the
next user message and the prompt is built by slop's own path (ContextService: the
strategy's select, then assemble() with its budget guard), inside a transaction that is
rolled back afterwards. Score: the share of the question's evidence turns present in
the prompt's history; unresolvable evidence ids are skipped, and so are questions left
without any.

Modes: `end` asks every question after the last session; `mid` asks each question
right after the session following its last evidence (when that evidence is recent).

compact and relevance rewrite the ledger as it grows (maintenance before every user
turn, as in a live session) and need a summarizer: no model runs here, so they use
slop.context.summarize.extractive_summary, a deterministic extractive stand-in. Their
summaries are not counted as evidence (only the original turns are).

`relevance+recover` is relevance plus one recover_context call with the question before
the prompt is assembled (what an agent is told to do when it misses something).

`bm25` is a baseline, not a slop mode: groups in plain BM25 order (stop words removed)
until the budget is full. The prompt has no system prompt or tools, so the budget is
spent on history (the guidelines layer, ~250 tokens, still counts)."""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slop.context.costs import group_cost, marker_tokens
from slop.context.selecting import group_map
from slop.context.strategies.base import HistorySource, Selection
from slop.context.strategies.catalog import builtin_strategies
from slop.context.strategies.relevance import recover
from slop.context.summarize import extractive_summary
from slop.context.textsearch import fts_query, informative_terms
from slop.context.tokens import Tokenizer
from slop.records import NewMessage, Role, SessionInfo
from slop.snapshot import ContextService
from slop.store import Store
from slop.store.memos import Memos
from slop.tokenestimate import estimate

MAINTAINING = ("compact", "relevance")
# Benchmark-only variant: relevance, plus one recover_context call with the question (as
# an agent would make) before the prompt is assembled.
VARIANTS = {"relevance+recover": "relevance"}
DEFAULT_STRATEGIES = ("window", "messages", "ranked", "compact", "relevance", "relevance+recover", "bm25")


def mode_of(strategy: str) -> str:
    return VARIANTS.get(strategy, strategy)


# ---- loading ---------------------------------------------------------------------------
@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str


@dataclass
class Question:
    text: str
    evidence: list[str]  # resolvable dia ids
    category: int | str
    ask_after: int  # index into Conversation.sessions


@dataclass
class Conversation:
    sample_id: str
    speaker_a: str
    sessions: list[tuple[str, list[Turn]]]  # (date, turns), in session order
    questions: list[Question] = field(default_factory=list)
    skipped_evidence: int = 0
    skipped_questions: int = 0


def _session_number(key: str) -> int | None:
    m = re.fullmatch(r"session_(\d+)", key)
    return int(m.group(1)) if m else None


def _turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text") or "")
    caption = turn.get("blip_caption")
    if caption:
        text += f" [shares a photo: {caption}]"
    return text


def load(path: str | Path, mode: str = "end") -> list[Conversation]:
    raw = json.loads(Path(path).read_text())
    if isinstance(raw, dict):
        raw = [raw]
    out = []
    for i, sample in enumerate(raw):
        conv = sample["conversation"]
        numbers = sorted(n for key in conv if (n := _session_number(key)) is not None and isinstance(conv[key], list))
        sessions: list[tuple[str, list[Turn]]] = []
        where: dict[str, int] = {}
        for n in numbers:
            turns = [Turn(str(t["dia_id"]), str(t.get("speaker", "")), _turn_text(t)) for t in conv[f"session_{n}"]]
            for t in turns:
                where[t.dia_id] = len(sessions)
            sessions.append((str(conv.get(f"session_{n}_date_time", "")), turns))
        c = Conversation(str(sample.get("sample_id", f"conv-{i}")), str(conv.get("speaker_a", "")), sessions)
        last = len(sessions) - 1
        for qa in sample.get("qa", []):
            ids = [e.strip() for raw_id in qa.get("evidence", []) for e in re.split(r"[;,]", str(raw_id)) if e.strip()]
            good = [e for e in dict.fromkeys(ids) if e in where]
            c.skipped_evidence += len(ids) - len(good)
            if not good:
                c.skipped_questions += 1
                continue
            ask = last if mode == "end" else min(last, max(where[e] for e in good) + 1)
            c.questions.append(Question(str(qa.get("question", "")), good, qa.get("category", ""), ask))
        out.append(c)
    return out


# ---- the bm25 baseline -------------------------------------------------------------------
class BM25Baseline:
    """Plain BM25 order (no recency, no mandatory groups beyond the question) until the
    budget is full; chronological order. A reference point, not a slop mode."""

    name = "bm25"

    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection:
        sid = session.name
        latest = source.latest_user(sid)
        current = latest.group_id if latest else None
        terms = informative_terms(query)
        hits = [g for g, _ in source.search_groups(sid, fts_query(terms), 400) if g != current] if terms else []
        loaded = group_map(source.messages_of_groups(sid, [g for g in [current, *hits] if g]))
        chosen = [current] if current else []
        used = group_cost(loaded.get(current, []), active=True) + marker_tokens()
        for gid in hits:
            size = group_cost(loaded.get(gid, []), active=False)
            if budget > 0 and used + size > budget:
                continue
            chosen.append(gid)
            used += size
        return Selection(tuple(source.messages_of_groups(sid, sorted(g for g in chosen if g))))


# ---- running -------------------------------------------------------------------------------
class _Rollback(Exception):
    pass


@contextlib.contextmanager
def rolled_back(store: Store) -> Iterator[None]:
    """Everything inside happens in one transaction that is then undone."""
    with contextlib.suppress(_Rollback), store.db.transaction():
        yield
        raise _Rollback


def service_for(store: Store, count: Any, exact: bool) -> ContextService:
    strategies: dict[str, Any] = dict(builtin_strategies())
    strategies["bm25"] = BM25Baseline()
    return ContextService(store, Memos(store.db), lambda: (), strategies, count, lambda: exact, system_prompt="")


def evaluate(
    service: ContextService, sid: str, question: Question, combos: list[tuple[str, int]], idmap: dict[int, str]
) -> list[float]:
    """Ask `question` as the next user message and score each (strategy, budget); the
    ledger is left exactly as it was."""
    store = service.store
    out = []
    with rolled_back(store):
        gid = store.messages.new_group_id()
        store.messages.append(sid, gid, NewMessage(Role.USER, question.text))
        for strategy, budget in combos:
            store.sessions.update_settings(sid, context_mode=mode_of(strategy), budget=budget)
            if strategy == "relevance+recover" and informative_terms(question.text):
                recover(service.source(), sid, question.text)
            if mode_of(strategy) in MAINTAINING:
                service.maintain(sid, "openai", "", extractive_summary)
            prompt = service.prompt(sid, "openai", "")
            present = {idmap[e.message.id] for e in prompt.history if e.message.id in idmap}
            out.append(sum(1 for e in question.evidence if e in present) / len(question.evidence))
    return out


def ingest_turns(
    store: Store, sid: str, conv: Conversation, index: int, idmap: dict[int, str], service: ContextService | None = None
) -> None:
    """Append one session: a speaker_a turn opens a group; the replies join it. With a
    maintaining strategy, run its maintenance before each user turn is answered."""
    date, turns = conv.sessions[index]
    gid = store.messages.last_group_id(sid)
    for j, turn in enumerate(turns):
        text = f"{turn.speaker}: {turn.text}"
        if j == 0 and date:
            text = f"({date}) {text}"
        if turn.speaker == conv.speaker_a or gid is None:
            gid = store.messages.new_group_id()
            idmap[store.messages.append(sid, gid, NewMessage(Role.USER, text))] = turn.dia_id
            if service is not None:
                service.maintain(sid, "openai", "", extractive_summary)
        else:
            idmap[store.messages.append(sid, gid, NewMessage(Role.ASSISTANT, text))] = turn.dia_id


def passes_for(strategies: list[str], budgets: list[int]) -> list[tuple[list[tuple[str, int]], str | None]]:
    """Ledgers to build: one shared by the read-only strategies, one per (maintaining
    strategy, budget) because those rewrite the ledger as it grows."""
    passes: list[tuple[list[tuple[str, int]], str | None]] = []
    shared = [(s, b) for s in strategies if mode_of(s) not in MAINTAINING for b in budgets]
    if shared:
        passes.append((shared, None))
    for mode in dict.fromkeys(mode_of(s) for s in strategies if mode_of(s) in MAINTAINING):
        variants = [s for s in strategies if mode_of(s) == mode]
        passes += [([(s, b) for s in variants], mode) for b in budgets]
    return passes


def run_pass(
    conv: Conversation, combos: list[tuple[str, int]], maintaining: str | None, workdir: str, exact_wanted: bool = True
) -> dict[tuple[str, int], list[float]]:
    tokenizer = Tokenizer()
    exact = exact_wanted and tokenizer.exact
    count = tokenizer.count if exact else estimate
    scores: dict[tuple[str, int], list[float]] = {c: [] for c in combos}
    with tempfile.NamedTemporaryFile(dir=workdir, suffix=".db", delete=False) as handle:
        path = handle.name
    store = Store.open(path, count)
    try:
        service = service_for(store, count, exact)
        sid = conv.sample_id
        store.sessions.set_context_size(sid, 0)  # window = plain recency up to the budget
        if maintaining:
            store.sessions.update_settings(sid, context_mode=maintaining, budget=combos[0][1])
        idmap: dict[int, str] = {}
        for index in range(len(conv.sessions)):
            ingest_turns(store, sid, conv, index, idmap, service if maintaining else None)
            for q in (q for q in conv.questions if q.ask_after == index):
                for combo, value in zip(combos, evaluate(service, sid, q, combos, idmap), strict=True):
                    scores[combo].append(value)
    finally:
        store.close()
    return scores


def run_all(
    conversations: list[Conversation], strategies: list[str], budgets: list[int], jobs: int, exact: bool = True
) -> dict[tuple[str, int], list[float]]:
    totals: dict[tuple[str, int], list[float]] = {(s, b): [] for s in strategies for b in budgets}
    passes = passes_for(strategies, budgets)
    units = [(conv, combos, maintaining) for conv in conversations for combos, maintaining in passes]
    with tempfile.TemporaryDirectory(prefix="slop-bench-quality-") as tmp:
        if jobs <= 1 or len(units) <= 1:
            results = [run_pass(c, combos, m, tmp, exact) for c, combos, m in units]
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                futures = [pool.submit(run_pass, c, combos, m, tmp, exact) for c, combos, m in units]
                results = [f.result() for f in futures]
    for scores in results:
        for key, values in scores.items():
            totals[key] += values
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="a LoCoMo-format JSON file")
    parser.add_argument("--budget", default="2000,4000,8000", help="comma-separated prompt budgets (tokens)")
    parser.add_argument("--mode", choices=("end", "mid"), default="end")
    parser.add_argument("--strategy", default=",".join(DEFAULT_STRATEGIES), help="comma-separated strategies")
    parser.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--json", action="store_true", help="print JSON results")
    args = parser.parse_args(argv)
    budgets = [int(b) for b in args.budget.split(",") if b.strip()]
    strategies = [s.strip() for s in args.strategy.split(",") if s.strip()]
    known = {*builtin_strategies(), "bm25", *VARIANTS}
    unknown = [s for s in strategies if s not in known]
    if unknown:
        parser.error(f"unknown strategy {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    conversations = load(args.data, args.mode)
    if args.limit > 0:
        conversations = conversations[: args.limit]
    tokenizer = Tokenizer()
    tokenizer.count("x")  # load it, for its name
    started = time.perf_counter()
    totals = run_all(conversations, strategies, budgets, args.jobs)
    elapsed = time.perf_counter() - started
    results = [
        {
            "strategy": s,
            "budget": b,
            "mode": args.mode,
            "recall": round(statistics.fmean(totals[(s, b)]), 4) if totals[(s, b)] else 0.0,
            "questions": len(totals[(s, b)]),
        }
        for s in strategies
        for b in budgets
    ]
    if args.json:
        print(json.dumps({"results": results, "tokenizer": tokenizer.name, "seconds": round(elapsed, 1)}))
        return 0
    skipped_q = sum(c.skipped_questions for c in conversations)
    skipped_e = sum(c.skipped_evidence for c in conversations)
    print(
        f"{len(conversations)} conversation(s), mode {args.mode}, tokenizer {tokenizer.name}; skipped "
        f"{skipped_e} unresolvable evidence id(s) and {skipped_q} question(s) left without evidence; {elapsed:.0f} s"
    )
    print("evidence recall (mean share of each question's evidence turns in the assembled context)")
    print(f"| strategy | {' | '.join(f'{b:,} tok' for b in budgets)} | questions |")
    print(f"|---|{'---:|' * len(budgets)}---:|")
    for s in strategies:
        cells = [next(r for r in results if r["strategy"] == s and r["budget"] == b)["recall"] for b in budgets]
        label = f"{s} (baseline)" if s == "bm25" else s
        print(f"| {label} | {' | '.join(f'{c:.3f}' for c in cells)} | {len(totals[(s, budgets[0])])} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
