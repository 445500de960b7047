"""Item 5 (and 4): kill -9 at random points of a multi-step tool turn, 30 times; every
next start opens the ledger, finds it whole (each tool call has a result) and sends a
valid request. scripts/stress_integrity.py runs the same with 200+ trials."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.fakellm import FakeLLM
from tests.reliability.conftest import SlopRunner
from tests.reliability.crash import run_trials

SEED = 20261123  # fixed, so a failure replays; the stress script varies it


def test_kill_9_at_random_points_never_breaks_the_ledger_or_the_session(
    slop: SlopRunner, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    stats = run_trials(fake_llm, slop.db, slop.project, slop.env, tmp_path / "home", trials=30, seed=SEED)
    assert stats.problems == []
    assert (stats.unopenable, stats.invalid_requests, stats.ledger_problems, stats.failed_next_turns) == (0, 0, 0, 0)
    conn = sqlite3.connect(slop.db)
    cancelled = conn.execute("SELECT content FROM messages WHERE status='cancelled'").fetchall()
    users = conn.execute("SELECT COUNT(*) FROM messages WHERE role='user' AND content LIKE 'after trial %'").fetchone()
    conn.close()
    assert users == (30,)  # every next start's turn is in the ledger
    # the kills did land between a call and its results (else this test proves nothing)
    assert stats.closed_calls > 0 and cancelled
