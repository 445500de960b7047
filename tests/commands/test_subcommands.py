"""Sub-commands are one mechanism of the registry: each is registered once, with its
usage and help, and the dispatch, the usage line, /help, Tab completion and
docs/commands.md all come from that one registration."""

from __future__ import annotations

from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from slop.commands import build_registry
from slop.commands.base import Command
from slop.commands.gids import recent_short_ids
from slop.errors import CommandError
from slop.ui.completion import CommandCompleter
from tests.commands.conftest import Harness

ROOT = Path(__file__).resolve().parents[2]
GROUPED = [c for c in build_registry().commands() if c.subs]


def _tab(harness: Harness, text: str) -> list[str]:
    """What Tab offers after `text` at the prompt (the REPL's own completer)."""
    completer = CommandCompleter(harness.app.registry, harness.ctx)
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent(completion_requested=True))]


def test_the_commands_with_sub_commands_are_all_grouped() -> None:
    names = {c.name for c in GROUPED}
    assert names == {"/context", "/message", "/session", "/memo", "/skill", "/tool", "/mcp"}


@pytest.mark.parametrize("command", GROUPED, ids=lambda c: c.name)
def test_each_sub_command_has_a_usage_and_one_line_of_help(command: Command) -> None:
    for sub in command.subs:
        assert sub.help.strip() and "\n" not in sub.help, f"{command.name} {sub.name}"
        assert sub.name in command.usage, f"{command.name}'s usage does not mention {sub.name}"
    words = command.subcommands
    assert len(words) == len(set(words)), f"{command.name}: a sub-command word is registered twice"


@pytest.mark.parametrize("command", GROUPED, ids=lambda c: c.name)
def test_an_unknown_sub_command_is_a_usage_error_naming_it(shared_harness: Harness, command: Command) -> None:
    with pytest.raises(CommandError) as caught:
        shared_harness.run(f"{command.name} frobnicate")
    assert f"unknown {command.name} sub-command 'frobnicate'" in str(caught.value)
    assert caught.value.usage == command.usage


def test_an_alias_runs_the_same_sub_command(harness: Harness) -> None:
    harness.run("/memo add first memo #one")
    harness.run("/memo add second memo #two")
    harness.run("/memo delete 1")
    harness.run("/memo remove 2")
    assert harness.app.ctx.memos.all() == []
    gid = harness.add_turn("question", "answer")
    harness.run(f"/message view {gid}")
    harness.run(f"/message show {gid}")
    first, second = harness.io.of("view")
    assert first == second and "answer" in first


def test_mcp_alone_lists_its_servers(harness: Harness) -> None:
    harness.run("/mcp")
    alone = harness.io.text()
    harness.io.clear()
    harness.run("/mcp list")
    assert alone == harness.io.text() and "no MCP servers configured" in alone


def test_help_for_a_command_lists_its_sub_commands(harness: Harness) -> None:
    harness.run("/help context")
    page = harness.io.of("markdown")[-1]
    context = harness.app.registry.find("/context")
    assert context is not None
    for sub in context.subs:
        assert f"`{sub.usage('/context')}" in page.replace("\\|", "|") and sub.help in page


def test_help_for_one_sub_command(harness: Harness) -> None:
    harness.run("/help context window")
    assert harness.io.of("markdown")[-1].startswith("**/context window [N]** — Show or set the rolling window")
    harness.run("/help /message view")  # an alias finds its sub-command
    assert harness.io.of("markdown")[-1].startswith("**/message show GID**")
    harness.run("/help context frob")
    (error,) = harness.io.of("error")
    assert "/context has no sub-command 'frob'" in error and "window" in error and "\n" not in error


def test_tab_offers_sub_commands_then_their_arguments(harness: Harness) -> None:
    harness.add_turn("question", "answer")
    assert _tab(harness, "/context dr") == ["drop"]
    assert _tab(harness, "/memo ") == ["list", "add", "show", "edit", "remove", "search"]  # aliases are not offered
    assert _tab(harness, "/context show --b") == ["--brief"]
    assert _tab(harness, "/context show --brief --") == []  # the flag comes first only
    short = recent_short_ids(harness.ctx)
    assert short and _tab(harness, "/context drop ") == short == _tab(harness, "/message view ")
    assert _tab(harness, "/context mode ") == list(harness.ctx.orchestrator.context.strategies)
    assert _tab(harness, "/session scratchpad ") == ["read", "edit"]
    assert _tab(harness, "/help cont") == ["context"]
    assert _tab(harness, "/help context wi") == ["window"]


def test_docs_list_every_sub_command() -> None:
    doc = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8").replace("\\|", "|")
    for command in GROUPED:
        assert f"### {command.name}\n" in doc
        for sub in command.subs:
            assert f"| `{sub.usage(command.name)}` | {sub.help}" in doc
