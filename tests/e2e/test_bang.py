"""`!command` (shown, never sent) and `!!command` (its output goes with the next message):
typed in a real pseudo-terminal against the fake server, and through the engine."""

from __future__ import annotations

import json
from pathlib import Path

from slop.commands.conversation import MAX_ATTACHED_CHARS
from tests.e2e.conftest import AppFactory
from tests.e2e.test_pty import term  # noqa: F401 - the pty fixture
from tests.e2e.wires import (
    both_wires,  # noqa: F401  (the `wire` fixture, both wires)
    last_sent,
)
from tests.fakellm import FakeLLM


def test_bang_shows_output_and_sends_nothing_then_double_bang_attaches(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    t = term()
    t.prompt()
    t.enter("!echo single-$((40+2)) && cat notes.txt")
    t.expect("single-42")
    t.expect("beta")
    t.expect("exit code 0")
    t.prompt()
    assert fake_llm.requests == []
    assert t.rows("SELECT count(*) FROM messages") == [(0,)]
    t.enter("!!echo double-$((6*7)); exit 3")
    t.expect("double-42")
    t.expect("exit code 3")
    t.expect("will be added to your next message")
    t.prompt()
    assert fake_llm.requests == []
    fake_llm.enqueue_text("I see the output.")
    t.enter("why did it fail")
    t.expect("I see the output")
    t.prompt()
    sent = json.dumps(fake_llm.requests[-1].json)
    assert "double-42" in sent and "exit code 3" in sent and "single-42" not in sent
    [(stored,)] = t.rows("SELECT content FROM messages WHERE role='user'")
    assert str(stored).startswith("Output of `echo double-$((6*7)); exit 3` (exit code 3), run by the user:")
    assert str(stored).endswith("why did it fail")
    fake_llm.enqueue_text("Plain.")
    t.enter("and now")  # attached once only
    t.expect("Plain")
    assert "double-42" not in last_sent(fake_llm)


def test_a_bare_bang_is_a_one_line_error(make_app: AppFactory) -> None:
    app, rec = make_app()
    outcome = app.engine.handle("!!   ")
    assert not outcome.ok and outcome.usage_error
    assert rec.kinds("error") == [
        "which command? !COMMAND runs it for you; !!COMMAND also adds its output to your next message"
    ]


def test_attached_output_is_cut_in_the_middle_and_kept_when_the_message_is_refused(
    make_app: AppFactory, fake_llm: FakeLLM, project: Path
) -> None:
    app, rec = make_app()
    (project / "big.txt").write_text("FIRST\n" + "y" * (MAX_ATTACHED_CHARS * 3) + "\nLAST\n")
    assert app.engine.handle("/context mode messages").ok
    assert app.engine.handle("/context set max_input_chars 1000").ok
    assert app.engine.handle("!!cat big.txt").ok
    assert not app.engine.handle("look at this").ok  # too long with the output: refused, nothing stored
    assert "message not sent" in rec.kinds("error")[-1]
    assert fake_llm.requests == []
    assert app.engine.handle("/context set max_input_chars 0").ok
    fake_llm.enqueue_text("ok")
    assert app.engine.handle("look at this").ok  # the output waited for this message
    text = last_sent(fake_llm)
    assert "FIRST" in text and "LAST" in text and "look at this" in text
    assert "characters of output left out" in text
    assert len(text) < MAX_ATTACHED_CHARS + 500
