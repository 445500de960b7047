#!/usr/bin/env python3
"""Ranked requests on one ledger, as bench_context.py times them, for comparing builds.

    python scripts/bench_ranked_calls.py LEDGER [--calls N] [--session NAME]

Each request follows a write to the ledger (nothing kept under the ledger's change stamp
is reused), for a random session (or NAME), with its latest prompt as the request; the
first 5 are a warm-up. Prints CPU p50/p90/p99 and the system time. CPU time on a shared
machine moves by 30 % from one minute to the next; for a figure that does not, count
instructions with valgrind (deterministic to ~2 %), the same run with 0 calls
subtracted:

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
from slop.snapshot import ContextService
from slop.store import Store
from slop.store.memos import Memos
from slop.tokenestimate import estimate

WARM_UP = 5


def run(path: str, calls: int, session: str) -> list[float]:
    store = Store.open(path)
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
            store.db.execute("UPDATE sessions SET context_size = context_size WHERE id = ?", (name,))
            started = time.process_time()
            service.prompt(name, "openai", "gpt-4o")
            if i >= WARM_UP:
                cpu.append(time.process_time() - started)
        return cpu
    finally:
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
    args = parser.parse_args()
    before = resource.getrusage(resource.RUSAGE_SELF)
    cpu = sorted(run(args.ledger, args.calls, args.session))
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
