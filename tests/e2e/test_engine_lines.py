"""Engine.handle: which line of input becomes what (nothing, a slash command, a `!`
shell command, a model turn), what the user sees when it fails, and the last-resort
handler: any exception ends as one error line and a crash log, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from slop.commands.base import Command, CommandContext, Exit, Proceed
from slop.debuglog import log_dir
from slop.engine import Engine
from slop.errors import SlopError
from tests.e2e.conftest import AppFactory
from tests.fakellm import FakeLLM


def _chat_messages(fake: FakeLLM) -> list[dict[str, object]]:
    return [m for r in fake.requests if r.path.endswith("/chat/completions") for m in r.json["messages"]]


def _user_texts(fake: FakeLLM) -> list[str]:
    return [str(m["content"]) for m in _chat_messages(fake) if m["role"] == "user"]


def _crash_logs(home: Path) -> list[Path]:
    return sorted(log_dir(home).glob("crash-*.log"))


@pytest.mark.parametrize("line", ["", "   ", "\t", "\n"])
def test_a_blank_line_does_nothing(make_app: AppFactory, fake_llm: FakeLLM, line: str) -> None:
    app, rec = make_app()
    outcome = app.engine.handle(line)
    assert (outcome.kind, outcome.ok) == ("empty", True)
    assert rec.events == [] and fake_llm.requests == []


def test_a_message_is_one_model_turn_without_trailing_blanks(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_text("pong")
    outcome = app.engine.handle("  ping  \n")
    assert (outcome.kind, outcome.ok, outcome.error) == ("turn", True, "")
    assert outcome.turn is not None and outcome.turn.ok
    [sent] = _user_texts(fake_llm)
    assert sent.endswith("\n  ping")  # leading indentation may mean something; trailing blanks do not
    assert "".join(rec.kinds("delta")) == "pong"
    assert app.ctx.conversation.last_input == "  ping"


def test_invalid_utf8_from_the_terminal_is_sent_as_replacement_characters(
    make_app: AppFactory, fake_llm: FakeLLM
) -> None:
    app, _ = make_app()
    fake_llm.enqueue_text("ok")
    line = b"caf\xe9 au lait".decode("utf-8", "surrogateescape")  # what a latin-1 terminal gives
    assert app.engine.handle(line).ok
    [sent] = _user_texts(fake_llm)
    assert sent.endswith("\ncaf\ufffd au lait")


def test_exit_and_an_unknown_command(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    assert app.engine.handle("/exit").kind == "exit"
    outcome = app.engine.handle("/histroy")
    assert (outcome.kind, outcome.ok, outcome.usage_error, outcome.internal) == ("command", False, True, False)
    assert outcome.error.startswith("unknown command /histroy; did you mean")
    assert rec.kinds("error") == [outcome.error]
    assert fake_llm.requests == []


def test_a_command_that_proceeds_becomes_a_model_turn(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _ = make_app()
    app.registry.add(Command("/ask", "ask the model", "/ask TEXT", "test", lambda ctx, args: Proceed(f"Q: {args}")))
    fake_llm.enqueue_text("A: 4")
    outcome = app.engine.handle("/ask what is 2+2")
    assert (outcome.kind, outcome.ok) == ("turn", True)
    [sent] = _user_texts(fake_llm)
    assert sent.endswith("\nQ: what is 2+2")


def test_a_command_that_exits(make_app: AppFactory) -> None:
    app, _ = make_app()
    app.registry.add(Command("/bye", "leave", "/bye", "test", lambda ctx, args: Exit()))
    assert app.engine.handle("/bye").kind == "exit"


def test_a_command_failing_with_a_slop_error_is_one_line_not_a_usage_error(make_app: AppFactory) -> None:
    def fails(ctx: CommandContext, args: str) -> None:
        raise SlopError("the ledger is locked by another slop\n(pid 42)")

    app, rec = make_app()
    app.registry.add(Command("/lock", "lock", "/lock", "test", fails))
    outcome = app.engine.handle("/lock")
    assert (outcome.kind, outcome.ok, outcome.usage_error, outcome.internal) == ("command", False, False, False)
    assert "\n" not in outcome.error and "the ledger is locked by another slop" in outcome.error
    assert rec.kinds("error") == [outcome.error]


def test_a_bug_in_a_command_is_one_line_and_a_crash_log(make_app: AppFactory, tmp_path: Path) -> None:
    def buggy(ctx: CommandContext, args: str) -> None:
        raise KeyError("missing-key-xyz")

    app, rec = make_app()
    app.registry.add(Command("/buggy", "has a bug", "/buggy", "test", buggy))
    outcome = app.engine.handle("/buggy now")
    assert (outcome.kind, outcome.ok, outcome.internal) == ("command", False, True)
    [line] = rec.kinds("error")
    assert line == outcome.error and "\n" not in line
    assert "KeyError" in line and "missing-key-xyz" in line
    [log] = _crash_logs(app.home)
    assert str(log) in line  # the user is told where the traceback is
    text = log.read_text()
    assert "while: a slash command: '/buggy now'" in text
    assert "Traceback" in text and "def buggy" not in line
    assert log.stat().st_mode & 0o077 == 0  # it may quote the conversation: private


def test_a_bug_before_a_turn_is_caught_and_nothing_is_sent(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()

    def mcp_startup_bug() -> None:
        raise RuntimeError("the MCP manager broke")

    engine = Engine(app.registry, app.ctx, app.home, before_turn=mcp_startup_bug)
    outcome = engine.handle("hello")
    assert (outcome.kind, outcome.ok, outcome.internal) == ("turn", False, True)
    assert rec.kinds("error") == [outcome.error]
    assert "RuntimeError: the MCP manager broke" in outcome.error
    [log] = _crash_logs(app.home)
    assert "while: a model turn: 'hello'" in log.read_text()
    assert fake_llm.requests == []


def test_without_a_home_the_error_says_no_log_was_written(make_app: AppFactory) -> None:
    app, rec = make_app()

    def bug() -> None:
        raise ValueError("boom")

    outcome = Engine(app.registry, app.ctx, None, before_turn=bug).handle("hi")
    assert outcome.internal and "no debug log could be written" in outcome.error
    assert rec.kinds("error") == [outcome.error]


def _broken_error_line(text: str) -> None:
    raise OSError("the terminal went away")


def test_when_the_error_line_cannot_be_shown_it_goes_to_stderr(
    make_app: AppFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    app, rec = make_app()
    rec.error = _broken_error_line  # type: ignore[method-assign]  # the bug may be in the output itself

    def bug() -> None:
        raise ZeroDivisionError("division by zero")

    outcome = Engine(app.registry, app.ctx, app.home, before_turn=bug).handle("hi")
    assert outcome.internal
    err = capsys.readouterr().err
    assert err.startswith("slop: internal error (ZeroDivisionError: division by zero); the traceback is in ")
    assert err.count("\n") == 1


def test_a_bare_bang_is_a_usage_error_and_bang_runs_without_a_turn(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    outcome = app.engine.handle("!   ")
    assert (outcome.kind, outcome.ok, outcome.usage_error) == ("command", False, True)
    assert outcome.error.startswith("which command?")
    outcome = app.engine.handle("!echo from-the-shell")
    assert (outcome.kind, outcome.ok) == ("command", True)
    assert "from-the-shell" in rec.text
    assert fake_llm.requests == []  # `!` output is for the user only


def test_double_bang_output_goes_in_front_of_the_next_message_once(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _ = make_app()
    assert app.engine.handle("!!echo first-output").kind == "command"
    assert app.engine.handle("!!echo second-output").kind == "command"
    assert fake_llm.requests == []
    fake_llm.enqueue_text("seen", usage=(10, 1))
    fake_llm.enqueue_text("again", usage=(10, 1))
    assert app.engine.handle("what did they print?").ok
    assert app.engine.handle("and now?").ok
    first, second = _user_texts(fake_llm)[0], _user_texts(fake_llm)[-1]
    assert first.index("first-output") < first.index("second-output") < first.index("what did they print?")
    assert second.endswith("CURRENT REQUEST\nand now?")  # attached once, not to every later message
    assert "first-output" not in second.split("End of History")[1]


def test_a_declined_long_message_is_not_sent_and_keeps_the_shell_output(
    make_app: AppFactory, fake_llm: FakeLLM
) -> None:
    app, rec = make_app(paste_warn_share=0.0001)
    rec.height = 40  # a screen to ask on
    app.engine.handle("!!echo kept-for-later")
    rec.confirms.append(False)
    outcome = app.engine.handle("word " * 400)
    assert (outcome.kind, outcome.ok, outcome.error) == ("turn", False, "not sent")
    assert rec.kinds("confirm") and "prompt budget" in rec.kinds("confirm")[0]
    assert "message not sent" in rec.kinds("info")
    assert fake_llm.requests == []
    fake_llm.enqueue_text("ok")
    rec.confirms.append(True)
    assert app.engine.handle("short").ok
    sent = _user_texts(fake_llm)
    assert len(sent) == 1 and "kept-for-later" in sent[0] and sent[0].endswith("short")


def test_batch_mode_does_not_ask(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app(paste_warn_share=0.0001)  # no screen (height 0), like --prompt
    fake_llm.enqueue_text("ok")
    assert app.engine.handle("word " * 400).ok
    assert rec.kinds("confirm") == []


def test_a_mentioned_file_is_attached_and_announced(make_app: AppFactory, fake_llm: FakeLLM, project: Path) -> None:
    app, rec = make_app()
    fake_llm.enqueue_text("it prints hello")
    assert app.engine.handle("what does @hello.py do?").ok
    [note] = [t for t in rec.kinds("info") if t.startswith("attached")]
    assert note.startswith("attached hello.py (file, ") and note.endswith(" tokens)")
    assert "print('hello')" in "\n".join(_user_texts(fake_llm))


def test_a_mention_outside_the_project_is_refused_and_nothing_sent(
    make_app: AppFactory, fake_llm: FakeLLM, project: Path
) -> None:
    secret = project.parent / "outside.txt"
    secret.write_text("not for the model\n")
    app, rec = make_app()
    outcome = app.engine.handle("read @../outside.txt")
    assert (outcome.kind, outcome.ok, outcome.usage_error) == ("turn", False, True)
    assert outcome.error.startswith("@../outside.txt: ") and outcome.error.endswith("(nothing sent)")
    assert rec.kinds("error") == [outcome.error]
    assert fake_llm.requests == []


def test_a_turn_the_model_server_fails_is_not_ok_with_its_error(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_error(500, message="upstream exploded")
    outcome = app.engine.handle("hello")
    assert (outcome.kind, outcome.ok, outcome.internal) == ("turn", False, False)
    assert "upstream exploded" in outcome.error
    assert any("upstream exploded" in e for e in rec.kinds("error"))


def test_no_provider_is_one_line_and_the_shell_output_waits(make_app: AppFactory) -> None:
    app, rec = make_app(provider=False)
    app.engine.handle("!!echo still-here")
    outcome = app.engine.handle("hello")
    assert (outcome.kind, outcome.ok, outcome.internal) == ("turn", False, False)
    assert outcome.error and "\n" not in outcome.error
    assert rec.kinds("error")[-1] == outcome.error
    assert [o.command for o in app.ctx.conversation.waiting] == ["echo still-here"]


def test_an_interrupted_turn_is_not_a_failure(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_text("a long answer " * 50, delay=0.05)
    shown = rec.assistant_delta

    def esc_as_words_arrive(text: str) -> None:
        app.ctx.cancel.set()
        shown(text)

    rec.assistant_delta = esc_as_words_arrive  # type: ignore[method-assign]
    outcome = app.engine.handle("tell me a story")
    assert outcome.turn is not None and outcome.turn.interrupted
    assert (outcome.kind, outcome.ok, outcome.error) == ("turn", True, "")


def test_a_session_busy_in_another_slop_is_one_line_and_nothing_is_lost(
    make_app: AppFactory, fake_llm: FakeLLM
) -> None:
    app, rec = make_app()
    app.engine.handle("!!echo waits-for-the-next-turn")
    token = app.store.turn_locks.acquire(app.ctx.session)  # another slop is mid-turn on this session
    try:
        outcome = app.engine.handle("hello")
    finally:
        app.store.turn_locks.release(app.ctx.session, token)
    assert (outcome.kind, outcome.ok, outcome.internal) == ("turn", False, False)
    assert "is busy in another slop" in outcome.error
    assert rec.kinds("error") == [outcome.error]
    assert fake_llm.requests == []
    assert [o.command for o in app.ctx.conversation.waiting] == ["echo waits-for-the-next-turn"]
