"""Item 6: SIGTERM and SIGHUP end running tool process groups like Esc does, keep the
partial reply as interrupted, then slop exits (128 + the signal's number)."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from pathlib import Path

import pexpect
import pytest

from slop.store.turnlock import process_running
from tests.e2e.test_pty import term  # noqa: F401 - the real-terminal fixture
from tests.fakellm import FakeLLM
from tests.reliability.checks import ledger_problems
from tests.reliability.conftest import SlopRunner

SIGNALS = [signal.SIGTERM, signal.SIGHUP]


def slow_tool(fake: FakeLLM, marker: Path) -> None:
    """A tool that writes its pid, then sleeps far longer than the test."""
    fake.enqueue_tool_calls([("execute_bash", {"command": f"echo $$ > {marker}; exec sleep 60"})])
    fake.enqueue_text("never reached")


def started_pid(marker: Path, timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if marker.exists() and marker.read_text().strip():
            time.sleep(0.2)  # let it get to the sleep
            return int(marker.read_text())
        time.sleep(0.05)
    raise AssertionError("the tool never started")


def gone(pid: int, timeout: float = 5) -> bool:
    deadline = time.monotonic() + timeout
    while process_running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def rows(db: Path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT role, status, content FROM messages ORDER BY id").fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: s.name)
def test_batch_run_stops_its_tool_and_reports(
    slop: SlopRunner, fake_llm: FakeLLM, tmp_path: Path, signum: signal.Signals
) -> None:
    marker = tmp_path / "pid"
    slow_tool(fake_llm, marker)
    run = slop.popen("--yes", "--output-format", "jsonl", "--prompt", "run the slow thing")
    sleeper = started_pid(marker)
    run.send_signal(signum)
    out, _err = run.communicate(timeout=30)
    assert run.returncode == 128 + signum
    assert gone(sleeper), "the tool's process outlived slop"
    done = json.loads(out.splitlines()[-1])
    assert done["type"] == "done" and done["ok"] is False and signum.name in done["error"]
    assert [(r[0], r[1]) for r in rows(slop.db)] == [
        ("user", "completed"),
        ("assistant", "tool_call"),
        ("tool", "cancelled"),
    ]
    assert ledger_problems(slop.db) == []


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: s.name)
def test_repl_stops_its_tool_and_exits(term, fake_llm: FakeLLM, tmp_path: Path, signum: signal.Signals) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    marker = tmp_path / "pid"
    slow_tool(fake_llm, marker)
    t = term("--yes")
    t.prompt()
    t.enter("run the slow thing")
    sleeper = started_pid(marker)
    t.child.kill(signum)
    t.child.expect(pexpect.EOF, timeout=30)
    t.child.close()
    assert t.child.exitstatus == 128 + signum
    assert gone(sleeper), "the tool's process outlived slop"
    assert [(r[0], r[1]) for r in rows(t.db)][-1] == ("tool", "cancelled")
    assert ledger_problems(t.db) == []


def test_sigterm_mid_stream_keeps_the_partial_reply(slop: SlopRunner, fake_llm: FakeLLM) -> None:
    text = "one two three four five six seven eight nine ten"
    fake_llm.enqueue_text(text, chunks=[w + " " for w in text.split()[:-1]] + ["ten"], delay=0.3)
    run = slop.popen("--prompt", "count slowly")
    fake_llm.wait_for_requests(1, timeout=20)
    time.sleep(1.2)  # a few words have arrived
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 128 + signal.SIGTERM
    assert "stopped by SIGTERM" in out + err, (out, err)
    role, status, content = rows(slop.db)[-1]
    assert (role, status) == ("assistant", "interrupted")
    assert content and text.startswith(content.rstrip()) and content.rstrip() != text


def test_sigterm_at_the_idle_prompt_exits_cleanly(term) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    t = term()
    t.prompt()
    t.child.kill(signal.SIGTERM)
    t.expect("stopped by SIGTERM", timeout=15)
    t.child.expect(pexpect.EOF, timeout=15)
    t.child.close()
    assert t.child.exitstatus == 128 + signal.SIGTERM
