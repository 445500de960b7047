#!/usr/bin/env python3
"""Prompt cost of real agent runs under each context strategy.

    python scripts/bench_trajectories.py --data DIR [--budget 16000] [--strategy ...] [--limit N] [--json]

DIR holds mini-swe-agent trajectories (`*.traj.json` or `*.traj.json.gz`: {instance_id,
messages[system, user task, assistant, user, ...]}); any directory of that format works.
Each run is replayed into a slop ledger (a real Store on a temp file) the way slop's
orchestrator would have stored it: the task is the user message of one group, every
assistant message becomes an assistant row with one `execute_bash` tool call (its
THOUGHT as text, its ```bash block as the command) and the next user message (the
command's output) becomes that call's result. Before each assistant message, i.e.
before each model call of the run, the prompt is assembled by slop's own path
(ContextService: strategy, three-tier truncation, budget guard; the run's own system
prompt and the execute_bash tool as layers), and its size is added up over the run.
compact and relevance run their maintenance before each call, with the deterministic
extractive summarizer (no model runs here).

Reported per strategy (and layout, window step, truncation): total prompt tokens over
all calls of all runs, the same for the full untruncated history (every message in
full, what an agent without context management sends), the saving, the share of
prompts over the budget, and `blind_share`: among commands that name a file an earlier
command read (cat, head, tail, nl, sed -n, ...), the share issued while none of those
earlier read outputs was in the context in full. Cost under the prefix-cache model of
slop.context.prefix_cache: the cached share of the prompt tokens, billed-equivalent
input tokens (uncached + 0.25 x cached) and cache breaks (calls whose request does not
extend the previous one).

Baselines: `full` sends every message whole, appended (what the peers do), and the
`none` row is that history billed without any prompt cache."""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slop.context.costs import marker_tokens
from slop.context.layout import LAYOUT_KEY
from slop.context.prefix_cache import CacheMeter
from slop.context.strategies.catalog import builtin_strategies
from slop.context.summarize import extractive_summary
from slop.context.tokens import Tokenizer
from slop.context.truncate import TruncationConfig
from slop.providers.openai_wire import openai_native
from slop.records import NewMessage, Role, Status, ToolCall
from slop.snapshot import ContextService
from slop.store import Store
from slop.store.memos import Memos
from slop.tokenestimate import estimate
from slop.tools.shell import EXECUTE_BASH

MAINTAINING = ("compact", "relevance")
_STRATEGY_LAYERS = ("strategy", "files read")  # layers only some strategies add
DEFAULT_STRATEGIES = ("window", "messages", "ranked", "compact", "relevance", "full")
FULL = "full"  # baseline: every message whole, appended, no budget
UNCUT = TruncationConfig(full_limit=1 << 30, degraded_limit=1 << 30, inactive_limit=1 << 30)
_BASH = re.compile(r"```(?:bash|sh)?\s*\n(.*?)\n?```", re.DOTALL)
_EXTENSIONS = "py|pyx|pyi|c|h|cpp|cfg|toml|ini|txt|rst|md|json|yaml|yml|js|ts|sh"
_PATH = re.compile(rf"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:{_EXTENSIONS}))\b")
_READ = re.compile(r"(?:^|[\s;&|(])(cat|head|tail|nl|less|more|bat|sed\s+-n|awk)\b")


@dataclass
class Step:
    thought: str
    command: str | None
    output: str | None  # the next user message, the command's result
    recorded_prompt_tokens: int = 0


@dataclass
class Run:
    name: str
    system: str
    task: str
    steps: list[Step] = field(default_factory=list)


def load_run(path: Path) -> Run:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
        data = json.load(handle)
    messages = [m for m in data.get("messages", []) if isinstance(m.get("content"), str)]
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    rest = [m for m in messages if m["role"] != "system"]
    task = rest[0]["content"] if rest and rest[0]["role"] == "user" else ""
    run = Run(str(data.get("instance_id") or path.name.split(".")[0]), system, task)
    body = rest[1:] if task else rest
    for i, msg in enumerate(body):
        if msg["role"] != "assistant":
            continue
        content = msg["content"]
        match = _BASH.search(content)
        thought = content[: match.start()].strip() if match else content.strip()
        nxt = body[i + 1] if i + 1 < len(body) and body[i + 1]["role"] == "user" else None
        usage = ((msg.get("extra") or {}).get("response") or {}).get("usage") or {}
        run.steps.append(
            Step(
                thought,
                match.group(1).strip() if match else None,
                nxt["content"] if nxt else None,
                int(usage.get("prompt_tokens") or 0),
            )
        )
    return run


def load_dir(directory: str | Path) -> list[Path]:
    root = Path(directory)
    return sorted(p for p in root.iterdir() if p.name.endswith((".traj.json", ".traj.json.gz", ".traj")))


def files_named(command: str) -> set[str]:
    return {m.group(1).lstrip("./") for m in _PATH.finditer(command)}


