"""What the agent is doing, live, in a real terminal: a running command's output and
elapsed time, its result when it ends, the wait for the model, /exec cancelled by Esc."""

from __future__ import annotations

import time
from pathlib import Path

from tests.e2e.test_pty import term  # noqa: F401 - the pty fixture
from tests.fakellm import FakeLLM

TICKING = "i=0; while [ ! -e stop ]; do i=$((i+1)); echo tick$i; sleep 0.1; done; echo finished-ok"


def test_a_ticking_command_shows_its_output_before_it_ends(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_tool_calls([("execute_bash", {"command": TICKING})])
    fake_llm.enqueue_text("the command ended")
    t = term("--yes")
    t.prompt()
    t.enter("run the ticker")
    t.expect("Esc to cancel")
    t.expect("tick3")  # output on screen while the command still runs ...
    assert t.rows("SELECT COUNT(*) FROM messages WHERE role='tool'") == [(0,)]  # ... it has not ended
    (tmp_path / "project" / "stop").touch()
    t.expect("exit 0")  # the result: exit code, then the last lines of output
    t.expect("finished-ok")
    t.expect("the command ended")
    t.prompt()


def test_quiet_hides_the_output_lines(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_tool_calls([("execute_bash", {"command": "echo first-line; echo hidden-tail"})])
    fake_llm.enqueue_text("all quiet")
    t = term("--yes")
    t.prompt()
    t.enter("/verbose quiet")
    t.expect("tool output: quiet")
    t.prompt()
    t.enter("run it")
    t.expect("exit 0")
    t.expect("all quiet")
    assert "hidden-tail" not in t.child.before  # nothing between the tool line and the reply
    t.prompt()


def test_waiting_for_the_model_is_shown_until_the_first_token(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_text("late answer", chunks=["late ", "answer"], delay=2.0)
    t = term()
    t.prompt()
    t.enter("take your time")
    t.expect("waiting for model… \\d+s")
    t.expect("late answer")
    t.prompt()


def test_exec_is_cancelled_with_esc(term, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    marker = tmp_path / "project" / "started"
    t = term()
    t.prompt()
    t.enter("/exec touch started; sleep 30; echo never")
    deadline = time.monotonic() + 15
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), "the command never started"
    t.type("\x1b")
    t.expect("interrupted", timeout=10)
    t.prompt()
