#!/usr/bin/env python3
"""Assembly time vs ledger size: window 20 on synthetic ledgers of 1k, 100k and 1M messages.

    python scripts/bench_context.py [--sizes 1000,100000,1000000] [--long 100000,1000000] [--queries 200]
                                    [--dir DIR] [--index-as-written] [--json]
    python scripts/bench_context.py --long 1000,10000,100000,1000000 --sizes "" [--queries 200]

Ledgers follow perf_anchors.md §3: ~10 messages a group (1-19), 1 000 sessions (fewer for
small ledgers), groups scattered across sessions, content 50-950 characters (mean ~500),
3 % dropped. A group is a user prompt, tool-call rows (real OpenAI-native JSON) each followed
by its result, and a final answer, so isolation, pair integrity and three-tier truncation
all do their real work. Each ledger is built once into --dir (default a temp dir) through slop's own
migrations, then `ContextService.prompt()` — the exact path of every model call and
/context show — is timed for random sessions with a window of 20 groups.

`--long` (default 100k and 1M) builds ledgers holding ONE session of that many messages
(the same groups, all in one session: 1M messages = ~100k groups), where a statement
that walks the session shows up at once; the spread 1M ledger's sessions are the small
session in a big ledger. Every
ledger is measured twice: with `ANALYZE` statistics (what a long-lived ledger has after
`PRAGMA optimize`) and without; SQLite picks plans by them. Both layouts are measured in
window mode (20 groups) and in ranked mode (the request: the session's latest prompt),
ranked at cold p50 and p99, wall clock and CPU (`--ranked-only` skips the window figures;
`--recent` adds, to each spread ledger, a session written last and ranks for it alone).
The history index is as slop's idle upkeep keeps it at its worst (see `build`);
`--index-as-written` builds the ledgers without the upkeep, as FTS5 alone leaves them."""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(1, str(Path(__file__).resolve().parent))

from bench_ranked_calls import NewPrompts

from slop.context.strategies.catalog import builtin_strategies
from slop.orchestrator import Orchestrator
from slop.providers.openai_wire import openai_native
from slop.records import Prompt, ToolCall, ToolSpec
from slop.snapshot import ContextService
from slop.store import Store
from slop.store.db import Database
from slop.store.index_upkeep import index_shape, tidy
from slop.store.memos import Memos
from slop.store.search_index import INSERT_TRIGGER, index_rows
from slop.tokenestimate import estimate

WINDOW = 20
# Rows written turn by turn after the last merge of everything. Merged two by two, their
# segments then hold ~10 % of the index's pages (10.2 % at 1M, 10.8 % at 100k; a turn's
# rows take half the pages bulk-loaded ones do): a shade past the upkeep's START_SHARE,
# where it merges everything again, so the figures are if anything pessimistic.
TAIL_ROWS = 0.2


def corpus(rng: random.Random) -> str:
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(3000)]
    return " ".join(rng.choice(words) for _ in range(400_000))


