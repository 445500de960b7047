#!/usr/bin/env python3
"""What a long multi-turn session costs under each context strategy and layout, next to
how much it remembers.

    python scripts/bench_sessions.py --data FILE [--budget 8000] [--strategy ...] [--layout seed,cache]
        [--window-step 1,4] [--limit N] [--jobs 2] [--json]

FILE is in LoCoMo format (see scripts/bench_context_quality.py). Each conversation is
replayed as ONE slop session, turn by turn, so the window slides as it would in a real
session: a speaker_a turn is the user's message (a model call happens here, after the
strategy's maintenance), the speaker_b turns that follow are the reply, and the reply
ends with a STATE, as slop's replies do (a short STATE naming the latest topic; it
changes every turn, like a real one). Every request carries slop's system prompt and
the execute_bash tool definition, as a real session does.

Per call the request is billed under the prefix-cache model of
slop.context.prefix_cache (cached = longest common token prefix with the previous call,
from 1,024 tokens, in 128-token blocks; billed-equivalent = uncached + 0.25 x cached).
Recall is measured on the same ledger with the LoCoMo questions, without disturbing the
replay (each question is asked in a transaction that is rolled back): `mid` right after
the session following its last evidence, `end` after the last session; the score is
the share of the question's evidence turns present in the request.

Baselines: `full` appends every message whole with no budget (what the peers do); the
`none` row bills that history with no prompt cache."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_context_quality import Conversation, Question, load, rolled_back

from slop.context.layers import SYSTEM_PROMPT
from slop.context.layout import LAYOUT_KEY
from slop.context.prefix_cache import CACHED_WEIGHT, CacheMeter
from slop.context.strategies.catalog import builtin_strategies
from slop.context.summarize import extractive_summary
from slop.context.tokens import Tokenizer
from slop.records import NewMessage, Role
from slop.snapshot import ContextService
from slop.store import Store
from slop.store.memos import Memos
from slop.tokenestimate import estimate
from slop.tools.shell import EXECUTE_BASH

MAINTAINING = ("compact", "relevance")
FULL = "full"
DEFAULT_STRATEGIES = ("window", "ranked", "compact", "relevance", FULL)


@dataclass(frozen=True)
class Variant:
    strategy: str
    layout: str = "seed"
    step: int = 1

    @property
    def label(self) -> str:
        return f"{self.strategy} ({self.layout}{f', step {self.step}' if self.step > 1 else ''})"


@dataclass
class Totals:
    calls: int = 0
    prompt_tokens: int = 0
    cached: int = 0
    breaks: int = 0
    over_budget: int = 0
    full_tokens: int = 0  # the same calls with every message whole, appended
    end: list[float] = field(default_factory=list)
    mid: list[float] = field(default_factory=list)

    def add(self, other: Totals) -> None:
        for name in ("calls", "prompt_tokens", "cached", "breaks", "over_budget", "full_tokens"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.end += other.end
        self.mid += other.mid


def state_after(conv: Conversation, index: int, text: str, turns: int) -> str:
    words = " ".join(text.split()[:10])
    return (
        f"### STATE\nGoal: keep talking with {conv.speaker_a}\nContext: session {index + 1}\n"
        f"Resolved: {turns} turns so far\nTechnical Anchors: latest topic: {words}"
    )


def replay(conv: Conversation, mids: list[Question], variant: Variant, budget: int, workdir: str) -> Totals:
    tokenizer = Tokenizer()
    count = tokenizer.count if tokenizer.exact else estimate
    with tempfile.NamedTemporaryFile(dir=workdir, suffix=".db", delete=False) as handle:
        path = handle.name
    store = Store.open(path, count)
    totals = Totals()
    full = variant.strategy == FULL
    spec = EXECUTE_BASH.spec
    service = ContextService(
        store,
        Memos(store.db),
        lambda: (spec,),
        builtin_strategies(),
        count,
        lambda: tokenizer.exact,
        system_prompt=SYSTEM_PROMPT,
    )
    sid = conv.sample_id
    meter = CacheMeter(count)
    mode = "window" if full else variant.strategy
    store.sessions.update_settings(
        sid,
        context_mode=mode,
        budget=0 if full else budget,
        **{LAYOUT_KEY: variant.layout, "window_step": variant.step},
    )
    store.sessions.set_context_size(sid, 0)  # window: plain recency up to the budget
    idmap: dict[int, str] = {}
    turns = 0
    try:
        for index, (date, session_turns) in enumerate(conv.sessions):
            gid: str | None = None
            for j, turn in enumerate(session_turns):
                text = f"({date}) {turn.speaker}: {turn.text}" if j == 0 and date else f"{turn.speaker}: {turn.text}"
                if turn.speaker == conv.speaker_a or gid is None:
                    if gid is not None:
                        store.sessions.push_state(sid, gid, state_after(conv, index, text, turns))
                    gid = store.messages.new_group_id()
                    idmap[store.messages.append(sid, gid, NewMessage(Role.USER, text))] = turn.dia_id
                    _call(service, sid, variant, budget, meter, totals)
                else:
                    idmap[store.messages.append(sid, gid, NewMessage(Role.ASSISTANT, text))] = turn.dia_id
                turns += 1
            for q in (q for q in mids if q.ask_after == index):
                totals.mid.append(_recall(service, sid, variant, q, idmap))
        for q in conv.questions:
            totals.end.append(_recall(service, sid, variant, q, idmap))
    finally:
        store.close()
    totals.prompt_tokens, totals.cached, totals.breaks = meter.prompt_tokens, meter.cached, meter.breaks
    return totals


def _call(service: ContextService, sid: str, variant: Variant, budget: int, meter: CacheMeter, t: Totals) -> None:
    if variant.strategy in MAINTAINING:
        service.maintain(sid, "openai", "", extractive_summary)
    prompt = service.prompt(sid, "openai", "")
    meter.observe(prompt)
    t.calls += 1
    t.over_budget += int(prompt.total_tokens > budget and variant.strategy != FULL)


def _recall(service: ContextService, sid: str, variant: Variant, q: Question, idmap: dict[int, str]) -> float:
    store = service.store
    with rolled_back(store):
        store.messages.append(sid, store.messages.new_group_id(), NewMessage(Role.USER, q.text))
        if variant.strategy in MAINTAINING:
            service.maintain(sid, "openai", "", extractive_summary)
        prompt = service.prompt(sid, "openai", "")
        present = {idmap[e.message.id] for e in prompt.history if e.message.id in idmap}
    return sum(1 for e in q.evidence if e in present) / len(q.evidence)


def _unit(conv: Conversation, mids: list[Question], variant: Variant, budget: int, workdir: str) -> Totals:
    return replay(conv, mids, variant, budget, workdir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="a LoCoMo-format JSON file")
    parser.add_argument("--budget", type=int, default=8000, help="prompt budget in tokens (default 8000)")
    parser.add_argument("--strategy", default=",".join(DEFAULT_STRATEGIES), help="comma-separated strategies")
    parser.add_argument("--layout", default="seed,cache", help="comma-separated layouts (default seed,cache)")
    parser.add_argument("--window-step", default="1", help="comma-separated window_step values (default 1)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--json", action="store_true", help="print JSON results")
    args = parser.parse_args(argv)
    strategies = [s.strip() for s in args.strategy.split(",") if s.strip()]
    unknown = [s for s in strategies if s not in builtin_strategies() and s != FULL]
    if unknown:
        parser.error(f"unknown strategy {', '.join(unknown)}")
    ends = load(args.data, "end")
    mids = {c.sample_id: c.questions for c in load(args.data, "mid")}
    if args.limit > 0:
        ends = ends[: args.limit]
    variants = list(
        dict.fromkeys(
            Variant(s, layout.strip(), 1 if s == FULL else int(step))
            for s in strategies
            for layout in args.layout.split(",")
            for step in args.window_step.split(",")
        )
    )
    started = time.perf_counter()
    totals = {v: Totals() for v in variants}
    with tempfile.TemporaryDirectory(prefix="slop-bench-sessions-") as tmp:
        units = [(c, v) for v in variants for c in ends]
        with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(_unit, c, mids[c.sample_id], v, args.budget, tmp) for c, v in units]
            for (_, v), future in zip(units, futures, strict=True):
                totals[v].add(future.result())
    elapsed = time.perf_counter() - started
    rows = [_row(v.label, totals[v]) for v in variants]
    if FULL in strategies:
        base = totals[next(v for v in variants if v.strategy == FULL)]
        rows.append(_row("none (full history, no prompt cache)", Totals(base.calls, base.prompt_tokens)))
    if args.json:
        print(json.dumps({"budget": args.budget, "results": rows, "seconds": round(elapsed, 1)}))
        return 0
    calls = rows[0]["calls"]
    print(f"{len(ends)} conversation(s) as sessions, {calls} model calls each, budget {args.budget:,}; {elapsed:.0f} s")
    print(
        "| strategy (layout) | prompt tokens | cached share | billed-equivalent | vs none | over budget | "
        "cache breaks | recall end | recall mid |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    none = rows[-1]["billed_equivalent_tokens"] if FULL in strategies else 0
    for r in rows:
        share = f"{r['billed_equivalent_tokens'] / none:.1%}" if none else "-"
        print(
            f"| {r['label']} | {r['prompt_tokens']:,} | {r['cached_share']:.1%} | {r['billed_equivalent_tokens']:,}"
            f" | {share} | {r['over_budget_calls']} | {r['cache_breaks']} | {_recall_text(r, 'end')} | "
            f"{_recall_text(r, 'mid')} |"
        )
    return 0


def _recall_text(row: dict[str, Any], mode: str) -> str:
    return "-" if row[f"recall_{mode}"] is None else f"{row[f'recall_{mode}']:.3f}"


def _row(label: str, t: Totals) -> dict[str, Any]:
    billed = t.prompt_tokens - t.cached + CACHED_WEIGHT * t.cached
    return {
        "label": label,
        "calls": t.calls,
        "prompt_tokens": t.prompt_tokens,
        "cached_tokens": t.cached,
        "cached_share": round(t.cached / t.prompt_tokens, 4) if t.prompt_tokens else 0.0,
        "billed_equivalent_tokens": round(billed),
        "cache_breaks": t.breaks,
        "over_budget_calls": t.over_budget,
        "recall_end": round(sum(t.end) / len(t.end), 4) if t.end else None,
        "recall_mid": round(sum(t.mid) / len(t.mid), 4) if t.mid else None,
    }


if __name__ == "__main__":
    raise SystemExit(main())
