#!/usr/bin/env python3
"""Ranked requests on one ledger, as bench_context.py times them, for comparing builds.

    python scripts/bench_ranked_calls.py LEDGER [--calls N] [--session NAME] [--new-prompts]

Each request follows a write to the ledger (nothing kept under the ledger's change stamp
is reused), for a random session (or NAME), with its latest prompt as the request; the
first 5 are a warm-up. With `--new-prompts` the write is a new user turn (one of the
session's earlier prompts asked again), so each request searches other words and only
what the ledger keeps across writes (row records, lengths: slop.store.row_cache and
search_cache) is reused, as in a live session; the turns are deleted afterwards.

Prints CPU p50/p90/p99 and the system time. CPU time on a shared machine moves by 30 %
from one minute to the next; for a figure that does not, count instructions with
valgrind (deterministic to ~2 %), the same run with 0 calls subtracted:

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python scripts/bench_ranked_calls.py LEDGER --calls 5
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python scripts/bench_ranked_calls.py LEDGER --calls 0

(instructions per request = the difference of the two "Collected" totals / 10)."""

from __future__ import annotations

import argparse
import gc
import random
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slop.context.strategies.catalog import builtin_strategies
from slop.records import NewMessage, Role
from slop.snapshot import ContextService
from slop.store import Store
from slop.store.memos import Memos
from slop.tokenestimate import estimate

WARM_UP = 5


class NewPrompts:
    """A new user turn before each request, as a live session has it: one of the
    session's earlier prompts, picked at random, asked again (so every request searches
    other words, which the ledger's own prompts use). `remove()` deletes them after."""

    def __init__(self, store: Store, rng: random.Random) -> None:
        self._store = store
        self._rng = rng
        self._spans: dict[str, tuple[int, int]] = {}
        self._added: list[tuple[str, str]] = []

    def ask(self, session: str) -> None:
        db = self._store.db
        if session not in self._spans:
            low, high = db.tuples("SELECT min(id), max(id) FROM messages WHERE session_id = ?", (session,))[0]
            self._spans[session] = (int(low), int(high))
        low, high = self._spans[session]
        text = db.scalar(
            "SELECT content FROM messages WHERE id >= ? AND session_id = ? AND role = 'user' LIMIT 1",
            (self._rng.randint(low, high), session),
        ) or db.scalar("SELECT content FROM messages WHERE session_id = ? AND role = 'user' LIMIT 1", (session,))
        group = self._store.messages.new_group_id()
        self._store.messages.append(session, group, NewMessage(Role.USER, str(text), parsing_strategy="openai"))
        self._added.append((session, group))

    def remove(self) -> None:
        for session, group in self._added:
            self._store.messages.delete_group(session, group)
        self._added.clear()


def run(path: str, calls: int, session: str, new_prompts: bool = False) -> list[float]:
    store = Store.open(path)
    prompts = NewPrompts(store, random.Random(3))
    try:
        with store.db.transaction():
            store.db.execute(
                "UPDATE sessions SET settings=json_set(COALESCE(settings, '{}'), '$.context_mode', 'ranked')"
            )
        sessions = [session] if session else [r[0] for r in store.db.query("SELECT id FROM sessions")]
        service = ContextService(store, Memos(store.db), lambda: (), builtin_strategies(), estimate, lambda: True)
        rng = random.Random(2)
        cpu: list[float] = []
        for i in range(calls + WARM_UP if calls else 0):
            name = rng.choice(sessions)
            if new_prompts:
                prompts.ask(name)
            else:  # a write all the same: nothing kept under the ledger's change stamp is reused
                store.db.execute("UPDATE sessions SET context_size = context_size WHERE id = ?", (name,))
            started = time.process_time()
            service.prompt(name, "openai", "gpt-4o")
            if i >= WARM_UP:
                cpu.append(time.process_time() - started)
        return cpu
    finally:
        prompts.remove()
        with store.db.transaction():
            store.db.execute(
                "UPDATE sessions SET settings=json_set(COALESCE(settings, '{}'), '$.context_mode', 'window')"
            )
        store.close()


def _at(ordered: list[float], share: float) -> float:
    """The value at `share` of the ordered times, in ms (bench_context.py's p99)."""
    return ordered[min(len(ordered) - 1, max(0, int(len(ordered) * share) - 1))] * 1000


def main() -> int:
    gc.freeze()  # as the REPL does once started: start-up's objects leave the full collections
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ledger", help="a ledger built by bench_context.py (its sessions are set to ranked, then back)")
    parser.add_argument("--calls", type=int, default=200, help="timed requests (0: only open and close)")
    parser.add_argument("--session", default="", help="always this session (default: a random one per request)")
    parser.add_argument(
        "--new-prompts", action="store_true", help="a new user turn (an earlier prompt asked again) before each request"
    )
    args = parser.parse_args()
    before = resource.getrusage(resource.RUSAGE_SELF)
    cpu = sorted(run(args.ledger, args.calls, args.session, args.new_prompts))
    after = resource.getrusage(resource.RUSAGE_SELF)
    if cpu:
        system = (after.ru_stime - before.ru_stime) / len(cpu) * 1000
        print(
            f"{len(cpu)} requests: CPU p50 {statistics.median(cpu) * 1000:.1f} ms, p90 {_at(cpu, 0.9):.1f} ms,"
            f" p99 {_at(cpu, 0.99):.1f} ms; system time {system:.2f} ms a request"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
