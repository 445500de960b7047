"""kill -9 at a random point of a multi-step tool turn, then the next start: shared by
tests/reliability/test_crash.py (30 trials) and scripts/stress_integrity.py (200+)."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from slop.app import build
from slop.approval import ApprovalPolicy
from slop.settings import Settings
from slop.store.repair import CANCELLED_RESULT
from slop.store.turnlock import process_running
from tests.fakellm import FakeLLM
from tests.recording import Recorder
from tests.reliability.checks import ledger_problems, request_problems

# Runs the real `slop` main (slop.cli.main, what the `slop` command calls) in processes
# forked from one that imported slop and the SDK once: each trial's process is killed
# for real with SIGKILL, and the suite does not pay Python's start-up 30 times.
# One line per run on stdin (tab-separated arguments); the child's pid comes back.
FORK_SERVER = """
import os, sys
import openai, slop.runbatch  # noqa: F401 - imported once, shared by every fork
from slop.cli import main
from slop.context.tokens import Tokenizer
Tokenizer().count("load the encoding once, too")
for line in sys.stdin:
    while True:  # reap the runs killed so far
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1):
            os.dup2(null, fd)  # the pipes are the fork server's
        code = 1
        try:
            code = main(line.rstrip("\\n").split("\\t"))
        finally:
            os._exit(code)
    sys.stdout.write(f"{pid}\\n")
    sys.stdout.flush()
"""


class ForkServer:
    def __init__(self, project: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", FORK_SERVER],
            cwd=project,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def run(self, *args: str) -> int:
        """Start `slop ARGS` in a new process; returns its pid at once."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("\t".join(args) + "\n")
        self.proc.stdin.flush()
        return int(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


# A turn of three model calls: one tool, two tools at once, then the answer, ~0.6 s on
# an idle machine from the user row on. Most kills come a random time after the turn's
# user row appears (streaming, between a call row and its results, between steps,
# storing the answer, shutting down); some during start-up (opening, migrating).
TURN_WINDOW = 0.65
START_UP_SHARE = 0.15


def script_turn(fake: FakeLLM) -> None:
    fake.enqueue_tool_calls([("execute_bash", {"command": "sleep 0.03; echo one"})], text="First", delay=0.003)
    fake.enqueue_tool_calls(
        [("read_file", {"path": "notes.txt"}), ("execute_bash", {"command": "sleep 0.03; echo two"})], delay=0.003
    )
    fake.enqueue_text("All done, here is a longer answer to stream.", delay=0.006)


@dataclass
class CrashStats:
    trials: int = 0
    unopenable: int = 0
    invalid_requests: int = 0
    ledger_problems: int = 0
    failed_next_turns: int = 0
    closed_calls: int = 0
    problems: list[str] = field(default_factory=list)


def run_trials(
    fake: FakeLLM, db: Path, project: Path, env: dict[str, str], home: Path, trials: int, seed: int
) -> CrashStats:
    rng = random.Random(seed)
    stats = CrashStats()
    server = ForkServer(project, env)
    try:
        for trial in range(trials):
            fake.reset()
            script_turn(fake)
            pid = server.run("--db", str(db), "--yes", "--prompt", f"trial {trial}")
            if rng.random() < START_UP_SHARE:
                time.sleep(rng.uniform(0, 0.2))
            else:
                wait_for_turn(db, f"trial {trial}", pid)
                time.sleep(rng.uniform(0, TURN_WINDOW))
            kill(pid)
            stats.trials += 1
            next_start(fake, db, project, home, stats, trial)
    finally:
        server.close()
    return stats


def kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    while process_running(pid):  # a zombie counts as gone: the fork server reaps it later
        time.sleep(0.002)


def wait_for_turn(db: Path, prompt: str, pid: int, timeout: float = 30) -> None:
    """Until the run has stored its user row (read through a separate connection)."""
    deadline = time.monotonic() + timeout
    while process_running(pid) and time.monotonic() < deadline:
        try:
            conn = sqlite3.connect(db)
            try:
                if conn.execute("SELECT 1 FROM messages WHERE role='user' AND content=?", (prompt,)).fetchone():
                    return
            finally:
                conn.close()
        except sqlite3.Error:
            pass  # not created or not migrated yet
        time.sleep(0.005)


def count_closed(db: Path) -> int:
    """Results written by the crash repair so far."""
    try:
        conn = sqlite3.connect(db)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM messages WHERE content=?", (CANCELLED_RESULT,)).fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def next_start(fake: FakeLLM, db: Path, project: Path, home: Path, stats: CrashStats, trial: int) -> None:
    """A fresh start on the ledger: it must open, be whole, and send a valid request."""
    fake.reset()
    fake.enqueue_text("next start answers")
    settings = Settings(
        db_path=str(db),
        home=str(home),
        project_root=str(project),
        max_retries=0,
        approval="yes",
        openai_api_key="sk-test-crash-1",
        openai_base_url=fake.openai_base_url,
        model="fake-gpt",
    )
    recorder = Recorder()
    cancelled_before = count_closed(db)
    try:
        app = build(settings, recorder, recorder, ApprovalPolicy("yes"))
    except Exception as exc:  # counting every way a ledger can fail to open
        stats.unopenable += 1
        stats.problems.append(f"trial {trial}: cannot open: {exc}")
        return
    try:
        before = ledger_problems(db)  # the start already closed what the kill left open
        stats.ledger_problems += len(before)
        stats.problems += [f"trial {trial}: at start: {p}" for p in before]
        stats.closed_calls += count_closed(db) - cancelled_before
        outcome = app.engine.handle(f"after trial {trial}")
        if not outcome.ok:
            stats.failed_next_turns += 1
            stats.problems.append(f"trial {trial}: next turn failed: {outcome.error}")
        for request in fake.requests:
            # every complete request counts, the killed run's late ones too; a body cut
            # short by the kill in the middle of sending it never reached a model
            if "chat" in request.target and isinstance(request.json, dict):
                found = request_problems(request.json)
                stats.invalid_requests += bool(found)
                stats.problems += [f"trial {trial}: {p}" for p in found]
        after = ledger_problems(db)
        stats.ledger_problems += len(after)
        stats.problems += [f"trial {trial}: after: {p}" for p in after]
    finally:
        app.close()
