"""/edit, /review, /feedback, /exec."""

from __future__ import annotations

import dataclasses
import time

import pytest

from slop.commands.base import Proceed
from slop.errors import CommandError
from slop.records import NewMessage, Role, Status
from tests.commands.conftest import Harness, git

# ---- /edit ---------------------------------------------------------------------------


def test_edit_prefills_the_last_input(harness: Harness) -> None:
    harness.ctx.conversation.last_input = "fix the parser"
    harness.io.edits.append(lambda text: text + " and add a test\n")
    result = harness.run("/edit")
    assert harness.io.edited[-1] == ("fix the parser", ".md")
    assert result == Proceed("fix the parser and add a test")


def test_edit_falls_back_to_the_last_stored_user_message(harness: Harness) -> None:
    harness.add_turn("an older question", "answer")
    harness.add_turn("the last question", "answer")
    harness.io.edits.append("the last question, rephrased")
    assert harness.run("/edit") == Proceed("the last question, rephrased")
    assert harness.io.edited[-1][0] == "the last question"


def test_edit_empty_or_failed_or_unchanged_sends_nothing(harness: Harness) -> None:
    harness.ctx.conversation.last_input = "hello"
    harness.io.edits.extend(["   \n", None, "hello\n"])
    assert harness.run("/edit") is None
    assert harness.run("/edit") is None
    harness.io.confirms.append(False)
    assert harness.run("/edit") is None
    harness.io.edits.append("hello")
    harness.io.confirms.append(True)
    assert harness.run("/edit") == Proceed("hello")


def test_edit_proceeds_to_a_turn_through_the_engine(harness: Harness) -> None:
    harness.io.edits.append("a new question")
    outcome = harness.app.engine.handle("/edit")
    assert outcome.kind == "turn"  # no provider configured: the turn itself reports that
    assert harness.ctx.conversation.last_input == "a new question"


# ---- /review -------------------------------------------------------------------------


@pytest.fixture
def repo(harness: Harness) -> Harness:
    root = harness.root
    git(root, "init", "-q")
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    git(root, "add", "app.py")
    git(root, "commit", "-q", "-m", "first")
    return harness


def _comment_after(line: str, comment: str):  # type: ignore[no-untyped-def]
    def edit(text: str) -> str:
        assert line in text, text
        return text.replace(line, f"{line}\nR: {comment}", 1)

    return edit


