"""Apps wired to real MCP servers: tests/mcpclient/notes_server.py started by slop over stdio."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from slop.app import App, build
from slop.approval import ApprovalPolicy, Ask
from slop.settings import Settings
from tests.fakellm import FakeLLM
from tests.recording import Recorder

SERVER = str(Path(__file__).with_name("notes_server.py"))
STARTUP = 60.0  # generous: the SDK's import alone takes seconds on a loaded 2-core machine


def notes_server(notes: Path, mode: str = "ok", **extra: Any) -> dict[str, Any]:
    """The `[mcp.servers.NAME]` table of a notes server writing to `notes`."""
    return {"command": [sys.executable, SERVER, mode], "env": {"NOTES_FILE": str(notes)}, **extra}


@dataclass
class McpApp:
    app: App
    rec: Recorder
    notes: Path

    def started(self) -> None:
        pending = self.app.mcp.wait_started(STARTUP, threading.Event())
        assert pending == [], f"MCP servers still starting: {pending}"

    def state(self, name: str) -> str:
        return next(s.state for s in self.app.mcp.statuses() if s.name == name)


McpAppFactory = Callable[..., McpApp]


@pytest.fixture
def mcp_app(tmp_path: Path, fake_llm: FakeLLM) -> Iterator[McpAppFactory]:
    apps: list[App] = []
    project = tmp_path / "project"
    project.mkdir()

    def factory(
        servers: dict[str, dict[str, Any]] | None = None,
        *,
        approval: str = "yes",
        ask: Ask | None = None,
        wait: bool = True,
        **overrides: Any,
    ) -> McpApp:
        notes = tmp_path / "notes.txt"
        config = tmp_path / "mcp.json"
        config.write_text(
            json.dumps({"mcpServers": servers if servers is not None else {"notes": notes_server(notes)}})
        )
        values: dict[str, Any] = dict(
            db_path=str(tmp_path / "ledger.db"),
            home=str(tmp_path / "home"),
            project_root=str(project),
            max_retries=0,
            approval=approval,
            openai_api_key="sk-test-key-123456",
            openai_base_url=fake_llm.openai_base_url,
            model="fake-gpt",
            mcp_config=str(config),
        )
        values.update(overrides)
        rec = Recorder()
        app = build(Settings(**values), rec, rec, ApprovalPolicy(approval, ask, rec.warning))
        apps.append(app)
        result = McpApp(app, rec, notes)
        if wait:
            result.started()
        return result

    yield factory
    for app in apps:
        app.close()