@dataclass
class Totals:
    prompt_tokens: int = 0
    full_tokens: int = 0
    recorded_tokens: int = 0
    calls: int = 0
    over_budget: int = 0
    later_commands: int = 0
    blind_commands: int = 0
    compactions: int = 0
    cached: int = 0
    cache_breaks: int = 0

    def add(self, other: Totals) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(frozen=True)
class Variant:
    strategy: str
    layout: str = "seed"
    step: int = 1
    once: int = 0

    @property
    def label(self) -> str:
        extra = [self.layout] + ([f"step {self.step}"] if self.step > 1 else []) + (["cut once"] if self.once else [])
        return f"{self.strategy} ({', '.join(extra)})"


def replay(run: Run, variant: Variant, budget: int, workdir: str) -> Totals:
    strategy = variant.strategy
    full = strategy == FULL
    tokenizer = Tokenizer()
    count = tokenizer.count if tokenizer.exact else estimate
    with tempfile.NamedTemporaryFile(dir=workdir, suffix=".db", delete=False) as handle:
        path = handle.name
    store = Store.open(path, count)
    totals = Totals()
    try:
        spec = EXECUTE_BASH.spec
        service = ContextService(
            store,
            Memos(store.db),
            lambda: (spec,),
            builtin_strategies(),
            count,
            lambda: tokenizer.exact,
            truncation=UNCUT if full else TruncationConfig(),
            system_prompt=run.system,
        )
        sid = "run"
        meter = CacheMeter(count)
        settings = {LAYOUT_KEY: variant.layout, "window_step": variant.step, "truncate_once": variant.once}
        mode, limit = ("window", 0) if full else (strategy, budget)
        store.sessions.update_settings(sid, context_mode=mode, budget=limit, **settings)
        if full:
            store.sessions.set_context_size(sid, 0)
        gid = store.messages.new_group_id()
        store.messages.append(sid, gid, NewMessage(Role.USER, run.task, parsing_strategy="openai"))
        history_tokens = count(run.task)  # every message of the run so far, in full
        reads: dict[str, list[int]] = {}  # file -> result message ids of commands that read it
        for n, step in enumerate(run.steps):
            if strategy in MAINTAINING:
                done = service.maintain(sid, "openai", "", extractive_summary)
                totals.compactions += int(done.changed)
            prompt = service.prompt(sid, "openai", "")
            meter.observe(prompt)
            fixed = sum(layer.tokens for layer in prompt.layers if layer.name not in _STRATEGY_LAYERS)
            totals.prompt_tokens += prompt.total_tokens
            totals.over_budget += int(prompt.total_tokens > budget > 0)
            totals.full_tokens += fixed + history_tokens + marker_tokens(count)
            totals.recorded_tokens += step.recorded_prompt_tokens
            totals.calls += 1
            named = files_named(step.command or "")
            earlier = {f: ids for f, ids in reads.items() if f in named}
            if earlier:
                full_ids = {e.message.id for e in prompt.history if not e.truncated}
                totals.later_commands += 1
                if any(not (set(ids) & full_ids) for ids in earlier.values()):
                    totals.blind_commands += 1
            result_id, added = _store_step(store, sid, gid, step, n)
            history_tokens += added
            if result_id and step.command and _READ.search(step.command):
                for f in named:
                    reads.setdefault(f, []).append(result_id)
    finally:
        store.close()
    totals.cached, totals.cache_breaks = meter.cached, meter.breaks
    return totals


def _store_step(store: Store, sid: str, gid: str, step: Step, n: int) -> tuple[int | None, int]:
    """Store one step as the orchestrator would; returns (result message id, tokens added)."""
    if step.command is None:
        rows = [store.messages.append(sid, gid, NewMessage(Role.ASSISTANT, step.thought, parsing_strategy="openai"))]
        if step.output is not None:
            new = store.messages.new_group_id()
            rows.append(store.messages.append(sid, new, NewMessage(Role.USER, step.output, parsing_strategy="openai")))
        return None, _tokens(store, rows)
    call = ToolCall(f"call_{n}", "execute_bash", json.dumps({"command": step.command}))
    rows = [
        store.messages.append(
            sid,
            gid,
            NewMessage(
                Role.ASSISTANT, openai_native(step.thought, [call]), Status.TOOL_CALL, parsing_strategy="openai"
            ),
        )
    ]
    if step.output is None:
        return None, _tokens(store, rows)
    rows.append(
        store.messages.append(
            sid, gid, NewMessage(Role.TOOL, step.output, tool_call_id=call.id, parsing_strategy="openai")
        )
    )
    return rows[-1], _tokens(store, rows)


def _tokens(store: Store, ids: list[int]) -> int:
    return sum(m.content_tokens for i in ids if (m := store.messages.get(i)) is not None)


