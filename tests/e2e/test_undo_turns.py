"""/undo after a turn that changed files, in-process on both wires: the question, the
flags, a later change that /undo must not overwrite silently, and refusals that undo nothing.
(The same flows in a real terminal: test_undo_files.py.)"""

from __future__ import annotations

from pathlib import Path

from slop.app import App
from tests.e2e.conftest import AppFactory
from tests.e2e.wires import both_wires  # noqa: F401  (the `wire` fixture, both wires)
from tests.fakellm import FakeLLM
from tests.recording import Recorder

EDITED = "print('hello, world')\n"


def _edit_turn(app: App, fake: FakeLLM, project: Path) -> None:
    patch = {"path": "hello.py", "patches": [{"find": "'hello'", "replace": "'hello, world'"}]}
    fake.enqueue_tool_calls([("apply_patch", patch)])
    fake.enqueue_text("patched")
    assert app.engine.handle("greet the world").ok
    assert (project / "hello.py").read_text() == EDITED


def _undone(rec: Recorder) -> str:
    return next(text for text in reversed(rec.kinds("success")) if text.startswith("undid group"))


def test_undo_keep_files_leaves_them_and_says_so(make_app: AppFactory, fake_llm: FakeLLM, project: Path) -> None:
    app, rec = make_app()
    _edit_turn(app, fake_llm, project)
    assert app.engine.handle("/undo --keep-files").ok
    assert rec.kinds("info")[-2] == "that turn changed 1 file:\n  modified              hello.py"
    assert "(4 messages)" in _undone(rec)
    assert rec.kinds("info")[-1] == "the files stay as they are (1 file changed by that turn)"
    assert rec.kinds("confirm") == []  # the flag answered the question
    assert (project / "hello.py").read_text() == EDITED
    assert app.store.messages.count("default") == 0


def test_undo_asks_and_puts_the_file_back_on_yes(make_app: AppFactory, fake_llm: FakeLLM, project: Path) -> None:
    app, rec = make_app()
    _edit_turn(app, fake_llm, project)
    rec.confirms.append(True)
    assert app.engine.handle("/undo").ok
    assert rec.kinds("confirm") == ["Restore these files too (/undo --files or --keep-files skips this question)?"]
    assert (project / "hello.py").read_text() == "print('hello')\n"
    assert rec.kinds("success")[-1].startswith("hello.py ")


def test_undo_asks_and_keeps_the_file_on_no(make_app: AppFactory, fake_llm: FakeLLM, project: Path) -> None:
    app, rec = make_app()
    _edit_turn(app, fake_llm, project)
    rec.confirms.append(False)
    assert app.engine.handle("/undo").ok
    assert len(rec.kinds("confirm")) == 1
    assert (project / "hello.py").read_text() == EDITED
    assert app.store.messages.count("default") == 0  # the turn is undone either way


def test_a_later_change_is_shown_and_kept_unless_confirmed(
    make_app: AppFactory, fake_llm: FakeLLM, project: Path
) -> None:
    app, rec = make_app()
    _edit_turn(app, fake_llm, project)
    (project / "hello.py").write_text(EDITED + "print('mine')\n")  # the user edits it after the turn
    rec.confirms.append(False)  # "Overwrite hello.py ...?" -> no
    assert app.engine.handle("/undo --files").ok
    assert rec.kinds("warning")[-1] == "hello.py was changed since that turn (outside slop or by a later turn):"
    diff = rec.kinds("plain")[-1]
    assert "hello.py (after the turn)" in diff and "+print('mine')" in diff
    assert rec.kinds("confirm") == ["Overwrite hello.py with its content from before the turn?"]
    assert rec.kinds("info")[-1] == "hello.py kept as it is now"
    assert (project / "hello.py").read_text() == EDITED + "print('mine')\n"


def test_a_later_change_is_overwritten_when_confirmed(make_app: AppFactory, fake_llm: FakeLLM, project: Path) -> None:
    app, rec = make_app()
    _edit_turn(app, fake_llm, project)
    (project / "hello.py").unlink()  # deleted after the turn
    rec.confirms.append(True)
    assert app.engine.handle("/undo --files").ok
    assert rec.kinds("warning")[-1].startswith("hello.py was deleted since that turn")
    assert (project / "hello.py").read_text() == "print('hello')\n"


def test_bad_flags_undo_nothing(make_app: AppFactory, fake_llm: FakeLLM, project: Path) -> None:
    app, rec = make_app()
    assert app.engine.handle("/undo").ok
    assert rec.kinds("info")[-1] == "nothing to undo"
    _edit_turn(app, fake_llm, project)
    for line in ("/undo --files --keep-files", "/undo --bogus", "/undo files"):
        assert not app.engine.handle(line).ok, line
        error = rec.kinds("error")[-1]
        assert "use --files (restore the files too) or --keep-files (leave them)" in error and "\n" not in error
    assert app.store.messages.count("default") == 4
    assert (project / "hello.py").read_text() == EDITED