def test_review_shows_changes_and_new_files_and_sends_comments(repo: Harness) -> None:
    root = repo.root
    (root / "app.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "new_module.py").write_text("VALUE = 42\n")
    repo.io.edits.append(_comment_after("+    return a - b", "this must stay a + b"))
    result = repo.run("/review")
    prefilled, suffix = repo.io.edited[-1]
    assert suffix == ".diff"
    assert prefilled.startswith("# slop review")
    assert "+++ b/new_module.py" in prefilled, "untracked files are marked intent-to-add so they show"
    assert isinstance(result, Proceed)
    assert "R: this must stay a + b" in result.text
    assert "+VALUE = 42" in result.text
    assert "Do not commit" in result.text
    assert "# slop review" not in result.text, "the instruction header is not sent"
    assert "intent-to-add" in repo.io.of("info")[-1]


def test_review_without_comments_sends_nothing(repo: Harness) -> None:
    (repo.root / "app.py").write_text("changed\n")
    repo.io.edits.append(lambda text: text)
    assert repo.run("/review") is None
    assert repo.io.of("info")[-1] == "no R: comments, nothing sent"


def test_review_with_no_changes(repo: Harness) -> None:
    assert repo.run("/review") is None
    assert repo.io.of("info")[-1] == "no changes to review"


def test_review_of_the_last_commits_and_of_a_ref(repo: Harness) -> None:
    root = repo.root
    (root / "app.py").write_text("def add(a, b):\n    return b + a\n")
    git(root, "commit", "-q", "-am", "second")
    repo.io.edits.append(_comment_after("+    return b + a", "why swap?"))
    result = repo.run("/review 1")
    assert isinstance(result, Proceed) and "git diff HEAD~1" in result.text
    first = git(root, "rev-list", "--max-parents=0", "HEAD").strip()
    repo.io.edits.append(_comment_after("+    return b + a", "again"))
    result = repo.run(f"/review {first}")
    assert isinstance(result, Proceed) and f"git diff {first}" in result.text


def test_review_rejects_options_and_reports_bad_refs(repo: Harness) -> None:
    with pytest.raises(CommandError) as caught:
        repo.run("/review --output=/tmp/x")
    assert caught.value.usage.startswith("/review")
    with pytest.raises(CommandError, match="git diff"):
        repo.run("/review no-such-branch")


def test_review_outside_git_is_one_clear_error(harness: Harness) -> None:
    with pytest.raises(CommandError, match="inside a git repository") as caught:
        harness.run("/review")
    assert "\n" not in str(caught.value)


# ---- /feedback -----------------------------------------------------------------------


def test_feedback_numbers_the_last_reply(harness: Harness) -> None:
    harness.add_turn("q1", "old answer")
    harness.add_turn("q2", "Step one.\nR: not a comment, a line of the reply\nStep three.")
    harness.io.edits.append(_comment_after("3: Step three.", "step three needs a test"))
    result = harness.run("/feedback")
    prefilled = harness.io.edited[-1][0]
    assert "1: Step one.\n2: R: not a comment, a line of the reply\n3: Step three." in prefilled
    assert "old answer" not in prefilled
    assert isinstance(result, Proceed)
    assert "R: step three needs a test" in result.text and "1 comment" in result.text


def test_feedback_uses_the_text_of_a_tool_call_reply(harness: Harness) -> None:
    gid = harness.store.messages.new_group_id()
    native = '{"role": "assistant", "content": "Let me check the file.", "tool_calls": []}'
    harness.store.messages.append_many(
        "default",
        gid,
        [
            NewMessage(Role.USER, "q", parsing_strategy="openai"),
            NewMessage(Role.ASSISTANT, native, Status.TOOL_CALL, parsing_strategy="openai"),
        ],
    )
    harness.io.edits.append(lambda text: text)
    assert harness.run("/feedback") is None
    assert "1: Let me check the file." in harness.io.edited[-1][0]
    assert harness.io.of("info")[-1] == "no R: comments, nothing sent"


def test_feedback_without_a_reply(harness: Harness) -> None:
    with pytest.raises(CommandError, match="no conversation"):
        harness.run("/feedback")
    harness.store.messages.append(
        "default", harness.store.messages.new_group_id(), NewMessage(Role.USER, "only a question")
    )
    with pytest.raises(CommandError, match="no reply"):
        harness.run("/feedback")


# ---- /exec ---------------------------------------------------------------------------


def test_exec_shows_output_and_exit_code(harness: Harness) -> None:
    harness.run("/exec echo out; echo err >&2; exit 3")
    output = harness.io.of("view")[-1]
    assert "out" in output and "err" in output
    assert harness.io.of("warning")[-1] == "exit code 3"
    harness.run("/exec pwd")
    assert harness.io.of("view")[-1].strip() == str(harness.root)
    assert harness.io.of("success")[-1] == "exit code 0"
    assert harness.store.messages.count("default") == 0, "/exec is not recorded in the ledger"


def test_exec_times_out_and_kills_the_group(harness: Harness) -> None:
    harness.app.ctx = dataclasses.replace(
        harness.ctx, settings=dataclasses.replace(harness.ctx.settings, shell_timeout=0.3)
    )
    started = time.monotonic()
    harness.run("/exec sleep 30 & sleep 30")
    assert time.monotonic() - started < 10
    assert "timed out after 0.3 s" in harness.io.of("error")[-1]