def _unit(path: str, variant: Variant, budget: int, workdir: str) -> Totals:
    return replay(load_run(Path(path)), variant, budget, workdir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="a directory of *.traj.json(.gz) files")
    parser.add_argument("--budget", type=int, default=16000, help="session context budget in tokens (default 16000)")
    parser.add_argument("--strategy", default=",".join(DEFAULT_STRATEGIES), help="comma-separated strategies")
    parser.add_argument("--layout", default="seed", help="comma-separated layouts: seed, cache (default seed)")
    parser.add_argument("--window-step", default="1", help="comma-separated window_step values (default 1)")
    parser.add_argument("--truncation", default="tiers", help="comma-separated: tiers, once (default tiers)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N runs")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--json", action="store_true", help="print JSON results")
    args = parser.parse_args(argv)
    strategies = [s.strip() for s in args.strategy.split(",") if s.strip()]
    unknown = [s for s in strategies if s not in builtin_strategies() and s != FULL]
    if unknown:
        parser.error(f"unknown strategy {', '.join(unknown)}")
    variants = [
        Variant(s, layout.strip(), int(step), int(trunc.strip() == "once"))
        for s in strategies
        for layout in args.layout.split(",")
        for step in args.window_step.split(",")
        for trunc in args.truncation.split(",")
    ]
    variants = list(dict.fromkeys(Variant(FULL) if v.strategy == FULL else v for v in variants))
    paths = load_dir(args.data)
    if args.limit > 0:
        paths = paths[: args.limit]
    if not paths:
        parser.error(f"no *.traj.json(.gz) files in {args.data}")
    started = time.perf_counter()
    totals = {v: Totals() for v in variants}
    with tempfile.TemporaryDirectory(prefix="slop-bench-traj-") as tmp:
        units = [(str(p), v) for v in variants for p in paths]
        if args.jobs <= 1:
            results = [_unit(p, v, args.budget, tmp) for p, v in units]
        else:
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                results = list(
                    pool.map(
                        _unit,
                        [p for p, _ in units],
                        [v for _, v in units],
                        [args.budget] * len(units),
                        [tmp] * len(units),
                        chunksize=4,
                    )
                )
    for (_, v), result in zip(units, results, strict=True):
        totals[v].add(result)
    elapsed = time.perf_counter() - started
    out = [_row(v.label, v.strategy, args.budget, totals[v], len(paths)) for v in variants]
    first = totals[variants[0]]
    out.append(
        _row(
            "none (full history, no prompt cache)",
            "none",
            args.budget,
            Totals(prompt_tokens=first.full_tokens, full_tokens=first.full_tokens, calls=first.calls),
            len(paths),
        )
    )
    if args.json:
        print(json.dumps({"results": out, "seconds": round(elapsed, 1)}))
        return 0
    print(f"{len(paths)} run(s), {out[0]['calls']} model calls, budget {args.budget:,} tokens; {elapsed:.0f} s")
    print(
        f"full history (every message in full): {out[0]['full_history_prompt_tokens']:,} prompt tokens; "
        f"the provider recorded {out[0]['recorded_provider_prompt_tokens']:,} (its own tokenizer)"
    )
    print(
        "| strategy | prompt tokens | cached share | billed-equivalent | vs none | calls over budget | "
        "cache breaks | blind share | compactions |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    none = out[-1]["billed_equivalent_tokens"] or 1
    for r in out:
        print(
            f"| {r['label']} | {r['prompt_tokens']:,} | {r['cached_share']:.1%} | "
            f"{r['billed_equivalent_tokens']:,} | {r['billed_equivalent_tokens'] / none:.1%} | "
            f"{r['over_budget_calls']} | {r['cache_breaks']} | {r['blind_share']:.1%} | {r['compactions']} |"
        )
    return 0


def _row(label: str, strategy: str, budget: int, t: Totals, runs: int) -> dict[str, Any]:
    billed = t.prompt_tokens - t.cached + 0.25 * t.cached
    return {
        "label": label,
        "strategy": strategy,
        "budget": budget,
        "prompt_tokens": t.prompt_tokens,
        "full_history_prompt_tokens": t.full_tokens,
        "saving": round(1 - t.prompt_tokens / t.full_tokens, 4) if t.full_tokens else 0.0,
        "runs": runs,
        "calls": t.calls,
        "over_budget_calls": t.over_budget,
        "blind_share": round(t.blind_commands / t.later_commands, 4) if t.later_commands else 0.0,
        "commands_naming_read_files": t.later_commands,
        "compactions": t.compactions,
        "recorded_provider_prompt_tokens": t.recorded_tokens,
        "cached_tokens": t.cached,
        "cached_share": round(t.cached / t.prompt_tokens, 4) if t.prompt_tokens else 0.0,
        "billed_equivalent_tokens": round(billed),
        "cache_breaks": t.cache_breaks,
    }


if __name__ == "__main__":
    raise SystemExit(main())
