"""MCP in a real pseudo-terminal: the prompt is up while servers start, a broken server is
one warning line above the prompt, Esc stops a slow MCP call, /mcp shows the states."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path

import pexpect

from tests.e2e.test_pty import Term
from tests.fakellm import FakeLLM
from tests.mcpclient.conftest import notes_server

SLOP = shutil.which("slop", path=str(Path(sys.executable).parent)) or "slop"


def start(tmp_path: Path, fake_llm: FakeLLM, servers: dict[str, object]) -> Term:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE", "SLOP"))}
    env.update(
        OPENAI_API_KEY="sk-test-pty-123456",
        OPENAI_BASE_URL=fake_llm.openai_base_url,
        SLOP_MAX_RETRIES="0",
        TERM="xterm-256color",
        SLOP_HOME=str(tmp_path / "home"),
        SLOP_MCP_CONFIG=str(config),
    )
    db = tmp_path / "ledger.db"
    child = pexpect.spawn(
        SLOP,
        ["--db", str(db), "--model", "fake-gpt"],
        cwd=str(project),
        env=env,
        dimensions=(40, 140),
        encoding="utf-8",
        timeout=60,
    )
    return Term(child, db)


def wait_for(path: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def test_mcp_session_in_a_terminal(tmp_path: Path, fake_llm: FakeLLM) -> None:
    notes = tmp_path / "notes.txt"
    t = start(tmp_path, fake_llm, {"broken": notes_server(notes, "crash"), "notes": notes_server(notes)})
    try:
        t.prompt()  # drawn without waiting for any MCP server
        t.expect("MCP server 'broken' failed to start", timeout=60)  # one line, printed above the prompt
        t.expect("missing NOTES_TOKEN")
        fake_llm.enqueue_tool_calls([("notes__slow", {"seconds": 30})])
        t.enter("wait for it")
        wait_for(Path(str(notes) + ".slow-started"))  # the call is running in the server
        t.type("\x1b")
        t.expect("cancel", timeout=10)
        t.prompt()
        t.enter("/mcp")
        t.expect("failed")  # broken (rows in name order)
        t.expect("ready")  # notes
        t.prompt()
        t.enter("/exit")
        t.child.expect(pexpect.EOF, timeout=30)
    finally:
        if t.child.isalive():
            t.child.terminate(force=True)
    conn = sqlite3.connect(t.db)
    try:
        rows = conn.execute("SELECT status, content FROM messages WHERE role='tool'").fetchall()
    finally:
        conn.close()
    assert rows == [("cancelled", "[Cancelled]")]
    assert not Path(str(notes) + ".slow-done").exists()
    pid = int(Path(str(notes) + ".pid").read_text())
    stat = Path(f"/proc/{pid}/stat")
    assert not stat.exists() or stat.read_text().split()[2] == "Z"  # slop's exit stopped the server
