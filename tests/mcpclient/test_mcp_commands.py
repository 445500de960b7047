"""/mcp restart and /mcp log on real servers (tests/mcpclient/notes_server.py over stdio):
what the user is told, and which one-line error a wrong name or a missing server gets."""

from __future__ import annotations

from pathlib import Path

from slop.commands.mcp import NO_SERVERS
from tests.mcpclient.conftest import McpAppFactory, notes_server


def test_the_log_of_a_server_that_failed_shows_why(mcp_app: McpAppFactory, tmp_path: Path) -> None:
    m = mcp_app({"broken": notes_server(tmp_path / "notes.txt", "crash")})
    m.rec.events.clear()
    m.app.engine.handle("/mcp log broken")
    [shown] = m.rec.viewed
    log = tmp_path / "home" / "mcp" / "broken.log"
    assert shown.startswith(f"{log}\n\n")
    assert "missing NOTES_TOKEN" in shown


def test_restarting_a_server_says_it_runs_and_how_many_tools_it_has(mcp_app: McpAppFactory) -> None:
    m = mcp_app()
    m.rec.events.clear()
    m.app.engine.handle("/mcp restart notes")
    assert m.rec.kinds("success") == ["MCP server 'notes' running: 5 tool(s)"]
    assert m.state("notes") == "ready"


def test_restart_all_restarts_each_server(mcp_app: McpAppFactory, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    m = mcp_app({"first": notes_server(notes), "second": notes_server(notes)})
    m.rec.events.clear()
    m.app.engine.handle("/mcp restart all")
    assert m.rec.kinds("success") == [
        "MCP server 'first' running: 5 tool(s)",
        "MCP server 'second' running: 5 tool(s)",
    ]


def test_a_name_that_is_not_configured_is_refused_with_the_ones_that_are(mcp_app: McpAppFactory) -> None:
    m = mcp_app()
    m.rec.events.clear()
    for line in ("/mcp restart nots", "/mcp log nots"):
        outcome = m.app.engine.handle(line)
        assert not outcome.ok
    assert m.rec.kinds("error") == ["no MCP server 'nots'; configured: notes"] * 2
    assert m.state("notes") == "ready"  # nothing was restarted


def test_restart_and_log_without_a_name_ask_which_server(mcp_app: McpAppFactory) -> None:
    m = mcp_app()
    m.rec.events.clear()
    m.app.engine.handle("/mcp restart")
    m.app.engine.handle("/mcp log")
    errors = m.rec.kinds("error")
    assert len(errors) == 2 and all("which server? (notes)" in e for e in errors)


def test_an_http_server_has_no_local_log(mcp_app: McpAppFactory) -> None:
    m = mcp_app({"web": {"url": "http://127.0.0.1:9/mcp", "startup_timeout": 2}})
    m.rec.events.clear()
    m.app.engine.handle("/mcp log web")
    assert m.rec.kinds("error") == ["MCP server 'web' is an HTTP server: it has no local log"]


def test_without_servers_list_says_how_to_add_one_and_restart_refuses(mcp_app: McpAppFactory) -> None:
    m = mcp_app({})
    m.app.engine.handle("/mcp")
    m.app.engine.handle("/mcp restart all")
    assert m.rec.kinds("info")[-1] == NO_SERVERS
    assert m.rec.kinds("error") == [NO_SERVERS]


def test_mcp_list_takes_no_arguments(mcp_app: McpAppFactory) -> None:
    m = mcp_app()
    m.rec.events.clear()
    outcome = m.app.engine.handle("/mcp list notes")
    assert not outcome.ok
    [error] = m.rec.kinds("error")
    assert "/mcp list takes no arguments" in error
