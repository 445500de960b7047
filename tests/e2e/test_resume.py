"""/resume and /clear as a user without a picker sees them (batch, scripts): the sessions
with messages, most recent first, the current one marked; switching by name; /clear's
refusal of arguments. Real turns on both wires."""

from __future__ import annotations

from tests.e2e.conftest import AppFactory
from tests.e2e.wires import both_wires  # noqa: F401  (the `wire` fixture, both wires)
from tests.fakellm import FakeLLM


def test_resume_lists_sessions_with_messages_and_switches_by_name(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    assert app.engine.handle("/resume").ok
    assert rec.kinds("info")[-1] == "no session has any messages yet"
    fake_llm.enqueue_text("first answer")
    assert app.engine.handle("fix the parser").ok
    assert app.engine.handle("/resume work").ok
    assert app.ctx.session == "work"
    fake_llm.enqueue_text("second answer")
    assert app.engine.handle("write the docs").ok
    assert app.engine.handle("/session switch empty").ok  # a session without messages is not offered
    assert app.engine.handle("/resume").ok
    table = rec.kinds("table")[-1].splitlines()
    assert table[0] == "# | Session | Last activity | First prompt"
    assert [line.split(" | ")[1] for line in table[1:]] == ["work", "default"]  # most recent first
    assert table[1].endswith("write the docs") and table[2].endswith("fix the parser")
    assert rec.kinds("info")[-1] == "switch with /resume NAME"
    assert app.ctx.session == "empty"  # listing never switches
    assert app.engine.handle("/resume default").ok
    assert app.engine.handle("/resume").ok
    marked = [line.split(" | ")[1] for line in rec.kinds("table")[-1].splitlines()[1:]]
    assert marked == ["work", "● default"]  # the current session is marked


def test_clear_takes_no_arguments_and_empties_the_context(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_text("an answer")
    assert app.engine.handle("remember this").ok
    assert not app.engine.handle("/clear everything").ok
    assert rec.kinds("error")[-1] == "/clear takes no arguments (it is /session clear) (usage: /clear)"
    assert app.store.messages.count("default") == 2  # refused: nothing cleared
    rec.confirms.append(True)
    assert app.engine.handle("/clear").ok
    fake_llm.enqueue_text("fresh")
    assert app.engine.handle("what did I say?").ok
    sent = fake_llm.requests[-1].body.decode()
    assert "remember this" not in sent
