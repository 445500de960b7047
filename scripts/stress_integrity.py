#!/usr/bin/env python3
"""Concurrency and crash stress for the ledger: the long versions of tests/reliability/.

    nice python scripts/stress_integrity.py [--rounds 50] [--openers 6] [--kills 200]
        [--workers 8] [--turns 500] [--writers 8] [--appends 300] [--seed N] [--only NAME]

Runs four experiments against real slop code, a real SQLite ledger on a temp directory
and the fake LLM server (tests/fakellm), and prints one table:

* fresh-ledger race: `--openers` processes open one fresh ledger at the same instant,
  `--rounds` times; then a new process must open it at the current schema version.
* kill -9: `--kills` runs of slop's real main on a three-step tool turn, each killed with
  SIGKILL at a random point, each followed by a fresh start that must open the ledger,
  find every tool call answered and send a valid request (tests/reliability/crash.py).
* one ledger, many processes: `--workers` processes run `--turns` turns each on one
  ledger, two processes per session (so the turn lock is contended), through the real
  app; the fake model answers with scratchpad appends and text. Every request must be
  valid, every accepted turn's rows present, every append in its scratchpad.
* scratchpad writers: `--writers` processes append `--appends` lines each to one
  session's scratchpad through the manage_scratchpad tool; none may be lost.

Targets: 0 unopenable ledgers, 0 invalid requests, 0 unanswered calls, 0 lost rows, 0
lost scratchpad updates. Exit status 1 when a target is missed."""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from slop.store import Store  # noqa: E402
from slop.store.migrations import MIGRATIONS, schema_version  # noqa: E402
from tests.fakellm import FakeLLM  # noqa: E402
from tests.reliability.checks import ledger_problems, request_problems  # noqa: E402
from tests.reliability.conftest import slop_env  # noqa: E402
from tests.reliability.crash import run_trials  # noqa: E402
from tests.reliability.test_migrations import OPEN_AT_ONCE  # noqa: E402
from tests.reliability.test_scratchpad import WRITER  # noqa: E402


@dataclass
class Row:
    name: str
    runs: str
    seconds: float
    failures: dict[str, int]
    notes: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(self.failures.values())


def fresh_ledger_race(tmp: Path, rounds: int, openers: int) -> Row:
    started = time.monotonic()
    failed_opens = unopenable = 0
    problems: list[str] = []
    for n in range(rounds):
        ledger, go = tmp / f"race{n}.db", tmp / f"go{n}"
        procs = [
            subprocess.Popen([sys.executable, "-c", OPEN_AT_ONCE, str(ledger), str(go)], stderr=subprocess.PIPE)
            for _ in range(openers)
        ]
        time.sleep(0.5)
        go.touch()
        for proc in procs:
            err = proc.communicate(timeout=120)[1].decode()
            if proc.returncode:
                failed_opens += 1
                problems.append(f"round {n}: {err.strip().splitlines()[-1] if err.strip() else proc.returncode}")
        try:
            store = Store.open(str(ledger))
            if schema_version(store.db) != len(MIGRATIONS):
                unopenable += 1
            store.close()
        except Exception as exc:
            unopenable += 1
            problems.append(f"round {n}: next open: {exc}")
    return Row(
        "fresh-ledger race",
        f"{rounds} rounds x {openers} processes",
        time.monotonic() - started,
        {"unopenable ledgers": unopenable, "failed opens": failed_opens},
        problems=problems,
    )


def kill_trials(tmp: Path, kills: int, seed: int) -> Row:
    started = time.monotonic()
    project = tmp / "kill-project"
    project.mkdir()
    (project / "notes.txt").write_text("alpha\nbeta\n")
    with FakeLLM() as fake:
        stats = run_trials(
            fake, tmp / "kill.db", project, slop_env(fake, tmp / "home"), tmp / "home", trials=kills, seed=seed
        )
    return Row(
        "kill -9 during a tool turn",
        f"{stats.trials} kills (seed {seed})",
        time.monotonic() - started,
        {
            "unopenable ledgers": stats.unopenable,
            "invalid requests": stats.invalid_requests,
            "unanswered calls": stats.ledger_problems,
            "failed next turns": stats.failed_next_turns,
        },
        notes=f"{stats.closed_calls} calls closed as cancelled at the next start",
        problems=stats.problems,
    )


# One worker of the many-processes experiment: the real app, turns until done; a busy
# session (the other worker of the pair is mid-turn) is retried after a short pause.
TURN_WORKER = """
import json, random, sys, time
from slop.app import build
from slop.approval import ApprovalPolicy
from slop.settings import Settings
from tests.recording import Recorder
db, home, project, url, session, name, turns = sys.argv[1:8]
settings = Settings(db_path=db, home=home, project_root=project, max_retries=0, approval="yes",
                    openai_api_key="sk-stress-1", openai_base_url=url, model="fake-gpt", session=session)
rec = Recorder()
app = build(settings, rec, rec, ApprovalPolicy("yes"))
done = busy = failed = 0
errors = []
for i in range(int(turns)):
    while True:
        outcome = app.engine.handle(f"{name} turn {i}")
        if outcome.ok:
            done += 1
            break
        if "is busy in another slop" in outcome.error:
            busy += 1
            time.sleep(random.uniform(0.001, 0.02))
            continue
        failed += 1
        errors.append(outcome.error)
        break
app.close()
print(json.dumps({"done": done, "busy": busy, "failed": failed, "errors": errors[:5]}))
"""


