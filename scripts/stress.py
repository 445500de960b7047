#!/usr/bin/env python3
"""All the long reliability runs of docs/reliability.md, one after the other.

    nice python scripts/stress.py [--quick] [--seed N]

Runs, each in its own interpreter so one cannot disturb the next:

* scripts/stress_integrity.py: fresh-ledger race, >= 200 kill -9 trials, 8 processes x
  500 turns on one ledger, concurrent scratchpad writers;
* scripts/stress_hostile.py: 2,000 hostile replies, absurd commands and hand-edited rows;
* scripts/bench_security.py: 2,000 disguised approvals, symlink-swap reads, split keys,
  query_db memory and deadline.

Each prints its own table; this prints a last summary (exit code and seconds of each)
and exits 1 if any of them did. `--quick` runs small versions (a minute or two) to check
that the harness works; the figures in docs/reliability.md come from the full run."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent


def runs(quick: bool, seed: int) -> list[tuple[str, list[str]]]:
    if quick:
        return [
            ("integrity", ["stress_integrity.py", "--rounds", "5", "--kills", "10", "--turns", "20"]),
            ("hostile", ["stress_hostile.py", "--n", "100", "--big-every", "1000"]),
            ("security", ["bench_security.py", "--n", "100"]),
        ]
    return [
        ("integrity", ["stress_integrity.py"]),
        ("hostile", ["stress_hostile.py", "--n", "2000"]),
        ("security", ["bench_security.py", "--n", "2000"]),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small versions, to check the harness")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args(argv)
    results: list[tuple[str, int, float]] = []
    for name, command in runs(args.quick, args.seed):
        script, *rest = command
        if script != "bench_security.py":
            rest += ["--seed", str(args.seed)]
        print(f"\n== {name}: {script} {' '.join(rest)}", flush=True)
        started = time.monotonic()
        code = subprocess.run([sys.executable, str(SCRIPTS / script), *rest]).returncode
        results.append((name, code, time.monotonic() - started))
    print("\n| run | exit | seconds |\n|---|---:|---:|")
    for name, code, seconds in results:
        print(f"| {name} | {code} | {seconds:.0f} |")
    return 1 if any(code for _, code, _ in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