def build(path: Path, size: int, rng: random.Random, sessions: int = 0, kept_index: bool = True) -> None:
    """The ledger, bulk-loaded; with `kept_index`, its history index as slop's idle upkeep
    keeps it at its worst (slop.store.index_upkeep): the rows before the last `TAIL_ROWS`
    merged into one piece, those written a group to a transaction as turns write them,
    with the upkeep's pairwise merges after each, up to about the share of pages that
    merges everything again (the build prints the index's shape). Without: as
    FTS5's own merging leaves a ledger never idle in the REPL (`slop -p` only)."""
    store = Store.open(str(path))
    text = corpus(rng)
    sessions = sessions or max(10, min(1000, size // 1000))
    rows: list[tuple[object, ...]] = []
    written, gid = 0, 10**18
    db = store.db
    db.execute("PRAGMA synchronous=OFF")
    tail_from = size - int(size * TAIL_ROWS) if kept_index else size + 1
    per_turn = False
    db.execute("DROP TRIGGER history_fts_insert")  # bulk rows are indexed a batch at a time (_insert)
    while written < size:
        gid += 1
        session = f"s{rng.randrange(sessions)}"
        n = min(rng.randint(1, 19), size - written)
        status = "dropped" if rng.random() < 0.03 else "completed"
        for i in range(n):
            start = rng.randrange(len(text) - 1000)
            content = text[start : start + rng.randint(50, 950)]
            role, kind, call, call_ids = "user", "completed", None, None
            if i and i == n - 1:
                role = "assistant"  # the turn's final answer
            elif i % 2:  # an assistant tool call (provider-native JSON) ...
                role, kind, call_ids = "assistant", "tool_call", f"c{gid}-{i}"
                content = openai_native("", [ToolCall(f"c{gid}-{i}", "read_file", json.dumps({"path": content[:40]}))])
            elif i:  # ... and its result
                role, call = "tool", f"c{gid}-{i - 1}"
            row_status = status if status == "dropped" else kind
            size_tokens = estimate(content)
            row = (session, role, content, row_status, str(gid), call, "openai", size_tokens, size_tokens, call_ids)
            rows.append(row)
        written += n
        if per_turn or len(rows) >= 20_000 or written >= min(size, tail_from):
            _insert(db, rows)
            rows = []
        if per_turn:
            tidy(db, start_share=1.0)  # the upkeep after a turn, short of merging everything again
        elif written >= tail_from:
            tidy(db)  # the last merge of everything (nothing below the upkeep's floor)
            db.execute(INSERT_TRIGGER)  # from here on, rows are indexed as a turn writes them
            per_turn = True
    if not per_turn:
        db.execute(INSERT_TRIGGER)
    with db.transaction():
        for s in range(sessions):
            db.execute(
                "INSERT OR IGNORE INTO sessions(id, name, context_size) VALUES (?, ?, ?)", (f"s{s}", f"s{s}", WINDOW)
            )
            db.execute("UPDATE sessions SET context_size=? WHERE id=?", (WINDOW, f"s{s}"))
    db.execute("ANALYZE")
    print(f"index: {index_shape(db)}", file=sys.stderr)
    store.close()


def _insert(db: Database, rows: list[tuple[object, ...]]) -> None:
    """One transaction: the rows, and, while the insert trigger is dropped (a bulk batch of
    many sessions' rows), their index entries in key order (search_index.index_rows)."""
    with db.transaction():
        last = int(db.scalar("SELECT COALESCE(max(id), 0) FROM messages") or 0)
        db.executemany(
            "INSERT INTO messages(session_id, role, content, status, group_id, tool_call_id,"
            " parsing_strategy, tokens, content_tokens, call_ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        if not db.scalar("SELECT 1 FROM sqlite_master WHERE name = 'history_fts_insert'"):
            index_rows(db, since=last)


RECENT = "recent"


def add_recent_session(path: Path) -> None:
    """The session being worked in, as a real ledger has it: written last, its rows
    together at the end (a copy of s0's rows, group ids made newer than every other).
    The spread layout's sessions are the worst case, each scattered over the whole
    ledger. Added once; the other measures leave it out."""
    store = Store.open(str(path))
    db = store.db
    if not db.scalar("SELECT 1 FROM sessions WHERE id = ?", (RECENT,)):
        with db.transaction():
            db.execute(
                "INSERT INTO messages(session_id, role, content, status, group_id, tool_call_id, parsing_strategy,"
                " tokens, content_tokens, call_ids) SELECT ?, role, content, status,"
                " CAST(CAST(group_id AS INTEGER) + 100000000000000000 AS TEXT), tool_call_id, parsing_strategy,"
                " tokens, content_tokens, call_ids FROM messages WHERE session_id = 's0' ORDER BY id",
                (RECENT,),
            )
            db.execute("INSERT INTO sessions(id, name, context_size) VALUES (?, ?, ?)", (RECENT, RECENT, WINDOW))
    store.close()


def set_statistics(path: Path, analysed: bool) -> None:
    """With or without the planner's statistics (a new connection reads them)."""
    store = Store.open(str(path))
    if analysed:
        store.db.execute("ANALYZE")
    elif store.db.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name='sqlite_stat1'"):
        store.db.execute("DELETE FROM sqlite_stat1")
    store.close()


def set_mode(path: Path, mode: str) -> None:
    store = Store.open(str(path))
    with store.db.transaction():
        store.db.execute(
            "UPDATE sessions SET settings=json_set(COALESCE(settings, '{}'), '$.context_mode', ?)", (mode,)
        )
    store.close()


def measure_ranked(
    path: Path, queries: int, rng: random.Random, only: str = "", new_prompts: bool = False
) -> dict[str, float]:
    """Ranked mode, cold: a random session per call, its latest prompt as the request.
    Each call follows a write to the ledger, as every model call in a live conversation
    follows its new user row, so nothing kept under the ledger's change stamp is reused
    from one call to the next. Wall clock and CPU time (`time.process_time`: what the
    shared machine's load moves least). `only`: that one session every call.
    `new_prompts`: the write is a new user turn, one of the session's earlier prompts
    asked again (each call searches other words; deleted afterwards)."""
    set_mode(path, "ranked")
    try:
        store = Store.open(str(path))
        prompts = NewPrompts(store, random.Random(3))
        sessions = [only] if only else _sessions(store)
        service = ContextService(store, Memos(store.db), lambda: (), builtin_strategies(), estimate, lambda: True)
        wall: list[float] = []
        cpu: list[float] = []
        for i in range(queries + 5):
            session = rng.choice(sessions)
            if new_prompts:
                prompts.ask(session)
            else:
                store.db.execute("UPDATE sessions SET context_size = context_size WHERE id = ?", (session,))
            started = time.process_time()
            elapsed = _timed(service, session)[0]
            if i >= 5:  # warm-up
                wall.append(elapsed)
                cpu.append(time.process_time() - started)
        prompts.remove()
        store.close()
    finally:
        set_mode(path, "window")
    return {
        "ranked_median_ms": _ms(statistics.median(wall)),
        "ranked_p99_ms": _ms(_p99(wall)),
        "ranked_cpu_median_ms": _ms(statistics.median(cpu)),
        "ranked_cpu_p99_ms": _ms(_p99(cpu)),
    }


def _sessions(store: Store) -> list[str]:
    return [r[0] for r in store.db.query("SELECT id FROM sessions WHERE id != ?", (RECENT,))]


def _p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[max(0, int(len(ordered) * 0.99) - 1)]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def measure(path: Path, queries: int, rng: random.Random) -> dict[str, float]:
    """Cold: a random session every call (nothing cached). Warm: one session called
    repeatedly, as in a live conversation (parsed rows and the page cache reused)."""
    store = Store.open(str(path))
    sessions = _sessions(store)
    specs = [ToolSpec(f"tool_{i}", "does a thing", {"type": "object"}) for i in range(12)]
    service = ContextService(store, Memos(store.db), lambda: specs, builtin_strategies(), estimate, lambda: True)
    cold: list[float] = []
    sizes: list[int] = []
    for i in range(queries + 20):
        elapsed, prompt = _timed(service, rng.choice(sessions))
        if i >= 20:  # warm-up
            cold.append(elapsed)
            sizes.append(len(prompt.history))
    by_size = sorted(sessions, key=lambda s: len(store.messages.window(s, WINDOW)))
    typical = by_size[len(by_size) // 2]  # a session with a median-sized window
    warm = [_timed(service, typical)[0] for _ in range(queries)][10:]
    # /context show's preview: the same assembly plus the user row stored and rolled back
    orchestrator = Orchestrator(store, service, lambda: None, _NoTools())
    preview = [_timed_preview(orchestrator, typical) for _ in range(queries)][10:]
    store.close()
    cold.sort()
    return {
        "median_ms": round(statistics.median(cold) * 1000, 3),
        "p99_ms": round(cold[int(len(cold) * 0.99) - 1] * 1000, 3),
        "warm_median_ms": round(statistics.median(warm) * 1000, 3),
        "preview_median_ms": round(statistics.median(preview) * 1000, 3),
        "messages_in_window": int(statistics.median(sizes)),
    }


def _timed(service: ContextService, session: str) -> tuple[float, Prompt]:
    start = time.perf_counter()
    prompt = service.prompt(session, "openai", "gpt-4o")
    return time.perf_counter() - start, prompt


def _timed_preview(orchestrator: Orchestrator, session: str) -> float:
    start = time.perf_counter()
    orchestrator.preview(session, "what changed in the parser since yesterday")
    return time.perf_counter() - start


class _NoTools:
    def run(self, calls: object, session_id: str, group_id: str, cancel: object, sink: object) -> list[object]:
        return []


def main() -> int:
    gc.freeze()  # as the REPL does once started: start-up's objects leave the full collections
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,100000,1000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--dir", help="keep the built ledgers here (reused when present)")
    parser.add_argument(
        "--long", default="100000,1000000", help="sizes of ledgers holding one single session ('' = none)"
    )
    parser.add_argument("--no-ranked", action="store_true", help="window mode only")
    parser.add_argument("--ranked-only", action="store_true", help="ranked mode only (skip the window measures)")
    parser.add_argument(
        "--recent", action="store_true", help="also rank for a session written last in the spread ledgers"
    )
    parser.add_argument(
        "--new-prompts", action="store_true", help="ranked: a new user turn (an earlier prompt) before each call"
    )
    parser.add_argument(
        "--index-as-written",
        action="store_true",
        help="leave the history index as FTS5 merges it (no idle upkeep: a ledger only `slop -p` wrote)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folder = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="slop-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    ledgers = [(int(s), 0) for s in args.sizes.split(",") if s.strip()]
    ledgers += [(int(s), 1) for s in args.long.split(",") if s.strip()]
    results = []
    for size, sessions in ledgers:
        name = f"ledger-{size}" if not sessions else f"ledger-one-session-{size}"
        path = folder / (name + ("-as-written.db" if args.index_as_written else ".db"))
        if not path.exists():
            started = time.perf_counter()
            partial = path.with_suffix(".partial")
            for leftover in folder.glob(partial.name + "*"):
                leftover.unlink()
            build(partial, size, random.Random(size), sessions, kept_index=not args.index_as_written)
            partial.rename(path)  # only a finished ledger is ever reused
            print(f"built {size} messages in {time.perf_counter() - started:.1f}s", file=sys.stderr)
        for analysed in (True, False):
            set_statistics(path, analysed)
            row: dict[str, object] = {
                "messages": size,
                "layout": "one session" if sessions else "spread",
                "analysed": analysed,
                "window": WINDOW,
            }
            if not args.ranked_only:
                row.update(measure(path, args.queries, random.Random(1)))
            if not args.no_ranked:
                row.update(measure_ranked(path, args.queries, random.Random(2), new_prompts=args.new_prompts))
            results.append(row)
            if args.recent and not sessions and not args.no_ranked:
                add_recent_session(path)
                recent: dict[str, object] = {**row, "layout": "spread, ranked for a session written last"}
                recent.update(measure_ranked(path, args.queries, random.Random(2), RECENT, args.new_prompts))
                results.append(recent)
        set_statistics(path, True)
    if args.json:
        print(json.dumps({"results": results}))
        return 0
    keys = (
        "messages",
        "layout",
        "analysed",
        "messages_in_window",
        "median_ms",
        "p99_ms",
        "warm_median_ms",
        "preview_median_ms",
        "ranked_median_ms",
        "ranked_p99_ms",
        "ranked_cpu_median_ms",
        "ranked_cpu_p99_ms",
    )
    print("| " + " | ".join(keys) + " |")
    print("|" + "---:|" * len(keys))
    for r in results:
        print("| " + " | ".join(str(r.get(k, "-")) for k in keys) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
