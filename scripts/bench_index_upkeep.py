#!/usr/bin/env python3
"""What the history index's shape costs a search, and what the idle upkeep costs.

    python scripts/bench_index_upkeep.py LEDGER [--sessions 40] [--words 16] [--inputs 25]

LEDGER: a ledger of scripts/bench_context.py (e.g. `--index-as-written`: as FTS5 alone
leaves it). A copy is measured as it is, then merged the way slop's idle upkeep merges
it (slop.store.index_upkeep.tidy: time, steps, the longest step), then measured again.
The measure: CPU time of a word read scoped to a session (`"w"` over the session's range
of keys, what the ranked search of a small session runs for each query word), for the
first `--words` words of the latest prompt of `--sessions` random sessions. Then, on fresh
copies, `--inputs` inputs arrive at random moments of the upkeep's merge, with and
without cutting the step under way short (`IndexUpkeep.pause`, what the REPL does): how
long the input's first write waits for the ledger."""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slop.store import bm25
from slop.store.db import Database
from slop.store.index_upkeep import IndexShape, IndexUpkeep, index_shape, tidy
from slop.store.search_index import scope_of


def word_reads(path: Path, sessions: int, words: int) -> tuple[float, float]:
    """Median and p90 CPU ms of one scoped word read, as the ranked search of a small
    session reads a word (bm25.read)."""
    db = Database(str(path))
    try:
        names = [r[0] for r in db.tuples("SELECT id FROM sessions WHERE id != 'recent'")]
        rng = random.Random(1)
        per_word: list[float] = []
        for _ in range(sessions):
            session = rng.choice(names)
            text = db.scalar(
                "SELECT content FROM messages WHERE session_id = ? AND role = 'user' ORDER BY id DESC LIMIT 1",
                (session,),
            )
            chosen = list(dict.fromkeys(str(text or "").split()))[:words]
            scope = scope_of(db, session)
            if scope is None or not chosen:
                continue
            started = time.process_time()
            for word in chosen:
                bm25.read(db.tuples, scope, f'"{word}"')
            per_word.append((time.process_time() - started) * 1000 / len(chosen))
        per_word.sort()
        return statistics.median(per_word), per_word[int(len(per_word) * 0.9)]
    finally:
        db.close()


def input_waits(ledger: Path, work: Path, inputs: int, cut: bool) -> tuple[float, float]:
    """Median and longest ms an input's first write waits while the upkeep merges."""
    shutil.copyfile(ledger, work)
    busy = {"now": False}
    upkeep = IndexUpkeep(str(work), lambda: busy["now"], quiet=0)
    other = sqlite3.connect(work, isolation_level=None, timeout=10)
    rng = random.Random(1)
    waits: list[float] = []
    for _ in range(inputs):
        busy["now"] = False
        upkeep.when_idle()
        time.sleep(rng.uniform(0.2, 0.6))
        busy["now"] = True  # Enter
        started = time.perf_counter()
        if cut:
            upkeep.pause()
        other.execute("BEGIN IMMEDIATE")
        other.execute("COMMIT")
        waits.append((time.perf_counter() - started) * 1000)
        while upkeep.running:
            time.sleep(0.01)
    upkeep.close()
    other.close()
    waits.sort()
    return statistics.median(waits), waits[-1]


def describe(shape: IndexShape | None) -> str:
    if shape is None:
        return "unreadable"
    return f"{len(shape.segments)} segments, {shape.pages} pages, {shape.tail_share:.1%} beside the largest"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ledger", type=Path)
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--words", type=int, default=16)
    parser.add_argument("--inputs", type=int, default=25)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="slop-upkeep-")) / "ledger.db"
    shutil.copyfile(args.ledger, work)
    try:
        db = Database(str(work))
        before = index_shape(db)
        median, p90 = word_reads(work, args.sessions, args.words)
        print(f"as it is: {describe(before)}: a scoped word read {median:.3f} ms median, {p90:.3f} ms p90")
        steps: list[float] = []

        def timed_stop() -> bool:
            steps.append(time.perf_counter())
            return False

        started = time.perf_counter()
        report = tidy(db, timed_stop)
        elapsed = time.perf_counter() - started
        ends = [*steps[1:], started + elapsed] if steps else []  # an index in one piece takes no step
        gaps = [b - a for a, b in zip(steps, ends, strict=True)]
        longest = max(gaps, default=0.0) * 1000
        print(f"upkeep: {report.steps} steps in {elapsed:.1f} s, the longest {longest:.0f} ms")
        db.close()
        median, p90 = word_reads(work, args.sessions, args.words)
        print(f"merged: {describe(report.after)}: a scoped word read {median:.3f} ms median, {p90:.3f} ms p90")
        for cut in (False, True) if args.inputs > 0 else ():
            median, longest = input_waits(args.ledger, work, args.inputs, cut)
            how = "cut short" if cut else "finished first"
            print(
                f"an input during the merge, the step under way {how}: its write waited {median:.1f} ms median,"
                f" {longest:.1f} ms at most"
            )
    finally:
        shutil.rmtree(work.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
