"""What the user is asked before a change runs (the preview is the change itself), what
happens when they cancel at the question, and the live output of running commands."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from slop.approval import USER_REFUSED
from slop.errors import Cancelled
from slop.records import ToolCall
from slop.tools.base import ToolContext
from slop.tools.dispatch import dispatch
from slop.tools.registry import ToolRegistry


def call(id_: str, name: str, **args: Any) -> ToolCall:
    return ToolCall(id_, name, json.dumps(args))


class User:
    """Answers approval questions as a user at the terminal would; remembers what was shown."""

    def __init__(self, *answers: bool | BaseException) -> None:
        self.answers = list(answers)
        self.shown: list[str] = []

    def approve(self, call: ToolCall, preview: str) -> str | None:
        self.shown.append(preview)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return None if answer else USER_REFUSED


def test_overwriting_a_file_is_shown_as_the_diff_it_makes(ctx: ToolContext, root: Path) -> None:
    (root / "app.py").write_text("a = 1\nb = 2\nc = 3\n")
    user = User(True)
    dispatch([call("w", "write_file", path="app.py", content="a = 1\nb = 20\nc = 3\n")], ToolRegistry(), ctx, user)
    assert user.shown == [
        "write 19 bytes to app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 20\n c = 3"
    ]


def test_a_new_file_is_shown_by_its_first_lines(ctx: ToolContext) -> None:
    user = User(True)
    body = "".join(f"line {i}\n" for i in range(1, 51))
    dispatch([call("w", "write_file", path="new/notes.md", content=body)], ToolRegistry(), ctx, user)
    [preview] = user.shown
    lines = preview.splitlines()
    assert lines[0] == f"write {len(body)} bytes to new/notes.md (new file)"
    assert lines[4:6] == ["+line 1", "+line 2"] and "+line 30" not in lines
    assert lines[-1].startswith("... ") and lines[-1].endswith(" more diff lines")


def test_a_patch_is_shown_as_its_diff_or_as_the_failure_it_will_be(ctx: ToolContext, root: Path) -> None:
    (root / "m.py").write_text("def f():\n    return 1\n")
    user = User(False, False)
    patch = [{"find": "return 1", "replace": "return 2"}]
    missing = [{"find": "return 9", "replace": "return 2"}]
    results = dispatch(
        [call("p", "apply_patch", path="m.py", patches=patch), call("q", "apply_patch", path="m.py", patches=missing)],
        ToolRegistry(),
        ctx,
        user,
    )
    assert user.shown[0].splitlines()[0] == "apply 1 patch to m.py"
    assert "-    return 1" in user.shown[0] and "+    return 2" in user.shown[0]
    assert user.shown[1].startswith("apply 1 patch to m.py\n(it will fail: ")
    assert [r.content for r in results] == ["Error: PERMISSION_DENIED: the user refused this call"] * 2
    assert (root / "m.py").read_text() == "def f():\n    return 1\n"


def test_a_command_is_shown_as_it_will_run(ctx: ToolContext, root: Path) -> None:
    user = User(False)
    dispatch([call("b", "execute_bash", command="rm -rf build && touch gone")], ToolRegistry(), ctx, user)
    assert user.shown == ["run: rm -rf build && touch gone"]
    assert not (root / "gone").exists()


def test_reads_are_never_asked_about(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    user = User()
    results = dispatch([call("r", "read_file", path="a.txt"), call("l", "list_directory")], ToolRegistry(), ctx, user)
    assert user.shown == [] and [r.status for r in results] == ["completed", "completed"]


def test_cancelling_at_the_question_cancels_the_turn_and_runs_nothing(ctx: ToolContext, root: Path) -> None:
    user = User(True, Cancelled())
    calls = [
        call("w1", "write_file", path="one.txt", content="1"),
        call("w2", "write_file", path="two.txt", content="2"),
        call("w3", "write_file", path="three.txt", content="3"),
        call("r", "list_directory"),
    ]
    results = dispatch(calls, ToolRegistry(), ctx, user)
    assert [r.status for r in results] == ["cancelled"] * 4  # even the approved call and the read
    assert ctx.cancel.is_set()
    assert len(user.shown) == 2  # no question after the cancel
    assert list(root.iterdir()) == []


def test_a_broken_approval_prompt_refuses_the_call_with_why(ctx: ToolContext, root: Path) -> None:
    user = User(RuntimeError("terminal went away"))
    [result] = dispatch([call("w", "write_file", path="x.txt", content="x")], ToolRegistry(), ctx, user)
    assert result.status == "error"
    assert result.content == "Error: INTERNAL: approval failed: terminal went away"
    assert not (root / "x.txt").exists()


def test_live_output_arrives_tagged_with_its_own_call(ctx: ToolContext) -> None:
    seen: dict[str, list[str]] = {"a": [], "b": []}
    lock = threading.Lock()

    def on_output(c: ToolCall, text: str) -> None:
        with lock:
            seen[c.id].append(text)

    calls = [
        call("a", "execute_bash", command="for i in 1 2 3; do echo alpha $i; done"),
        call("b", "execute_bash", command="echo beta; echo beta-err >&2"),
    ]
    results = dispatch(calls, ToolRegistry(), ctx, None, on_output=on_output)
    assert [r.status for r in results] == ["completed", "completed"]
    assert "".join(seen["a"]).split() == ["alpha", "1", "alpha", "2", "alpha", "3"]
    assert "beta" in "".join(seen["b"]) and "alpha" not in "".join(seen["b"])


def test_a_broken_live_view_does_not_lose_the_result(ctx: ToolContext) -> None:
    def broken(c: ToolCall, text: str) -> None:
        raise ValueError("renderer bug")

    [result] = dispatch([call("a", "execute_bash", command="echo fine")], ToolRegistry(), ctx, None, on_output=broken)
    assert result.status == "completed" and "fine" in result.content
