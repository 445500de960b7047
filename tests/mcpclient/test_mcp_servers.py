"""Server life cycle as the user sees it: start-up in the background, failures as one
warning line, /mcp and /tool list, waiting for a slow server, no SDK without servers."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from tests.fakellm import FakeLLM
from tests.mcpclient.conftest import McpAppFactory, notes_server


def mcp_warnings(rec) -> list[str]:  # type: ignore[no-untyped-def]
    return [w for w in rec.kinds("warning") if w.startswith("MCP server")]


def test_a_server_that_crashes_at_start_is_one_warning_line(
    mcp_app: McpAppFactory, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    m = mcp_app({"broken": notes_server(notes, "crash"), "notes": notes_server(notes)})
    (warning,) = mcp_warnings(m.rec)
    assert warning.startswith("MCP server 'broken' ")
    assert "missing NOTES_TOKEN, giving up" in warning  # the server's own reason, from its stderr
    assert "(/mcp restart broken; log " in warning and "\n" not in warning
    assert m.state("broken") == "failed" and m.state("notes") == "ready"
    fake_llm.enqueue_text("Hello.")
    assert m.app.engine.handle("hi").ok  # the session goes on, with the other server's tools
    offered = {t["function"]["name"] for t in fake_llm.last_request("chat").json["tools"]}
    assert "notes__add_note" in offered and not any(n.startswith("broken__") for n in offered)


def test_a_command_that_does_not_exist_is_one_warning_line(mcp_app: McpAppFactory, tmp_path: Path) -> None:
    m = mcp_app({"ghost": {"command": [str(tmp_path / "no-such-server")]}})
    (warning,) = mcp_warnings(m.rec)
    assert warning.startswith("MCP server 'ghost' failed to start: FileNotFoundError")
    assert "no-such-server" in warning and "\n" not in warning


def test_an_unreachable_http_server_is_one_warning_line(mcp_app: McpAppFactory) -> None:
    m = mcp_app({"remote": {"url": "http://127.0.0.1:9/mcp", "startup_timeout": 20}})
    (warning,) = mcp_warnings(m.rec)
    assert warning.startswith("MCP server 'remote' failed to start: ") and "\n" not in warning
    assert "log " not in warning  # an HTTP server has no local log


def test_a_server_that_never_answers_times_out(mcp_app: McpAppFactory, tmp_path: Path) -> None:
    hang = {"command": [sys.executable, "-c", "import time; time.sleep(120)"], "startup_timeout": 2}
    m = mcp_app({"stuck": hang})
    log = tmp_path / "home" / "mcp" / "stuck.log"
    assert mcp_warnings(m.rec) == [f"MCP server 'stuck' did not start within 2 s (/mcp restart stuck; log {log})"]


def test_mcp_lists_servers_state_tools_and_last_error(mcp_app: McpAppFactory, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    m = mcp_app(
        {
            "broken": notes_server(notes, "crash"),
            "notes": notes_server(notes),
            "later": notes_server(notes, enabled=False),
        }
    )
    m.app.engine.handle("/mcp")
    (table,) = m.rec.kinds("table")
    header, *rows = table.splitlines()
    assert header == "Server | Transport | State | Tools | Last error"
    broken, later, ready = rows
    assert broken.startswith("broken | stdio: ") and " | failed | 0 | " in broken and "missing NOTES_TOKEN" in broken
    assert later.startswith("later | stdio: ") and later.endswith(" | disabled | 0 | -")
    assert ready.startswith("notes | stdio: ") and ready.endswith(" | ready | 5 | -")


def test_tool_list_shows_mcp_tools_with_their_approval(mcp_app: McpAppFactory) -> None:
    m = mcp_app()
    m.app.engine.handle("/tool list")
    (table,) = m.rec.kinds("table")
    rows = {line.split(" | ")[0]: line.split(" | ") for line in table.splitlines()[1:]}
    assert rows["notes__add_note"][1:3] == ["Add one note to the notes file", "asks"]
    assert rows["notes__list_notes"][1:3] == ["List the notes", "-"]
    assert list(rows)[-5:] == ["notes__add_note", "notes__list_notes", "notes__slow", "notes__die", "notes__fail"]
    m.app.engine.handle("/tool disable notes__add_note")
    assert "tool notes__add_note disabled" in m.rec.kinds("success")[-1]


def offered(m) -> list[str]:  # type: ignore[no-untyped-def]
    return [spec.name for spec in m.app.orchestrator.context.tool_specs()]


def test_restart_a_disabled_server_and_read_its_log(mcp_app: McpAppFactory, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    m = mcp_app({"notes": notes_server(notes, enabled=False)})
    assert m.state("notes") == "disabled" and "notes__add_note" not in offered(m)
    m.app.engine.handle("/mcp restart notes")
    assert m.state("notes") == "ready"
    assert "notes__add_note" in offered(m)
    m.app.engine.handle("/mcp log notes")
    assert m.rec.viewed and "starting " + sys.executable in m.rec.viewed[-1]
    outcome = m.app.engine.handle("/mcp restart nobody")
    assert not outcome.ok and outcome.error == "no MCP server 'nobody'; configured: notes"


def test_mcp_without_servers_says_how_to_add_one(mcp_app: McpAppFactory) -> None:
    m = mcp_app(mcp_config="")
    app, rec = m.app, m.rec
    app.engine.handle("/mcp")
    assert rec.kinds("info") and "no MCP servers configured" in rec.kinds("info")[-1]
    outcome = app.engine.handle("/mcp restart x")
    assert not outcome.ok and "--mcp-config FILE" in outcome.error


def test_the_first_turn_waits_for_a_server_still_starting(
    mcp_app: McpAppFactory, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    slow = notes_server(notes, "slow-start")
    slow["env"]["NOTES_START_DELAY"] = "2"
    m = mcp_app({"notes": slow}, wait=False)
    assert m.state("notes") == "starting"  # build() returned before the server was up
    fake_llm.enqueue_tool_calls([("notes__add_note", {"text": "first"})])
    fake_llm.enqueue_text("ok")
    assert m.app.engine.handle("note it").ok
    assert any(i.startswith("waiting for MCP server(s) notes to start") for i in m.rec.kinds("info"))
    assert notes.read_text() == "first\n"  # its tools were in the very first request


def test_no_mcp_sdk_is_imported_without_servers(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from slop.app import build\n"
        "from slop.approval import ApprovalPolicy\n"
        "from slop.settings import Settings\n"
        "from tests.recording import Recorder\n"
        "r = Recorder()\n"
        f"s = Settings(db_path={str(tmp_path / 'l.db')!r}, home={str(tmp_path / 'h')!r},"
        f" project_root={str(tmp_path)!r})\n"
        "app = build(s, r, r, ApprovalPolicy('yes'))\n"
        "app.engine.handle('/mcp')\n"
        "app.close()\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'anyio.from_thread'))))\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stderr


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "?"
    return state != "Z"  # a zombie has exited


def test_closing_the_app_stops_the_server_processes(mcp_app: McpAppFactory) -> None:
    m = mcp_app()
    assert m.app.mcp.call("notes", "list_notes", {}, threading.Event()).text == "(no notes)"
    pid = int(Path(str(m.notes) + ".pid").read_text())
    assert alive(pid), "the server process runs while the session is open"
    m.app.close()
    assert not alive(pid)
