"""Fixtures for the command tests: a recording CommandIO and real app objects on tmp files."""

from __future__ import annotations

import os
import subprocess
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from slop.app import App, build
from slop.commands.base import CommandContext, Proceed
from slop.records import NewMessage, Role, Status
from slop.settings import Settings

EditAnswer = str | None | Callable[[str], str | None]


class RecordingIO:
    """CommandIO and EventSink that records every call; `edit` and `confirm` answer from queues.

    An edit answer is a string (what the user saved), None (editor failed) or a callable
    getting the prefilled text. An unexpected edit or confirm fails the test."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.edits: deque[EditAnswer] = deque()
        self.confirms: deque[bool] = deque()
        self.edited: list[tuple[str, str]] = []  # (prefilled text, suffix)
        self.questions: list[str] = []

    # output
    def info(self, text: str) -> None:
        self.calls.append(("info", text))

    def success(self, text: str) -> None:
        self.calls.append(("success", text))

    def warning(self, text: str) -> None:
        self.calls.append(("warning", text))

    def error(self, text: str) -> None:
        self.calls.append(("error", text))

    def markdown(self, text: str) -> None:
        self.calls.append(("markdown", text))

    def plain(self, text: str) -> None:
        self.calls.append(("plain", text))

    def table(self, title: str | None, columns: list[str], rows: list[list[str]]) -> None:
        self.calls.append(("table", (title, columns, rows)))

    def view(self, text: str, suffix: str = ".txt") -> None:
        self.calls.append(("view", text))

    def data(self, value: Any) -> None:
        self.calls.append(("data", value))

    def screen_height(self) -> int:
        return 0

    def screen_width(self) -> int:
        return 0

    def page(self, text: str, suffix: str = ".txt") -> str:
        self.calls.append(("page", text))
        return "a test pager"

    # interaction
    def edit(self, text: str, suffix: str = ".md") -> str | None:
        self.edited.append((text, suffix))
        assert self.edits, f"unexpected editor call with:\n{text}"
        answer = self.edits.popleft()
        return answer(text) if callable(answer) else answer

    def confirm(self, question: str) -> bool:
        self.questions.append(question)
        assert self.confirms, f"unexpected question: {question}"
        return self.confirms.popleft()

    # EventSink (turns are not run here, but the orchestrator needs a sink)
    def user_echo(self, text: str, group_id: str) -> None:
        self.calls.append(("user", text))

    def assistant_start(self) -> None: ...
    def assistant_delta(self, text: str) -> None: ...
    def reasoning_delta(self, text: str) -> None: ...
    def assistant_end(self, tokens: int | None, interrupted: bool = False) -> None: ...
    def tool_call_start(self, name: str, args_json: str) -> None: ...

    def tool_call_done(self, name: str, args_json: str, status: str, duration: float, summary: str) -> None: ...

    # inspection
    def of(self, *kinds: str) -> list[Any]:
        return [payload for kind, payload in self.calls if kind in kinds]

    def text(self) -> str:
        """Everything shown, as one string (tables flattened)."""
        parts = []
        for kind, payload in self.calls:
            if kind == "table":
                title, columns, rows = payload
                parts.append("\n".join([title or "", " | ".join(columns), *(" | ".join(r) for r in rows)]))
            else:
                parts.append(str(payload))
        return "\n".join(parts)

    def last_table(self) -> tuple[str | None, list[str], list[list[str]]]:
        tables = self.of("table")
        assert tables, f"no table shown; calls: {self.calls}"
        return tables[-1]

    def clear(self) -> None:
        self.calls.clear()


class Harness:
    """The real app on tmp files, driven through the registry with a RecordingIO."""

    def __init__(self, app: App, io: RecordingIO, root: Path) -> None:
        self.app = app
        self.io = io
        self.root = root

    @property
    def ctx(self) -> CommandContext:
        return self.app.ctx

    @property
    def store(self):  # type: ignore[no-untyped-def]
        return self.app.store

    def run(self, line: str) -> Proceed | None:
        """Dispatch a slash command; CommandError and friends propagate to the test."""
        return self.app.registry.dispatch(self.ctx, line)

    def add_turn(self, user: str, answer: str, session: str | None = None, state: str = "") -> str:
        """Store one finished turn (user + assistant) and return its group id."""
        session = session or self.ctx.session
        gid = self.store.messages.new_group_id()
        self.store.messages.append_many(
            session,
            gid,
            [
                NewMessage(Role.USER, user, parsing_strategy="openai"),
                NewMessage(Role.ASSISTANT, answer, Status.COMPLETED, parsing_strategy="openai"),
            ],
        )
        if state:
            self.store.sessions.push_state(session, gid, state)
        return gid


@pytest.fixture
def io() -> RecordingIO:
    return RecordingIO()


@contextmanager
def make_harness(tmp: Path, io: RecordingIO) -> Iterator[Harness]:
    root = tmp / "project"
    root.mkdir()
    settings = Settings(
        db_path=str(tmp / "ledger.db"), home=str(tmp / "home"), project_root=str(root), shell_timeout=10.0
    )
    app = build(settings, io, io, approver=None)
    try:
        yield Harness(app, io, root)
    finally:
        app.close()


@pytest.fixture
def harness(tmp_path: Path, io: RecordingIO) -> Iterator[Harness]:
    with make_harness(tmp_path, io) as made:
        yield made


@pytest.fixture(scope="module")
def shared_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """One app for a whole module: only for tests that change nothing (errors, reads)."""
    with make_harness(tmp_path_factory.mktemp("shared"), RecordingIO()) as made:
        yield made


GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(root: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)
    return done.stdout
