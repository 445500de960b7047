"""The registry: every command documented, docs/commands.md current, unknown commands, usage lines."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from slop.commands import build_registry
from slop.commands.base import CATEGORIES
from slop.errors import CommandError
from tests.commands.conftest import Harness

ROOT = Path(__file__).resolve().parents[2]


def _gen_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("gen_commands_doc", ROOT / "scripts" / "gen_commands_doc.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_command_has_help_usage_and_category() -> None:
    problems = []
    for command in build_registry().commands():
        if not command.help.strip() or "\n" in command.help:
            problems.append(f"{command.name}: help must be one non-empty line")
        if not command.usage.startswith(command.name):
            problems.append(f"{command.name}: usage must start with the command name, got {command.usage!r}")
        if command.category not in CATEGORIES:
            problems.append(f"{command.name}: category {command.category!r} is not one of {CATEGORIES}")
    assert not problems, "\n".join(problems)


def test_docs_commands_md_is_up_to_date() -> None:
    doc = ROOT / "docs" / "commands.md"
    expected = _gen_module().render()
    current = doc.read_text(encoding="utf-8") if doc.exists() else ""
    assert current == expected, "docs/commands.md is out of date: run python scripts/gen_commands_doc.py"


def test_help_lists_the_commands(harness: Harness) -> None:
    harness.run("/help")
    page = harness.io.of("markdown")[-1]
    for name in (
        "/session",
        "/memo",
        "/skill",
        "/review",
        "/feedback",
        "/edit",
        "/exec",
        "/schema",
        "/tool",
        "/throttle",
    ):
        assert f"`{name}" in page
    harness.run("/help memo")
    assert "usage: `/memo" in harness.io.of("markdown")[-1]


@pytest.mark.parametrize(
    ("line", "suggestion"),
    [("/sesion", "/session"), ("/skil", "/skill"), ("/thrtotle", "/throttle"), ("/mem", "/memo")],
)
def test_unknown_command_suggests(shared_harness: Harness, line: str, suggestion: str) -> None:
    with pytest.raises(CommandError, match="unknown command") as caught:
        shared_harness.run(line)
    assert "did you mean" in str(caught.value)
    assert suggestion in str(caught.value)


def test_unknown_command_without_match_points_to_help(harness: Harness) -> None:
    with pytest.raises(CommandError, match="/help"):
        harness.run("/qqqqqqq")


@pytest.mark.parametrize(
    "line",
    [
        "/session",
        "/session bogus",
        "/session switch",
        "/session clone",
        "/session remove",
        "/session scratchpad bogus",
        "/session list extra",
        "/memo",
        "/memo bogus",
        "/memo show",
        "/memo show abc",
        "/memo add --tags justtags",
        "/memo search",
        "/skill",
        "/skill bogus",
        "/skill activate",
        "/skill deactivate",
        "/skill show",
        "/skill add two words",
        "/tool",
        "/tool bogus",
        "/tool show",
        "/throttle abc",
        "/throttle -1",
        "/throttle nan",
        "/exec",
        "/edit extra",
        "/feedback extra",
        "/schema extra",
    ],
)
def test_bad_arguments_give_the_usage_line(shared_harness: Harness, line: str) -> None:
    with pytest.raises(CommandError) as caught:
        shared_harness.run(line)
    assert caught.value.usage, f"{line}: no usage line in {caught.value}"
    assert caught.value.usage.startswith(line.split()[0])
    assert "usage:" in str(caught.value)


def test_engine_prints_errors_as_one_line(harness: Harness) -> None:
    outcome = harness.app.engine.handle("/throttle abc")
    assert not outcome.ok
    (error,) = harness.io.of("error")
    assert "\n" not in error and "usage: /throttle" in error


def test_completion_offers_sub_commands_and_names(harness: Harness) -> None:
    registry = harness.app.registry
    harness.run("/session switch other")
    session = registry.find("/session")
    assert session is not None and session.complete is not None
    assert "clone" in session.complete(harness.ctx, ["cl"])
    assert "other" in session.complete(harness.ctx, ["switch", "o"])
    skill = registry.find("/skill")
    assert skill is not None and skill.complete is not None
    assert "planner" in skill.complete(harness.ctx, ["activate", "p"])
    tool = registry.find("/tool")
    assert tool is not None and tool.complete is not None
    assert "read_file" in tool.complete(harness.ctx, ["show", "r"])
