"""One owner of the keyboard, driven in a real pseudo-terminal at full typing speed:
answers typed right after a question, the next command typed at once, type-ahead
during a slow reply, terminal replies that must never become text."""

from __future__ import annotations

from pathlib import Path

import pexpect

from slop.commands.gids import short_length
from tests.e2e.test_pty import term  # noqa: F401 - the pty fixture
from tests.fakellm import FakeLLM


def _user_rows(t) -> list[str]:  # type: ignore[no-untyped-def]
    return [row[0] for row in t.rows("SELECT content FROM messages WHERE role='user' ORDER BY id")]


def test_yes_typed_at_full_speed_then_the_next_command(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_tool_calls([("write_file", {"path": "new.txt", "content": "hi\n"})])
    fake_llm.enqueue_text("written it")
    fake_llm.enqueue_text("second reply")
    t = term()
    t.prompt()
    t.enter("write it")
    t.expect("Allow\\?")
    t.type("yes\rnext question\r")  # the word answer, Enter, and the next input, in one burst
    t.expect("written it")
    t.expect("second reply")
    t.prompt()
    assert (tmp_path / "project" / "new.txt").read_text() == "hi\n"
    assert _user_rows(t) == ["write it", "next question"]


def test_single_keys_answer_without_enter(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_tool_calls([("write_file", {"path": "a.txt", "content": "one\n"})])
    fake_llm.enqueue_tool_calls([("write_file", {"path": "b.txt", "content": "two\n"})])
    fake_llm.enqueue_text("both done")
    fake_llm.enqueue_tool_calls([("execute_bash", {"command": "touch c.txt"})])
    fake_llm.enqueue_text("refused")
    t = term()
    t.prompt()
    t.enter("write two files")
    t.expect("Allow\\?")
    t.type("a")  # always: no Enter needed, and the second write is not asked about ...
    t.expect("always")
    t.expect("\\+two")  # ... but its diff is still shown
    t.expect("both done")
    t.prompt()
    assert (tmp_path / "project" / "b.txt").read_text() == "two\n"
    t.enter("make a third")  # another tool: "always" was for write_file only
    t.expect("Allow\\?")
    t.type("\x1b")  # Esc answers no
    t.expect("refused")
    t.prompt()
    assert not (tmp_path / "project" / "c.txt").exists()


def test_ctrl_c_at_an_approval_cancels_the_turn_at_once(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_tool_calls([("write_file", {"path": "x.txt", "content": "x\n"})])
    fake_llm.enqueue_text("never sent")
    t = term()
    t.prompt()
    t.enter("write x")
    t.expect("Allow\\?")
    t.child.sendcontrol("c")
    t.expect("cancel")
    t.prompt()
    assert not (tmp_path / "project" / "x.txt").exists()
    assert t.rows("SELECT status, content FROM messages WHERE role='tool'") == [("cancelled", "[Cancelled]")]
    assert len([r for r in fake_llm.requests if "chat" in r.path]) == 1  # no second model call


def test_y_n_question_answered_at_full_speed(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_text("first answer")
    fake_llm.enqueue_text("after the clear")
    t = term()
    t.prompt()
    t.enter("a question")
    t.expect("first answer")
    t.prompt()
    t.enter("/session clear")
    t.expect("\\[y/N\\]")
    t.type("y\rhello again\r")
    t.expect("cleared")
    t.expect("after the clear")
    t.prompt()
    assert _user_rows(t) == ["hello again"]


def test_type_ahead_during_a_slow_reply_runs_line_by_line(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_text("slow " * 30, chunks=["slow "] * 30, delay=0.1)
    fake_llm.enqueue_text("reply two")
    fake_llm.enqueue_text("reply three")
    t = term()
    t.prompt()
    t.enter("go slowly")
    t.expect("slow slow")
    # two lines typed while the reply streams, with a late cursor-position report and a
    # focus event (terminal replies) in between: none of them may become text
    t.type("second line\r\x1b[9;1R\x1b[Ithird /context pin 1")
    t.type("23\r")
    t.expect("queued: second line")
    t.expect("queued: third /context pin 123")
    t.expect("reply two")
    t.expect("reply three")
    t.prompt()
    assert _user_rows(t) == ["go slowly", "second line", "third /context pin 123"]
    t.enter("/exit")
    t.child.expect(pexpect.EOF, timeout=30)


def test_diff_shown_under_yes(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    (tmp_path / "project" / "notes.txt").write_text("alpha\nbeta\n")
    patch = {"path": "notes.txt", "patches": [{"find": "beta", "replace": "gamma"}]}
    fake_llm.enqueue_tool_calls([("apply_patch", patch)])
    fake_llm.enqueue_text("patched")
    t = term("--yes")
    t.prompt()
    t.enter("patch it")
    t.expect("-beta")
    t.expect("\\+gamma")
    t.expect("patched")
    t.prompt()
    assert (tmp_path / "project" / "notes.txt").read_text() == "alpha\ngamma\n"


def test_gid_suffix_typed_and_tab_completed(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_text("one")
    fake_llm.enqueue_text("two")
    t = term()
    t.prompt()
    t.enter("first")
    t.expect("one")
    t.prompt()
    t.enter("second")
    t.expect("two")
    t.prompt()
    first, second = (row[0] for row in t.rows("SELECT DISTINCT group_id FROM messages ORDER BY group_id"))
    t.enter(f"/context drop {first[-4:]}")  # four trailing digits are enough
    t.expect(f"group {first} dropped")
    t.prompt()
    shown = short_length([first, second])
    mine, other = first[-shown:], second[-shown:]
    typed = next(mine[:n] for n in range(1, shown + 1) if not other.startswith(mine[:n]))
    t.type(f"/context restore {typed}\t")  # Tab completes the suffix lists show
    t.expect(mine[len(typed) :] or mine)
    t.enter("")
    t.expect(f"group {first} restored")
    t.prompt()
    assert t.rows(f"SELECT DISTINCT status FROM messages WHERE group_id='{first}'") == [("completed",)]
