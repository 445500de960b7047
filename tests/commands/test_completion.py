"""Tab at the prompt: commands with their help, and `@path` mentions completed from the
project (and --allow-path folders) only, through the REPL's real completer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent, Completion
from prompt_toolkit.document import Document

from slop.app import build
from slop.settings import Settings
from slop.ui.completion import CommandCompleter, LazyCompleter
from tests.commands.conftest import Harness, RecordingIO, make_harness


def complete(completer: CommandCompleter | LazyCompleter, text: str) -> list[Completion]:
    return list(completer.get_completions(Document(text), CompleteEvent(completion_requested=True)))


def offered(completer: CommandCompleter | LazyCompleter, text: str) -> list[str]:
    return [c.text for c in complete(completer, text)]


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Harness]:
    with make_harness(tmp_path, RecordingIO()) as harness:
        root = harness.root
        (root / "src" / "pkg").mkdir(parents=True)
        (root / "src" / "main.py").write_text("print()\n")
        (root / "src" / "model.py").write_text("x = 1\n")
        (root / "setup.cfg").write_text("")
        (root / ".env").write_text("SECRET=1\n")
        for skipped in ("node_modules", ".git", "__pycache__"):
            (root / skipped).mkdir()
        yield harness


@pytest.fixture
def completer(project: Harness) -> CommandCompleter:
    return CommandCompleter(project.app.registry, project.ctx)


def test_a_command_completes_with_its_help_beside_it(completer: CommandCompleter) -> None:
    [context] = [c for c in complete(completer, "/cont") if c.text == "/context"]
    assert context.start_position == -len("/cont")
    assert "See and steer what the model gets" in context.display_meta_text


def test_a_mention_completes_files_and_folders_of_the_project(completer: CommandCompleter) -> None:
    assert offered(completer, "look at @s") == ["setup.cfg", "src/"]
    assert offered(completer, "look at @src/m") == ["src/main.py", "src/model.py"]
    assert offered(completer, "@src/") == ["src/main.py", "src/model.py", "src/pkg/"]
    [main] = [c for c in complete(completer, "fix @src/ma") if c.text == "src/main.py"]
    assert main.start_position == -len("src/ma")  # only the path after @ is replaced


def test_hidden_entries_only_when_asked_and_never_the_tool_folders(completer: CommandCompleter) -> None:
    everything = offered(completer, "@")
    assert ".env" not in everything and "node_modules/" not in everything and "__pycache__/" not in everything
    assert offered(completer, "@.") == [".env"]  # .git stays out even when dot-files are asked for


def test_no_mention_completes_outside_the_project(completer: CommandCompleter, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("")
    assert offered(completer, "@../") == []
    assert offered(completer, f"@{tmp_path}/") == []
    assert offered(completer, "@/etc/pass") == []


def test_an_allowed_folder_completes_by_its_absolute_path(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "lib").mkdir(parents=True)
    (shared / "lib" / "util.py").write_text("")
    root = tmp_path / "project"
    root.mkdir()
    settings = Settings(
        db_path=str(tmp_path / "l.db"), home=str(tmp_path / "home"), project_root=str(root), allow_paths=(str(shared),)
    )
    io = RecordingIO()
    app = build(settings, io, io, approver=None)  # slop --allow-path SHARED
    try:
        completer = CommandCompleter(app.registry, app.ctx)
        assert offered(completer, f"@{shared}/lib/u") == [f"{shared}/lib/util.py"]
        assert offered(completer, f"@{tmp_path}/") == []  # the folder above it is not allowed
    finally:
        app.close()


def test_a_slash_command_s_text_is_not_completed_as_a_mention_nor_a_second_line(completer: CommandCompleter) -> None:
    assert offered(completer, "/memo add @sr") == []
    assert offered(completer, "/context\n/con") == []
    assert offered(completer, "just text") == []


def test_completion_waits_for_the_registry_then_completes(project: Harness) -> None:
    ready: list[bool] = []
    lazy = LazyCompleter(lambda: (project.app.registry, project.ctx) if ready else None)
    assert offered(lazy, "/cont") == []  # still starting: nothing, no error
    ready.append(True)
    assert "/context" in offered(lazy, "/cont")