def many_processes(tmp: Path, workers: int, turns: int) -> Row:
    started = time.monotonic()
    project = tmp / "many-project"
    project.mkdir()
    db = tmp / "many.db"
    Store.open(str(db)).close()
    with FakeLLM() as fake:
        for k in range(workers * turns // 2):  # half the turns append to the scratchpad
            fake.enqueue_tool_calls([("manage_scratchpad", {"action": "append", "content": f"note-{k}"})])
            fake.enqueue_text(f"answer {k}")
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    TURN_WORKER,
                    str(db),
                    str(tmp / "home"),
                    str(project),
                    fake.openai_base_url,
                    f"s{w // 2}",
                    f"w{w}",
                    str(turns),
                ],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for w in range(workers)
        ]
        reports = []
        problems: list[str] = []
        for proc in procs:
            out, err = proc.communicate(timeout=3600)
            if proc.returncode:
                problems.append(f"worker exited {proc.returncode}: {err.strip()[-300:]}")
                continue
            reports.append(json.loads(out.strip().splitlines()[-1]))
        bodies = [r.json for r in fake.requests if "chat" in r.target and isinstance(r.json, dict)]
    invalid = sum(bool(request_problems(body)) for body in bodies)
    done = sum(r["done"] for r in reports)
    problems += [e for r in reports for e in r["errors"]]
    lost_rows, lost_notes = _count_losses(db, workers, turns)
    problems += ledger_problems(db)
    return Row(
        "one ledger, many processes",
        f"{workers} processes x {turns} turns ({workers // 2} sessions)",
        time.monotonic() - started,
        {
            "invalid requests": invalid,
            "failed turns": sum(r["failed"] for r in reports) + (workers - len(reports)),
            "lost rows": lost_rows,
            "lost scratchpad updates": lost_notes,
            "unanswered calls": len(ledger_problems(db)),
        },
        notes=f"{done} turns, {len(bodies)} model calls, {sum(r['busy'] for r in reports)} busy refusals retried",
        problems=problems,
    )


def _count_losses(db: Path, workers: int, turns: int) -> tuple[int, int]:
    """Rows: every turn has its user row and a final answer. Notes: every append the
    model asked for (a manage_scratchpad result row) is in that session's scratchpad."""
    conn = sqlite3.connect(db)
    try:
        users = conn.execute("SELECT COUNT(*) FROM messages WHERE role='user'").fetchone()[0]
        answers = conn.execute(
            "SELECT COUNT(*) FROM messages WHERE role='assistant' AND status='completed'"
        ).fetchone()[0]
        lost_rows = (workers * turns - users) + (workers * turns - answers)
        pads = {sid: (pad or "").splitlines() for sid, pad in conn.execute("SELECT id, scratchpad FROM sessions")}
        lost_notes = 0
        for session, content in conn.execute("SELECT session_id, content FROM messages WHERE status='tool_call'"):
            for call in json.loads(content)["tool_calls"]:
                note = json.loads(call["function"]["arguments"])["content"]
                lost_notes += pads.get(session, []).count(note) != 1
    finally:
        conn.close()
    return lost_rows, lost_notes


def scratchpad_writers(tmp: Path, writers: int, appends: int) -> Row:
    started = time.monotonic()
    ledger, go = tmp / "pad.db", tmp / "pad-go"
    Store.open(str(ledger)).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(ledger), f"w{n}", str(appends), str(go)], stderr=subprocess.PIPE
        )
        for n in range(writers)
    ]
    time.sleep(1.0)
    go.touch()
    problems = [p.communicate(timeout=3600)[1].decode().strip()[-300:] for p in procs]
    failed = sum(1 for p in procs if p.returncode)
    store = Store.open(str(ledger))
    lines = store.sessions.scratchpad("shared").splitlines()
    store.close()
    expected = {f"w{n}-{i}" for n in range(writers) for i in range(appends)}
    return Row(
        "scratchpad writers",
        f"{writers} processes x {appends} appends",
        time.monotonic() - started,
        {"lost scratchpad updates": len(expected - set(lines)), "failed writers": failed},
        notes=f"{len(lines)} lines kept",
        problems=[p for p in problems if p],
    )


def print_table(rows: list[Row]) -> None:
    print("| experiment | runs | failures | seconds | notes |")
    print("|---|---|---|---|---|")
    for row in rows:
        failures = ", ".join(f"{v} {k}" for k, v in row.failures.items())
        print(f"| {row.name} | {row.runs} | {failures} | {row.seconds:.0f} | {row.notes} |")
    for row in rows:
        for problem in row.problems[:10]:
            print(f"  {row.name}: {problem}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--openers", type=int, default=6)
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--appends", type=int, default=300)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--only", choices=["race", "kill", "many", "scratchpad"], action="append")
    args = parser.parse_args()
    experiments: dict[str, Callable[[Path], Row]] = {
        "race": lambda tmp: fresh_ledger_race(tmp, args.rounds, args.openers),
        "kill": lambda tmp: kill_trials(tmp, args.kills, args.seed),
        "many": lambda tmp: many_processes(tmp, args.workers, args.turns),
        "scratchpad": lambda tmp: scratchpad_writers(tmp, args.writers, args.appends),
    }
    rows = []
    with tempfile.TemporaryDirectory(prefix="slop-stress-") as tmp:
        for name, run in experiments.items():
            if args.only and name not in args.only:
                continue
            rows.append(run(Path(tmp)))
            print(f"{name}: done in {rows[-1].seconds:.0f} s", file=sys.stderr)
    print_table(rows)
    return 0 if all(row.ok for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
