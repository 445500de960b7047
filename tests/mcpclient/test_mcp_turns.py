"""Turns through the fake LLM where the model calls tools of a real stdio MCP server."""

from __future__ import annotations

import json
import threading
import time

from slop.records import ToolCall
from tests.fakellm import FakeLLM
from tests.mcpclient.conftest import McpAppFactory, notes_server


def tool_rows(app, session: str = "default"):  # type: ignore[no-untyped-def]
    return [m for m in app.store.messages.recent(session, 1000) if m.role == "tool"]


def test_model_calls_an_mcp_tool_result_is_stored_and_sent_back(mcp_app: McpAppFactory, fake_llm: FakeLLM) -> None:
    m = mcp_app()
    fake_llm.enqueue_tool_calls([("notes__add_note", {"text": "buy milk", "tags": ["home"]})])
    fake_llm.enqueue_text("Noted.")
    outcome = m.app.engine.handle("remember to buy milk")
    assert outcome.ok, outcome.error
    assert m.notes.read_text() == "buy milk [home]\n"  # the server process really ran it
    (row,) = tool_rows(m.app)
    assert (row.content, row.status) == ("noted: buy milk [home]", "completed")
    first, second = (r.json for r in fake_llm.requests if "chat" in r.path)
    offered = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert offered["notes__add_note"]["description"] == "Add one note to the notes file"
    schema = offered["notes__add_note"]["parameters"]
    assert schema["required"] == ["text"] and set(schema["properties"]) == {"text", "tags"}
    assert {"read_file", "notes__list_notes", "notes__slow"} <= set(offered)
    sent_back = [msg for msg in second["messages"] if msg["role"] == "tool"]
    assert sent_back[-1]["content"] == "noted: buy milk [home]"
    assert ("tool_done", "notes__add_note completed noted: buy milk [home]") in m.rec.events  # the short result


def test_arguments_are_validated_against_the_servers_schema(mcp_app: McpAppFactory, fake_llm: FakeLLM) -> None:
    m = mcp_app()
    fake_llm.enqueue_tool_calls([("notes__add_note", {"txt": "typo"}), ("notes__slow", {"seconds": "soon"})])
    fake_llm.enqueue_text("Oops.")
    m.app.engine.handle("note something")
    typo, wrong_type = tool_rows(m.app)
    assert typo.content == "Error: INVALID_ARGUMENT: unknown field 'txt' (accepted: text, tags)"
    assert wrong_type.content == "Error: INVALID_ARGUMENT: seconds must be a number, got a string"
    assert not m.notes.exists()  # nothing reached the server


def test_mutating_mcp_tool_asks_and_a_no_runs_nothing(mcp_app: McpAppFactory, fake_llm: FakeLLM) -> None:
    asked: list[tuple[str, str]] = []

    def ask(call: ToolCall, preview: str) -> str:
        asked.append((call.name, preview))
        return "n"

    m = mcp_app(approval="ask", ask=ask)
    fake_llm.enqueue_tool_calls([("notes__list_notes", {}), ("notes__add_note", {"text": "secret plan"})])
    fake_llm.enqueue_text("ok")
    m.app.engine.handle("list and add")
    (name, preview), *more = asked
    assert more == [] and name == "notes__add_note"  # the read-only tool (readOnlyHint) was not asked about
    assert preview.startswith("MCP tool notes.add_note (server 'notes': ")
    assert '"text": "secret plan"' in preview
    listed, refused = tool_rows(m.app)
    assert (listed.status, listed.content) == ("completed", "(no notes)")
    assert refused.content == "Error: PERMISSION_DENIED: the user refused this call"
    assert not m.notes.exists()


def test_approving_always_covers_later_calls_of_that_mcp_tool(mcp_app: McpAppFactory, fake_llm: FakeLLM) -> None:
    answers = ["a"]
    m = mcp_app(approval="ask", ask=lambda call, preview: answers.pop(0))
    fake_llm.enqueue_tool_calls([("notes__add_note", {"text": "one"})])
    fake_llm.enqueue_tool_calls([("notes__add_note", {"text": "two"})])
    fake_llm.enqueue_text("done")
    m.app.engine.handle("add two notes")
    assert m.notes.read_text() == "one\ntwo\n" and answers == []


