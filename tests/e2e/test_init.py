"""/init in a real terminal: it asks, the model surveys and writes AGENTS.md through the
normal approval, and the next request carries the file as project instructions."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import AppFactory
from tests.e2e.test_pty import term  # noqa: F401 - the pty fixture
from tests.fakellm import FakeLLM

STARTER = "# Repository Guidelines\n\n- Notes live in notes.txt, one per line.\n"


def test_init_asks_surveys_and_writes_agents_md_after_approval(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_tool_calls([("read_file", {"path": "notes.txt"})])
    fake_llm.enqueue_tool_calls([("write_file", {"path": "AGENTS.md", "content": STARTER})])
    fake_llm.enqueue_text("Wrote AGENTS.md with the notes convention.")
    fake_llm.enqueue_text("Noted.")
    t = term()
    t.prompt()
    t.enter("/init")
    t.expect(r"write a starter AGENTS\.md\?")
    t.type("y")
    t.expect(r"\+# Repository Guidelines")  # the diff of the write, then the approval question
    t.expect(r"Allow\?")
    t.type("y")
    t.expect("Wrote AGENTS.md with the notes convention")
    t.prompt()
    assert (tmp_path / "project" / "AGENTS.md").read_text() == STARTER
    first = json.dumps(fake_llm.requests[0].json["messages"][-1])
    assert "starter `AGENTS.md`" in first and "survey the project" in first
    t.enter("thanks")
    t.expect("Noted")
    system = fake_llm.requests[-1].json["messages"][0]["content"]
    assert "Notes live in notes.txt" in system  # picked up as project instructions, no restart


def test_init_over_an_existing_file_asks_twice_and_no_keeps_it(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    mine = tmp_path / "project" / "AGENTS.md"
    mine.write_text("# My own rules\n")
    t = term()
    t.prompt()
    t.enter("/init")
    t.expect(r"AGENTS\.md exists \(1 lines\)")
    t.type("y")
    t.expect(r"Replace your AGENTS\.md\?")
    t.type("n")
    t.expect("AGENTS.md left as it is")
    t.prompt()
    assert mine.read_text() == "# My own rules\n" and fake_llm.requests == []


def test_init_without_a_screen_needs_yes_and_never_replaces(
    make_app: AppFactory, fake_llm: FakeLLM, project: Path
) -> None:
    app, rec = make_app(approval="ask")
    app.engine.handle("/init")
    assert rec.kinds("info")[-1] == "no AGENTS.md written" and fake_llm.requests == []
    yes_app, _ = make_app(approval="yes", db_path=str(project.parent / "yes.db"))
    fake_llm.enqueue_tool_calls([("write_file", {"path": "AGENTS.md", "content": STARTER})])
    fake_llm.enqueue_text("Done.")
    assert yes_app.engine.handle("/init").ok
    assert (project / "AGENTS.md").read_text() == STARTER
    again, again_rec = make_app(approval="yes", db_path=str(project.parent / "again.db"))
    again.engine.handle("/init")
    assert "AGENTS.md exists; run /init in the REPL to replace it" in again_rec.kinds("warning")[-1]
    assert (project / "AGENTS.md").read_text() == STARTER and len(fake_llm.requests) == 2
