"""Surgery tells the truth: STATE, scratchpad, the context log and clones after drop,
restore, /message remove, /undo and /session clone, through real turns on the fake server."""

from __future__ import annotations

from slop.app import App
from tests.e2e.conftest import AppFactory
from tests.e2e.wires import (
    both_wires,  # noqa: F401  (the `wire` fixture, both wires)
    system_of_body,
)
from tests.fakellm import FakeLLM
from tests.recording import Recorder

STATE = "### STATE\nGoal: {goal}\nContext: app.py\nResolved: -\nTechnical Anchors: port {port}"


def _turn(app: App, fake: FakeLLM, text: str, goal: str, port: int, scratch: tuple[str, str] | None = None) -> str:
    if scratch:
        fake.enqueue_tool_calls([("manage_scratchpad", {"action": scratch[0], "content": scratch[1]})])
    fake.enqueue_text(f"ok {goal}\n\n" + STATE.format(goal=goal, port=port))
    assert app.engine.handle(text).ok
    return app.store.messages.last_group_id("default") or ""


def _system_of_next_request(app: App) -> str:
    body = app.orchestrator.preview("default", "next").wire_body()
    assert body is not None
    return system_of_body(body)


def test_state_falls_back_when_its_group_is_dropped_or_removed(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _rec = make_app()
    _turn(app, fake_llm, "plan A", "alpha", 1)
    b = _turn(app, fake_llm, "plan B", "bravo", 2)
    assert "Goal: bravo" in _system_of_next_request(app)
    app.engine.handle(f"/context drop {b}")
    assert "Goal: alpha" in app.store.sessions.state("default")
    system = _system_of_next_request(app)
    assert "Goal: alpha" in system and "Goal: bravo" not in system
    app.engine.handle(f"/context restore {b}")
    assert "Goal: bravo" in _system_of_next_request(app)
    app.engine.handle(f"/message remove {b}")
    assert "Goal: alpha" in _system_of_next_request(app)


def test_removing_an_older_group_keeps_later_scratchpad_changes(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    a = _turn(app, fake_llm, "write a plan", "a", 1, scratch=("update", "PLAN v1"))
    _turn(app, fake_llm, "extend the plan", "b", 2, scratch=("append", "- step two"))
    assert app.store.sessions.scratchpad("default") == "PLAN v1\n- step two"
    app.engine.handle(f"/message remove {a}")
    assert app.store.sessions.scratchpad("default") == "PLAN v1\n- step two"
    assert "scratchpad left as it is (changed by group" in rec.kinds("success")[-1]


def test_undo_never_overwrites_a_later_edit_by_the_user(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    _turn(app, fake_llm, "write a plan", "a", 1, scratch=("update", "PLAN v1"))
    rec.edits.append(lambda text: text + "my own note\n")
    assert app.engine.handle("/session scratchpad edit").ok
    edited = app.store.sessions.scratchpad("default")
    assert "my own note" in edited
    app.engine.handle("/undo")
    assert app.store.sessions.scratchpad("default") == edited
    assert "scratchpad left as it is (edited by you after that group)" in rec.kinds("success")[-1]
    # without a later edit the undo restores, and says so
    _turn(app, fake_llm, "replace the plan", "c", 3, scratch=("update", "PLAN v2"))
    app.engine.handle("/undo")
    assert app.store.sessions.scratchpad("default") == edited
    assert "scratchpad restored to the version before that group" in rec.kinds("success")[-1]


def test_context_log_records_every_manual_change(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    a = _turn(app, fake_llm, "one", "a", 1)
    b = _turn(app, fake_llm, "two", "b", 2)
    _turn(app, fake_llm, "three", "c", 3)
    for line in (
        f"/context drop {a}",
        f"/context restore {a}",
        f"/context pin {b}",
        "/undo",
        f"/message remove {a}",
        "/context window 3",
        "/context mode ranked",
        "/context budget 9000",
    ):
        assert app.engine.handle(line).ok, line
    app.engine.handle("/context log")
    table = rec.kinds("table")[-1]
    events = [row.split(" | ")[1] for row in table.splitlines()[1:]]
    assert events == ["drop", "restore", "pin", "undo", "remove", "window", "mode", "budget"]
    assert a in table and b in table and "window 5 -> 3" in table and "window -> ranked" in table


def test_clone_does_not_copy_usage(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _rec = make_app()
    fake_llm.enqueue_text("hello", usage=(100, 20))
    app.engine.handle("hi")
    assert app.store.usage.session_total("default") == 120
    app.engine.handle("/session clone copy")
    assert app.store.usage.session_total("copy") == 0
    assert [m.content for m in app.store.messages.window("copy", 0)] == ["hi", "hello"]


def _unused(rec: Recorder) -> None: ...


def test_message_list_in_context_column_follows_the_mode(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    gids = [
        _turn(app, fake_llm, f"topic {word} question", word, i)
        for i, word in enumerate(("websocket", "invoice", "weather", "parser", "invoice rounding"))
    ]

    def column() -> dict[str, str]:
        app.engine.handle("/message list")
        lines = rec.kinds("table")[-1].splitlines()[1:]
        by_shown = {line.split(" | ")[0]: line.split(" | ")[-1] for line in lines}
        # the list shows each GID by its shortest unique ending (issue 12)
        return {g: state for g in gids for shown, state in by_shown.items() if g.endswith(shown)}

    # window 5 counts the next message too: the four newest groups go with it, the oldest not
    assert [column()[g] for g in gids] == ["no", "yes", "yes", "yes", "yes"]
    app.engine.handle("/context set messages 4")
    app.engine.handle("/context mode messages")  # the last 4 messages with the next one: fewer groups
    sent = {e.message.group_id for e in app.orchestrator.preview("default").prompt.history}
    assert [column()[g] for g in gids] == ["yes" if g in sent else "no" for g in gids]
    assert column()[gids[0]] == "no" and column()[gids[-1]] == "yes"
    app.engine.handle("/context mode window")
    app.engine.handle(f"/context drop {gids[1]}")
    assert column()[gids[1]] == "dropped"
