"""A streamable HTTP MCP server (the same notes server, served over HTTP by the SDK)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakellm import FakeLLM
from tests.mcpclient.conftest import SERVER, McpAppFactory


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    port, notes = free_port(), tmp_path / "http-notes.txt"
    env = {**os.environ, "NOTES_PORT": str(port), "NOTES_FILE": str(notes)}
    log = (tmp_path / "http-server.log").open("w")
    proc = subprocess.Popen([sys.executable, SERVER, "http"], env=env, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "http-server.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP MCP server did not come up"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", notes
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def test_tools_of_an_http_server_with_headers(
    mcp_app: McpAppFactory, fake_llm: FakeLLM, http_server: tuple[str, Path]
) -> None:
    url, notes = http_server
    m = mcp_app({"remote": {"url": url, "headers": {"X-Notes-Token": "tok-secret-123"}}}, approval="yes")
    assert m.state("remote") == "ready"
    fake_llm.enqueue_tool_calls([("remote__add_note", {"text": "over http"}), ("remote__token", {})])
    fake_llm.enqueue_text("done")
    assert m.app.engine.handle("note it remotely").ok
    assert notes.read_text() == "over http\n"
    rows = [r.content for r in m.app.store.messages.recent("default", 100) if r.role == "tool"]
    # The configured header reached the server; echoed back, it is redacted like an API key.
    assert rows == ["noted: over http", "[REDACTED]"]
    assert "tok-secret-123" not in str(fake_llm.last_request("chat").json)
    m.app.engine.handle("/mcp")
    assert f"remote | http: {url} | ready | 6 | -" in m.rec.kinds("table")[-1]
