"""How a turn ends, as the user sees it, on both wire formats: the line shown, what
the input's outcome says (batch mode's exit code and `done` line come from it) and
what the ledger keeps."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from slop.records import Role, Status
from tests.fakellm import FakeLLM
from tests.providers.conftest import AppFactory

WIRES = ("openai", "gemini")
STATE = "### STATE\nGoal: g\nContext: c\nResolved: r\nTechnical Anchors: a"


@dataclass(frozen=True)
class Ending:
    name: str
    script: Callable[[FakeLLM], None]
    ok: bool
    error: str  # what the outcome's error starts with ("" = none)
    shown: tuple[str, str]  # (kind of line, text in it)
    last_status: str  # status of the last row the turn stored
    step_limit: int = 50


ENDINGS = [
    Ending("answered", lambda f: f.enqueue_text("all done"), True, "", ("delta", "all done"), Status.COMPLETED),
    Ending(
        "empty reply",
        lambda f: f.enqueue_text(""),
        False,
        "the model sent an empty reply",
        ("warning", "send 'continue' or rephrase"),
        Status.COMPLETED,
    ),
    Ending(
        "output limit",
        lambda f: f.enqueue_text("a long answer that stops", finish="length"),
        False,
        "the reply hit the output limit",
        ("warning", "it is stored marked truncated"),
        Status.TRUNCATED,
    ),
    Ending(
        "step limit",
        lambda f: [f.enqueue_tool_calls([("list_directory", {})]) for _ in range(2)],
        False,
        "step limit",
        ("warning", "stopped after 2 model calls in one turn (step limit)"),
        Status.COMPLETED,  # the last tool result
        step_limit=2,
    ),
    Ending(
        "the first call fails",
        lambda f: f.enqueue_error(500),
        False,
        "",
        ("info", "your message is kept, marked failed"),
        Status.FAILED,
    ),
]


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("ending", ENDINGS, ids=lambda e: e.name)
def test_each_ending_is_told_once_and_reported(
    ending: Ending, wire: str, make_app: AppFactory, fake_llm: FakeLLM
) -> None:
    app, rec = make_app(wire, step_limit=ending.step_limit)
    ending.script(fake_llm)
    outcome = app.engine.handle("do the thing")
    assert outcome.ok is ending.ok and outcome.error.startswith(ending.error), outcome
    kind, text = ending.shown
    joiner = "" if kind == "delta" else "\n"  # streamed text comes in pieces
    assert text in joiner.join(rec.kinds(kind)), rec.text
    assert len(rec.kinds("error")) == (0 if ending.ok or ending.error else 1)
    stored = app.store.messages.recent("default", 100)
    assert stored[-1].status == ending.last_status
    assert outcome.turn is not None and outcome.turn.group_id == stored[0].group_id


@pytest.mark.parametrize("wire", WIRES)
def test_a_later_call_failing_keeps_the_turn_and_what_it_streamed(
    wire: str, make_app: AppFactory, fake_llm: FakeLLM
) -> None:
    app, rec = make_app(wire)
    fake_llm.enqueue_tool_calls([("read_file", {"path": "hello.py"})])
    fake_llm.enqueue_stream_error("upstream overloaded (fake)", text_prefix="It prints ")
    outcome = app.engine.handle("what does hello.py print?")
    assert not outcome.ok and "upstream overloaded (fake)" in outcome.error
    assert [line for line in rec.kinds("error") if "upstream overloaded" in line] == [outcome.error]
    assert "marked failed" not in rec.text  # only a request the model never answered is
    assert outcome.turn is not None and outcome.turn.steps == 2 and outcome.turn.text.endswith("It prints ")
    stored = app.store.messages.recent("default", 100)
    assert [(m.role, m.status) for m in stored] == [
        (Role.USER, Status.COMPLETED),
        (Role.ASSISTANT, Status.TOOL_CALL),
        (Role.TOOL, Status.COMPLETED),
        (Role.ASSISTANT, Status.INTERRUPTED),
    ]
    assert stored[-1].content == "It prints "
    fake_llm.enqueue_text("hello")
    assert app.engine.handle("go on").ok  # the kept round is sent with the next request
    assert "print('hello')" in str(fake_llm.last_request().json)


@pytest.mark.parametrize("wire", WIRES)
def test_esc_while_tools_run_stops_them_and_asks_the_model_nothing_more(
    wire: str, make_app: AppFactory, fake_llm: FakeLLM
) -> None:
    app, rec = make_app(wire)
    fake_llm.enqueue_tool_calls([("execute_bash", {"command": "sleep 20"})])
    fake_llm.enqueue_text("never asked for")
    threading.Timer(0.5, app.ctx.cancel.set).start()
    outcome = app.engine.handle("wait for it")
    assert outcome.ok and outcome.error == ""  # the user stopped it: not a failure
    assert outcome.turn is not None and outcome.turn.interrupted
    assert rec.kinds("warning")[-1] == "turn cancelled; running tools were stopped"
    assert fake_llm.pending == 1  # the reply after the tools was never requested
    tool = [m for m in app.store.messages.recent("default", 100) if m.role == Role.TOOL]
    assert len(tool) == 1 and tool[0].status in (Status.CANCELLED, Status.ERROR)


@pytest.mark.parametrize("wire", WIRES)
def test_a_failing_state_rebuild_keeps_the_state(wire: str, make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app(wire)
    fake_llm.enqueue_text("first\n\n" + STATE)
    assert app.engine.handle("start").ok
    fake_llm.enqueue_error(500)
    app.engine.handle("/context rebuild")
    assert len(rec.kinds("error")) == 1
    assert rec.kinds("info")[-1] == "the STATE rebuild call failed; the previous STATE is kept."
    assert app.store.sessions.state("default") == STATE