def test_read_only_mode_runs_read_only_mcp_tools_and_refuses_the_others(
    mcp_app: McpAppFactory, fake_llm: FakeLLM, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    m = mcp_app(approval="read-only")
    m.notes.write_text("existing\n")
    fake_llm.enqueue_tool_calls([("notes__list_notes", {}), ("notes__add_note", {"text": "nope"})])
    fake_llm.enqueue_text("ok")
    m.app.engine.handle("list and add")
    listed, refused = tool_rows(m.app)
    assert (listed.status, listed.content) == ("completed", "existing\n")
    assert refused.content == (
        "Error: PERMISSION_DENIED: slop runs read-only (--read-only): no call may change anything; "
        "say what you would change instead"
    )  # the model is not told the user refused: nobody was asked
    assert "notes__add_note refused: slop runs with --read-only" in m.rec.kinds("warning")
    assert m.notes.read_text() == "existing\n"


def test_config_can_declare_a_tool_read_only(mcp_app: McpAppFactory, fake_llm: FakeLLM, tmp_path) -> None:  # type: ignore[no-untyped-def]
    notes = tmp_path / "notes.txt"
    m = mcp_app({"notes": notes_server(notes, read_only_tools=["add_note"])}, approval="read-only")
    fake_llm.enqueue_tool_calls([("notes__add_note", {"text": "trusted"})])
    fake_llm.enqueue_text("ok")
    m.app.engine.handle("add")
    assert notes.read_text() == "trusted\n"


def test_a_tool_reported_error_reaches_the_model_as_an_error(mcp_app: McpAppFactory, fake_llm: FakeLLM) -> None:
    m = mcp_app()
    fake_llm.enqueue_tool_calls([("notes__fail", {"reason": "disk full"})])
    fake_llm.enqueue_text("It failed.")
    m.app.engine.handle("try it")
    (row,) = tool_rows(m.app)
    assert row.status == "error"
    assert row.content.startswith("Error: FAILED_PRECONDITION: notes.fail reported an error: Error executing tool fail")


def test_parallel_mcp_calls_come_back_in_call_order(mcp_app: McpAppFactory, fake_llm: FakeLLM) -> None:
    m = mcp_app(max_parallel_tools=4)
    fake_llm.enqueue_tool_calls(
        [
            ("notes__slow", {"seconds": 0.6}),
            ("notes__list_notes", {}),
            ("notes__slow", {"seconds": 0.1}),
        ]
    )
    fake_llm.enqueue_text("done")
    m.app.engine.handle("go")
    assert [r.content for r in tool_rows(m.app)] == ["slept", "(no notes)", "slept"]


def test_cancel_stops_a_slow_mcp_call_and_the_server_stays_usable(mcp_app: McpAppFactory, fake_llm: FakeLLM) -> None:
    m = mcp_app()
    fake_llm.enqueue_tool_calls([("notes__slow", {"seconds": 3})])
    done = threading.Event()

    def press_esc_once_the_call_runs() -> None:
        while not done.is_set():
            if ("tool_start", "notes__slow") in m.rec.events:
                time.sleep(0.3)  # the request is on the server now
                m.app.ctx.cancel.set()
                return
            time.sleep(0.02)

    threading.Thread(target=press_esc_once_the_call_runs, daemon=True).start()
    outcome = m.app.engine.handle("wait a bit")
    done.set()
    assert outcome.turn is not None and outcome.turn.interrupted
    (row,) = tool_rows(m.app)
    assert (row.status, row.content) == ("cancelled", "[Cancelled]")
    assert len(fake_llm.requests) == 1  # the model was not called again after the cancel
    # The server was told: its tool never finished (it would write the marker after 3 s).
    time.sleep(3.5)
    assert not (m.notes.parent / "notes.txt.slow-done").exists()
    fake_llm.enqueue_tool_calls([("notes__list_notes", {})])
    fake_llm.enqueue_text("still here")
    m.app.engine.handle("and now?")
    assert tool_rows(m.app)[-1].content == "(no notes)"


def test_dead_server_tools_answer_with_a_clear_error_until_restarted(mcp_app: McpAppFactory, fake_llm: FakeLLM) -> None:
    m = mcp_app()
    fake_llm.enqueue_tool_calls([("notes__die", {})])
    fake_llm.enqueue_text("The notes server is gone.")
    outcome = m.app.engine.handle("die please")
    assert outcome.ok  # a dead server never crashes a turn
    (died,) = tool_rows(m.app)
    assert died.status == "error" and died.content.startswith("Error: UNAVAILABLE: the MCP server 'notes' went away")
    assert died.content.endswith("/mcp restart notes")
    deadline = time.monotonic() + 30
    while m.state("notes") != "failed":  # the server's task records the end on its own thread
        assert time.monotonic() < deadline, "the dead server was never noticed"
        time.sleep(0.05)
    (warning,) = [w for w in m.rec.kinds("warning") if "MCP server" in w]
    assert warning.startswith("MCP server 'notes' stopped") and "\n" not in warning
    assert "dying on request" in warning  # the server's last stderr line says why
    fake_llm.enqueue_tool_calls([("notes__list_notes", {})])
    fake_llm.enqueue_text("Still gone.")
    m.app.engine.handle("list")
    after = tool_rows(m.app)[-1]
    assert after.content.startswith("Error: UNAVAILABLE: the MCP server 'notes' is not running (stopped")
    assert after.content.endswith("/mcp restart notes")
    m.app.engine.handle("/mcp restart notes")
    assert m.state("notes") == "ready"
    assert "MCP server 'notes' running: 5 tool(s)" in m.rec.kinds("success")
    fake_llm.enqueue_tool_calls([("notes__list_notes", {})])
    fake_llm.enqueue_text("back")
    m.app.engine.handle("list")
    assert tool_rows(m.app)[-1].content == "(no notes)"


def test_tool_output_over_the_store_cap_is_cut_with_an_exact_note(
    mcp_app: McpAppFactory, fake_llm: FakeLLM, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    m = mcp_app()
    m.notes.write_text("".join(f"note {i:07d} " + "x" * 90 + "\n" for i in range(12000)))  # ~1.2 MB
    fake_llm.enqueue_tool_calls([("notes__list_notes", {})])
    fake_llm.enqueue_text("long")
    m.app.engine.handle("list")
    (row,) = tool_rows(m.app)
    assert row.content.startswith("note 0000000 ") and row.content.rstrip().endswith("note 0011999 " + "x" * 90)
    assert "lines cut from the middle of this output" in row.content
    assert len(row.content.encode()) < (1 << 20) + 400


def test_gemini_gets_the_mcp_tools_as_function_declarations(mcp_app: McpAppFactory, fake_llm: FakeLLM) -> None:
    m = mcp_app(
        openai_api_key="",
        openai_base_url="",
        gemini_api_key="gm-test-key-123456",
        gemini_base_url=fake_llm.gemini_base_url,
        model="fake-gemini",
    )
    fake_llm.enqueue_tool_calls([("notes__add_note", {"text": "via gemini"})])
    fake_llm.enqueue_text("ok")
    assert m.app.engine.handle("note it").ok
    assert m.notes.read_text() == "via gemini\n"
    first, second = (r.json for r in fake_llm.requests if "GenerateContent" in r.path)
    declared = {d["name"]: d for d in first["tools"][0]["functionDeclarations"]}
    add = declared["notes__add_note"]
    schema = add.get("parametersJsonSchema") or add["parameters_json_schema"]  # google-genai sends snake case
    assert schema["required"] == ["text"] and add["description"] == "Add one note to the notes file"
    assert "noted: via gemini" in json.dumps(second["contents"])  # the result went back
