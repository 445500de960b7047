"""Fixtures for the tool tests: a project dir, a fake ToolStore on a real SQLite file."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from slop.records import Memo, Skill, ToolCall, ToolResult
from slop.store.readonly import describe_schema, run_readonly_query
from slop.tools.base import ToolContext
from slop.tools.dispatch import dispatch
from slop.tools.registry import ToolRegistry

LEDGER_SCHEMA = """
CREATE TABLE sessions (name TEXT PRIMARY KEY, scratchpad TEXT DEFAULT '');
CREATE TABLE messages (
    id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT,
    status TEXT DEFAULT 'completed', tool_call_id TEXT, created_at TEXT DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE memos (id INTEGER PRIMARY KEY, content TEXT, semantic_tags TEXT);
CREATE TABLE skills (id INTEGER PRIMARY KEY, name TEXT UNIQUE, description TEXT, system_prompt_patch TEXT);
"""


def make_ledger(path: Path, messages: int = 3) -> Path:
    """A small ledger-like SQLite file, written with plain sqlite3."""
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA synchronous = OFF")  # fsync makes every fixture slow; durability is moot here
        conn.executescript(LEDGER_SCHEMA)
        conn.execute("INSERT INTO sessions(name) VALUES ('s1')")
        conn.executemany(
            "INSERT INTO messages(session_id, role, content) VALUES (?, ?, ?)",
            [("s1", "user" if i % 2 else "assistant", f"message {i}") for i in range(1, messages + 1)],
        )
        conn.execute("INSERT INTO memos(content, semantic_tags) VALUES ('use uv', ?)", (json.dumps(["python"]),))
    conn.close()
    return path


class FakeStore:
    """In-memory ToolStore; SQL goes to the real read-only module on a temp file."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self.scratchpads: dict[str, str] = {}
        self.memos: list[Memo] = []
        self.skills = [Skill(1, "reviewer", "Reviews code", "Review every change twice.")]
        self.active: dict[str, set[str]] = {}

    def get_scratchpad(self, session_id: str) -> str:
        return self.scratchpads.get(session_id, "")

    def set_scratchpad(self, session_id: str, text: str) -> None:
        self.scratchpads[session_id] = text

    def append_scratchpad(self, session_id: str, text: str) -> str:
        old = self.get_scratchpad(session_id)
        self.scratchpads[session_id] = old + ("\n" if old and not old.endswith("\n") else "") + text
        return self.scratchpads[session_id]

    def save_memo(self, content: str, tags: list[str]) -> int:
        memo = Memo(len(self.memos) + 1, content, tuple(tags), "2024-01-01 00:00:00")
        self.memos.append(memo)
        return memo.id

    def find_memos(self, tags: list[str], limit: int = 20) -> list[Memo]:
        return [m for m in self.memos if set(m.tags) & set(tags)][:limit]

    def list_skills(self) -> list[Skill]:
        return list(self.skills)

    def set_skill_active(self, session_id: str, name: str, active: bool) -> None:
        if name not in {s.name for s in self.skills}:
            raise KeyError(name)
        names = self.active.setdefault(session_id, set())
        if active:
            names.add(name)
        else:
            names.discard(name)

    def query_readonly(self, sql: str, max_rows: int, max_chars: int) -> str:
        return run_readonly_query(str(self.db_path), sql, max_rows=max_rows, max_chars=max_chars)

    def describe(self) -> str:
        return describe_schema(str(self.db_path))


@pytest.fixture(autouse=True)
def _isolated_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's git config out of the tests."""
    config = tmp_path_factory.mktemp("gitconfig") / "config"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    return make_ledger(tmp_path / "slop.db")


@pytest.fixture
def store(ledger: Path) -> FakeStore:
    return FakeStore(ledger)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    return project


@pytest.fixture
def ctx(root: Path, store: FakeStore) -> ToolContext:
    return ToolContext(root=root, session_id="s1", store=store, shell_timeout=10.0)


def git_init(path: Path, add: bool = True) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    if add:
        subprocess.run(["git", "add", "-A"], cwd=path, check=True)


def run_tool(ctx: ToolContext, tool: str, /, **args: object) -> ToolResult:
    """One call through the real dispatch path (validation, redaction, error mapping)."""
    call = ToolCall(id="c1", name=tool, arguments=json.dumps(args))
    (result,) = dispatch([call], ToolRegistry(), ctx, None)
    return result
