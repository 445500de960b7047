"""Whole turns through the real SDKs (openai and google-genai) against the fake server,
checked in the ledger. Every test runs once per wire format; request bodies are read
through tests/e2e/wires.py so each assertion holds for OpenAI `messages` and Gemini `contents`."""

from __future__ import annotations

import threading
import time

from slop.context.show import format_prompt
from slop.records import Role, Status
from tests.e2e.conftest import AppFactory
from tests.e2e.wires import (
    Wire,
    both_wires,  # noqa: F401  (the `wire` fixture, both wires)
    contents_of,
    generation_requests,
    last_generation,
    model_of,
    sent_messages,
    streamed_with_usage,
    system_text,
    tool_names,
)
from tests.fakellm import FakeLLM

STATE = "### STATE\nGoal: greet\nContext: none\nResolved: hello\nTechnical Anchors: port 1"


def rows(app, session: str = "default"):  # type: ignore[no-untyped-def]
    return app.store.messages.window(session, 0)


def all_rows(app, session: str = "default"):  # type: ignore[no-untyped-def]
    """Every row, hidden ones (failed, dropped) included."""
    return app.store.messages.recent(session, 1000)


def test_chat_turn_is_streamed_and_stored(make_app: AppFactory, fake_llm: FakeLLM, wire: Wire) -> None:
    app, rec = make_app()
    fake_llm.enqueue_text("Hello **there**.\n\n" + STATE, usage=(120, 30))
    outcome = app.engine.handle("hi")
    assert outcome.ok
    assert len(rec.kinds("delta")) > 1 and "".join(rec.kinds("delta")).startswith("Hello **there**.")
    user, answer = rows(app)
    assert (user.role, user.content, user.parsing_strategy) == (Role.USER, "hi", wire.name)
    assert (answer.role, answer.status, answer.tokens) == (Role.ASSISTANT, Status.COMPLETED, 150)
    assert user.group_id == answer.group_id
    assert app.store.sessions.state("default") == STATE
    assert [(u.model, u.total_tokens) for u in app.store.usage.by_model("default")] == [(wire.model, 150)]
    request = last_generation(fake_llm)
    assert request.protocol == wire.name and streamed_with_usage(request)
    assert model_of(request) == wire.model and tool_names(request) >= {"read_file", "query_db"}


