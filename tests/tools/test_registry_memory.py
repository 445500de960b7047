"""Registry contents and the memory tools (scratchpad, memos, skills)."""

from __future__ import annotations

import pytest

from slop.tools.base import ToolContext
from slop.tools.registry import ToolRegistry, default_tools

from .conftest import FakeStore, run_tool

NAMES = [
    "read_file", "write_file", "apply_patch", "list_directory", "grep_tool", "git_grep_tool",
    "execute_bash", "query_db", "describe_db", "manage_scratchpad", "save_memo", "retrieve_memos", "use_skill",
    "search_history", "recover_context",
]  # fmt: skip


def test_registry_order_and_mutating_flags() -> None:
    registry = ToolRegistry()
    assert registry.names() == NAMES
    assert [s.name for s in registry.specs()] == NAMES
    assert {s.name for s in registry.specs() if s.mutating} == {"write_file", "apply_patch", "execute_bash"}
    assert registry.get("read_file") is not None and registry.get("nope") is None
    assert "grep_tool" in registry and len(registry) == len(NAMES)


def test_duplicate_names_refused() -> None:
    with pytest.raises(ValueError):
        ToolRegistry([*default_tools(), default_tools()[0]])


def test_scratchpad(ctx: ToolContext, store: FakeStore) -> None:
    assert run_tool(ctx, "manage_scratchpad", action="read").content == "The scratchpad is empty."
    run_tool(ctx, "manage_scratchpad", action="update", content="- plan")
    run_tool(ctx, "manage_scratchpad", action="append", content="- more")
    assert store.scratchpads["s1"] == "- plan\n- more"
    assert run_tool(ctx, "manage_scratchpad", action="read").content == "- plan\n- more"
    missing = run_tool(ctx, "manage_scratchpad", action="update")
    assert missing.status == "error" and "content is required" in missing.content
    assert "must be one of: read, update, append" in run_tool(ctx, "manage_scratchpad", action="zap").content


def test_memos(ctx: ToolContext, store: FakeStore) -> None:
    saved = run_tool(ctx, "save_memo", content="Tests run with pytest -q", tags=[" Python ", "testing", "python"])
    assert saved.content == "Memo 1 saved with tags: python, testing."
    found = run_tool(ctx, "retrieve_memos", tags=["TESTING"])
    assert "Tests run with pytest -q" in found.content and "Memo 1" in found.content
    assert "No memos found" in run_tool(ctx, "retrieve_memos", tags=["rust"]).content
    assert run_tool(ctx, "save_memo", content="x", tags=[" "]).status == "error"


def test_use_skill(ctx: ToolContext, store: FakeStore) -> None:
    activated = run_tool(ctx, "use_skill", name="reviewer")
    assert "Skill 'reviewer' activated" in activated.content and "Review every change twice." in activated.content
    assert store.active["s1"] == {"reviewer"}
    assert run_tool(ctx, "use_skill", name="reviewer", action="deactivate").content == "Skill 'reviewer' deactivated."
    assert store.active["s1"] == set()
    unknown = run_tool(ctx, "use_skill", name="ghost")
    assert unknown.status == "error" and "Available skills: reviewer" in unknown.content
    assert "ghost" not in store.active.get("s1", set())
