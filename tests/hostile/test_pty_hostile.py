"""Hostile replies in the real REPL, in a pseudo-terminal: after each one slop is back
at its prompt and the next input works; nothing is written to the debug log."""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path

import pexpect

from tests.fakellm import FakeLLM, ToolCallSpec, ToolCallsReply

SLOP = shutil.which("slop", path=str(Path(sys.executable).parent)) or "slop"
CPR_REQUEST = "\x1b\\[6n"


def _expect(child: pexpect.spawn, pattern: str, timeout: float = 30) -> None:
    """Wait for `pattern`, answering cursor-position requests as a terminal does."""
    deadline = time.monotonic() + timeout
    while child.expect([pattern, CPR_REQUEST], timeout=max(0.1, deadline - time.monotonic())) != 0:
        child.send("\x1b[1;1R")


def test_hostile_replies_leave_the_repl_at_its_prompt(fake_llm: FakeLLM, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    db = tmp_path / "ledger.db"
    fake_llm.enqueue(ToolCallsReply((ToolCallSpec("read_file", "[" * 50000),)))
    fake_llm.enqueue_text("recovered from the brackets")
    fake_llm.enqueue_text("odd \ud800 character")
    fake_llm.enqueue_text("a cut ```json\n{", finish="length")
    fake_llm.enqueue_stream_error("the upstream model crashed (fake)", text_prefix="Partial ")
    fake_llm.enqueue_text("all good now")
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE", "SLOP_"))}
    environ.update(
        OPENAI_API_KEY="sk-test-pty-123456",
        OPENAI_BASE_URL=fake_llm.openai_base_url,
        SLOP_MAX_RETRIES="0",
        SLOP_HOME=str(home),
        TERM="xterm-256color",
    )
    child = pexpect.spawn(
        SLOP,
        ["--db", str(db), "--model", "fake-gpt", "--yes"],
        cwd=str(project),
        env=environ,
        dimensions=(40, 120),
        encoding="utf-8",
        timeout=30,
    )
    try:
        steps = [
            ("read it", "recovered from the brackets"),
            ("say something odd", "odd \ufffd character"),
            ("write json", "the reply hit the output limit"),
            ("go on", "the upstream model crashed \\(fake\\)"),
            ("/context window 99999999999999999999999999", "out of range"),
            ("still there?", "all good now"),
        ]
        for line, shown in steps:
            _expect(child, "slop <W:")
            child.send(line + "\r")
            _expect(child, shown)
        _expect(child, "slop <W:")
        child.send("/exit\r")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        if child.isalive():
            child.terminate(force=True)
    assert "Traceback" not in (child.before or "")
    conn = sqlite3.connect(db)
    try:
        statuses = [r[0] for r in conn.execute("SELECT status FROM messages WHERE role='assistant' ORDER BY id")]
    finally:
        conn.close()
    # the stream error hit the turn's first call: the group is kept marked failed (not sent again; /retry)
    assert statuses == ["tool_call", "completed", "completed", "truncated", "failed", "completed"]
    assert not (home / "logs").exists() or not list((home / "logs").iterdir()), "no internal error was hit"