def test_request_matches_context_show(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _rec = make_app()
    app.store.sessions.set_scratchpad("default", "- [ ] write tests")
    fake_llm.enqueue_tool_calls([("read_file", {"path": "hello.py"}), ("execute_bash", {"command": "seq 1 2000"})])
    fake_llm.enqueue_text("Read it.\n\n" + STATE)
    fake_llm.enqueue_error(500)  # the last call fails: its request is marked failed, the ledger is as before
    app.engine.handle("read hello.py and count")
    app.engine.handle("what next?")
    request = last_generation(fake_llm)
    prompt = app.orchestrator.preview("default", "what next?").prompt  # what resending it would send
    shown = format_prompt(prompt)
    system = system_text(request)
    assert system == prompt.system_text
    assert "## Global State (Anchor)\n" + STATE in system
    assert "## Active Scratchpad\n- [ ] write tests" in system
    for layer in prompt.layers:
        assert layer.text in shown
    tool_msgs = contents_of(request, "tool")
    seq = next(m for m in tool_msgs if "2000" in m or "TRUNCATED" in m)
    assert "TRUNCATED: characters" in seq and len(seq) <= 300  # inactive group: 300 chars
    for message in sent_messages(request):
        if message.content:
            assert message.content in shown
    assert sent_messages(request)[-1].content.endswith("### CURRENT REQUEST\nwhat next?")
    # the hint's SQL gives the full output back
    mid = int(seq.split("WHERE id=")[1].split('"')[0])
    full = app.store.messages.get(mid)
    assert full is not None and "2000" in full.content and len(full.content) > 5000


def test_undo_brings_back_previous_state_in_next_request(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    first = STATE
    second = STATE.replace("greet", "changed")
    fake_llm.enqueue_text("one\n\n" + first)
    fake_llm.enqueue_text("two\n\n" + second)
    app.engine.handle("first")
    app.engine.handle("second")
    assert app.store.sessions.state("default") == second
    app.engine.handle("/undo")
    assert "STATE is back" in rec.kinds("success")[-1]
    fake_llm.enqueue_text("three")
    app.engine.handle("third")
    system = system_text(last_generation(fake_llm))
    assert "Goal: greet" in system and "Goal: changed" not in system
    users = contents_of(last_generation(fake_llm), "user")
    assert not any("second" in u for u in users)


def test_window_drop_and_remove_change_the_next_request(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _rec = make_app()
    for i in range(4):
        fake_llm.enqueue_text(f"answer {i}")
        app.engine.handle(f"question {i}")
    gids = app.store.messages.last_group_ids("default", 0)  # newest first
    app.engine.handle("/context window 2")
    app.engine.handle(f"/context drop {gids[1]}")
    app.engine.handle(f"/message remove {gids[0]}")
    fake_llm.enqueue_text("ok")
    app.engine.handle("question 4")
    users = contents_of(last_generation(fake_llm), "user")
    # window 2 = the new turn + the newest group still visible (3 was removed, 2 dropped)
    assert [u.split("\n")[-1] for u in users] == ["question 1", "question 4"]
    assert app.store.messages.group("default", gids[1])  # dropped, still in the ledger
    assert not app.store.messages.group("default", gids[0])  # removed


def test_commands_reject_bad_and_foreign_gids(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_text("a")
    app.engine.handle("x")
    gid = app.store.messages.last_group_ids("default", 1)[0]
    app.ctx.conversation.session = "other"
    for line in (
        f"/context drop {gid}",
        "/context drop 123",
        "/message show",
        "/context window -1",
        "/context window two",
        "/context bogus",
    ):
        assert not app.engine.handle(line).ok
    errors = rec.kinds("error")
    assert "belongs to session 'default'" in errors[0]
    assert "no group 123" in errors[1]
    assert "usage: /message show GID" in errors[2]
    assert "cannot be negative" in errors[3] and "whole number" in errors[4]
    assert "unknown /context sub-command" in errors[5]


def test_message_list_and_show(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_tool_calls([("list_directory", {})])
    fake_llm.enqueue_text("done")
    app.engine.handle("list files")
    app.engine.handle("/message list")
    table = rec.kinds("table")[-1]
    assert "list files" in table and "yes" in table
    gid = app.store.messages.last_group_ids("default", 1)[0]
    app.engine.handle(f"/message show {gid}")
    shown = rec.viewed[-1]
    assert "tool call `list_directory`" in shown and "#### tool" in shown and "hello.py" in shown


def test_no_provider_one_line_and_nothing_written(make_app: AppFactory) -> None:
    app, rec = make_app(provider=False)
    outcome = app.engine.handle("hello?")
    assert not outcome.ok
    assert len(rec.kinds("error")) == 1 and "OPENAI_API_KEY" in rec.kinds("error")[0]
    assert app.store.messages.count("default") == 0
    assert app.engine.handle("/message list").ok  # slash commands still work


def test_wrong_key_is_one_line_and_keeps_the_message(make_app: AppFactory, fake_llm: FakeLLM, wire: Wire) -> None:
    app, rec = make_app()
    fake_llm.enqueue_error(401)
    assert not app.engine.handle("hello").ok
    assert rec.kinds("error") == [rec.kinds("error")[0]] and wire.key_variable in rec.kinds("error")[0]
    assert [(m.content, m.status) for m in all_rows(app)] == [("hello", Status.FAILED)]
    assert "/retry" in rec.kinds("info")[-1]


def test_unreachable_server(make_app: AppFactory, wire: Wire) -> None:
    app, rec = make_app(**{wire.base_url_setting: "http://127.0.0.1:9/v1"})
    assert not app.engine.handle("hello").ok
    assert "cannot reach http://127.0.0.1:9/v1" in rec.kinds("error")[0]
    assert [(m.content, m.status) for m in all_rows(app)] == [("hello", Status.FAILED)]


def test_rate_limit_is_retried_then_reported(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app(max_retries=1)
    fake_llm.enqueue_error(429, retry_after=0)
    fake_llm.enqueue_text("after retry")
    assert app.engine.handle("hello").ok
    fake_llm.enqueue_error(429, retry_after=0)
    fake_llm.enqueue_error(429, retry_after=0)
    assert not app.engine.handle("again").ok
    assert "429" in rec.kinds("error")[-1]


def test_cut_off_stream_keeps_partial_reply(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_cutoff("The answer is")
    assert not app.engine.handle("question").ok
    assert "cut off" in rec.kinds("error")[0]
    partial = all_rows(app)[-1]  # kept, but with its request out of every later request
    assert partial.status == Status.FAILED and partial.content.startswith("The answer")


def test_malformed_stream_is_one_line(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_malformed()
    assert not app.engine.handle("question").ok
    assert len(rec.kinds("error")) == 1
    # what streamed before the garbage (nothing on OpenAI, whose first chunk is the role;
    # a first text piece on Gemini) is kept, failed, like the request
    shown = "".join(rec.kinds("delta"))
    partial = [(shown, Status.FAILED)] if shown else []
    assert [(m.content, m.status) for m in all_rows(app)] == [("question", Status.FAILED), *partial]


def test_cancel_mid_stream_keeps_partial_as_interrupted(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_text("word " * 40, chunks=["word "] * 40, delay=0.05)

    def press_esc_once_text_shows() -> None:  # as a user does: after some of the reply is drawn
        deadline = time.monotonic() + 60
        while len(rec.kinds("delta")) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        app.ctx.cancel.set()

    threading.Thread(target=press_esc_once_text_shows, daemon=True).start()
    outcome = app.engine.handle("long answer please")
    assert outcome.turn is not None and outcome.turn.interrupted
    last = rows(app)[-1]
    assert last.status == Status.INTERRUPTED and 0 < len(last.content) < len("word " * 40)
    fake_llm.enqueue_text("ok")
    app.engine.handle("go on")
    assistant = contents_of(last_generation(fake_llm), "assistant")[0]
    assert assistant == last.content + "\n\n[interrupted by the user]"  # the model knows it was cut


# OpenAI sends arguments as a JSON string, which can be cut; Gemini sends an object, which
# can miss a required argument. Either way the model gets an error result, not a dead turn.
MALFORMED_ARGUMENTS: dict[str, dict[str, object] | str] = {"openai": '{"path": ', "gemini": {}}


def test_malformed_tool_arguments_become_an_error_result(make_app: AppFactory, fake_llm: FakeLLM, wire: Wire) -> None:
    app, _rec = make_app()
    fake_llm.enqueue_tool_calls([("read_file", MALFORMED_ARGUMENTS[wire.name])])
    fake_llm.enqueue_text("sorry, retrying")
    assert app.engine.handle("read").ok
    tool = next(m for m in rows(app) if m.role == Role.TOOL)
    assert tool.status == Status.ERROR and tool.content.startswith("Error: INVALID_ARGUMENT")
    second = contents_of(last_generation(fake_llm), "tool")
    assert any("INVALID_ARGUMENT" in m for m in second)


def test_rebuild_asks_the_model_for_a_fresh_state(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_text("one\n\n" + STATE)
    app.engine.handle("first")
    fresh = STATE.replace("greet", "rebuilt")
    fake_llm.enqueue_text(fresh)
    app.engine.handle("/context window 1")
    app.engine.handle("/context rebuild")
    assert app.store.sessions.state("default") == fresh
    assert "rebuilt by the model" in rec.kinds("info")[-1]
    sent = sent_messages(last_generation(fake_llm))
    assert "Rebuild the ### STATE" in sent[-1].content
    # the instruction took no window slot: with a window of 1 the group "first" is still sent ...
    assert any(m.role == "user" and m.content.endswith("first") for m in sent)
    assert sum("### CURRENT REQUEST" in m.content for m in sent) == 1
    # ... and it left no group behind: the next request holds "first", not the instruction
    assert [m.content for m in rows(app) if m.role == Role.USER] == ["first"]
    assert app.store.messages.last_group_ids("default", 0) == [app.store.messages.last_group_id("default")]


def test_rebuild_without_a_model_uses_the_last_state_in_the_window(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _ = make_app()
    fake_llm.enqueue_text("one\n\n" + STATE)
    app.engine.handle("first")
    app.store.sessions.push_state("default", None, "### STATE\nGoal: stale")
    offline, rec = make_app(provider=False)
    offline.engine.handle("/context rebuild")
    assert offline.store.sessions.state("default") == STATE
    assert "no model reachable" in rec.kinds("info")[-1]


def test_step_limit_stops_a_runaway_tool_loop(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app(step_limit=3)
    for _ in range(3):
        fake_llm.enqueue_tool_calls([("list_directory", {})])
    outcome = app.engine.handle("loop forever")
    assert not outcome.ok and "step limit" in rec.kinds("warning")[-1]
    assert len(generation_requests(fake_llm)) == 3


def test_parallel_tool_calls_are_stored_in_call_order(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _ = make_app()
    fake_llm.enqueue_tool_calls(
        [
            ("execute_bash", {"command": "sleep 0.4; echo first"}),
            ("execute_bash", {"command": "echo second"}),
        ]
    )
    fake_llm.enqueue_text("done")
    started = time.monotonic()
    app.engine.handle("two commands")
    tools = [m for m in rows(app) if m.role == Role.TOOL]
    assert ["first" in tools[0].content, "second" in tools[1].content] == [True, True]
    call_row = next(m for m in rows(app) if m.status == Status.TOOL_CALL)
    assert call_row.call_ids == "\n".join(t.tool_call_id or "" for t in tools)  # kept for pair checks
    assert time.monotonic() - started < 2.0


def test_failed_requests_are_not_sent_later_and_retry_resends(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_error(401)
    fake_llm.enqueue_error(500)
    fake_llm.enqueue_malformed()
    for text in ("first try", "second try", "third try"):
        assert not app.engine.handle(text).ok
    fake_llm.enqueue_text("fine now")
    assert app.engine.handle("a new question").ok
    users = contents_of(last_generation(fake_llm), "user")
    assert len(users) == 1 and users[0].endswith("a new question")  # no failed prompt rides along
    fake_llm.enqueue_text("answered at last")
    assert app.engine.handle("/retry").ok
    users = contents_of(last_generation(fake_llm), "user")
    assert users[-1].endswith("### CURRENT REQUEST\nthird try") and len(users) == 2
    texts = [(m.content, m.status) for m in all_rows(app) if m.role == Role.USER]
    assert texts == [
        ("first try", Status.FAILED),
        ("second try", Status.FAILED),
        ("a new question", Status.COMPLETED),
        ("third try", Status.COMPLETED),
    ]
    assert "nothing to retry" not in rec.text


def test_retry_with_nothing_failed_says_so(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_text("ok")
    app.engine.handle("hello")
    assert app.engine.handle("/retry").ok
    assert "nothing to retry" in rec.kinds("info")[-1]
    assert len(fake_llm.requests) == 1
