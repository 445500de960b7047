"""MCP servers listed in slop's own config file (`.slop/config.toml`), started with the
session like those of `--mcp-config`; the file named on the command line wins by name."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from slop.config import load_config
from tests.fakellm import FakeLLM
from tests.mcpclient.conftest import SERVER, McpAppFactory, notes_server


def project_config(tmp_path: Path, notes: Path) -> Path:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)  # the git top level: where .slop/ is looked for
    config = project / ".slop" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(
        "[mcp.servers.notes]\n"
        f"command = {json.dumps([sys.executable, SERVER, 'ok'])}\n"
        f"env.NOTES_FILE = {json.dumps(str(notes))}\n"
    )
    return project


def test_a_server_in_the_project_config_file_serves_a_turn(
    mcp_app: McpAppFactory, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    notes = tmp_path / "from-config-file.txt"
    project = project_config(tmp_path, notes)
    m = mcp_app(config=load_config(project), mcp_config="")
    assert [(s.name, s.state) for s in m.app.mcp.statuses()] == [("notes", "ready")]
    fake_llm.enqueue_tool_calls([("notes__add_note", {"text": "ship it"})])
    fake_llm.enqueue_text("Noted.")
    outcome = m.app.engine.handle("note: ship it")
    assert outcome.ok, outcome.error
    assert notes.read_text() == "ship it\n"  # the server the config file names really ran it


def test_the_mcp_config_flag_wins_over_the_config_file_for_the_same_name(
    mcp_app: McpAppFactory, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    from_file, from_flag = tmp_path / "from-config-file.txt", tmp_path / "from-flag.txt"
    project = project_config(tmp_path, from_file)
    m = mcp_app({"notes": notes_server(from_flag)}, config=load_config(project))
    fake_llm.enqueue_tool_calls([("notes__add_note", {"text": "which one"})])
    fake_llm.enqueue_text("Noted.")
    assert m.app.engine.handle("note it").ok
    assert from_flag.read_text() == "which one\n" and not from_file.exists()
