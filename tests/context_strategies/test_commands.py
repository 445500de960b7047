"""/context mode|budget|set|pin|unpin|log|recover|compact|show through the real registry."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from slop.errors import CommandError
from slop.records import Status
from slop.store import Store
from tests.recording import Recorder

from .conftest import SID, ScriptedProvider, add_group, statuses

Run = Callable[[str], Recorder]


def test_mode_is_persisted_listed_and_shown(ledger: Store, command: Run) -> None:
    listing = command("/context mode").kinds("info")[0]
    assert "context mode: window" in listing and all(n in listing for n in ("messages", "ranked", "compact"))
    assert "context mode: ranked" in command("/context mode ranked").kinds("success")[0]
    assert ledger.sessions.get(SID).context_mode == "ranked"
    with pytest.raises(CommandError, match="unknown context mode"):
        command("/context mode sideways")
    add_group(ledger, "hello there parser")
    shown = command("/context show").viewed[0]
    assert "context mode: ranked" in shown and "Strategy ranked" in shown


def test_budget_sets_shows_and_resets(ledger: Store, command: Run) -> None:
    assert "model's default" in command("/context budget").kinds("info")[0]
    assert "2,000 tokens" in command("/context budget 2000").kinds("success")[0]
    assert ledger.sessions.get(SID).budget == 2000
    assert "2,000 tokens (this session)" in command("/context budget").kinds("info")[0]
    command("/context budget 0")
    assert ledger.sessions.get(SID).budget == 0
    for bad in ("-5", "lots", "12"):
        with pytest.raises(CommandError):
            command(f"/context budget {bad}")


def test_set_validates_and_lists_strategy_settings(ledger: Store, command: Run) -> None:
    table = command("/context set").kinds("table")[0]
    assert "ranked_k" in table and "max_input_chars" in table and "compact_threshold" in table
    command("/context set ranked_k 30")
    command("/context set messages 4")
    assert ledger.sessions.get(SID).options["ranked_k"] == 30.0 and ledger.sessions.get(SID).options["messages"] == 4
    command("/context set ranked_k default")
    assert ledger.sessions.get(SID).options["ranked_k"] == 60
    for bad in ("ranked_k", "nope 3", "compact_threshold 2", "messages 1.5"):
        with pytest.raises(CommandError):
            command(f"/context set {bad}")


def test_pin_unpin_and_log(ledger: Store, command: Run) -> None:
    gid = add_group(ledger, "remember the port is 8443")
    assert "pinned" in command(f"/context pin {gid}").kinds("success")[0]
    assert "already pinned" in command(f"/context pin {gid}").kinds("info")[0]
    assert ledger.history.pinned_groups(SID) == {gid}
    assert "unpinned" in command(f"/context unpin {gid}").kinds("success")[0]
    with pytest.raises(CommandError, match="no group"):
        command("/context pin 123")
    table = command("/context log").kinds("table")[0]
    assert "pin" in table and "unpin" in table and gid in table


def test_log_is_empty_at_first(command: Run) -> None:
    assert "no compaction, drop or recovery" in command("/context log").kinds("info")[0]


def test_recover_brings_back_dropped_groups(ledger: Store, command: Run) -> None:
    gid = add_group(ledger, "the navbar css must be sticky", "done")
    add_group(ledger, "something else entirely")
    ledger.history.archive_group(SID, gid, score=0.1, prompt="p", reason="test", days=30)
    assert "nothing in cold storage" in command("/context recover kubernetes").kinds("info")[0]
    out = command("/context recover navbar").kinds("success")[0]
    assert gid in out and all(m.status != Status.ARCHIVED for m in ledger.messages.group(SID, gid))
    with pytest.raises(CommandError):
        command("/context recover")
    with pytest.raises(CommandError):
        command("/context recover the and of")


def test_compact_needs_a_compacting_mode_and_forces_one(
    ledger: Store, command: Run, provider: ScriptedProvider
) -> None:
    for i in range(10):
        add_group(ledger, f"request {i} " + "word " * 60, f"answer {i} " + "text " * 60)
    with pytest.raises(CommandError, match="does not compact"):
        command("/context compact")
    command("/context mode compact")
    out = command("/context compact")
    assert "context compacted" in out.kinds("success")[0]
    assert statuses(ledger)[Status.COMPACTED] > 0
    assert provider.prompts[0].layers[0].name == "summary instructions"


def test_compact_without_a_provider_reports_and_changes_nothing(ledger: Store, command: Run, orchestrator) -> None:  # type: ignore[no-untyped-def]
    for i in range(10):
        add_group(ledger, f"request {i} " + "word " * 60, f"answer {i}")
    command("/context mode compact")
    orchestrator.provider = lambda: None
    assert "no model provider" in command("/context compact").kinds("error")[0]
    assert Status.COMPACTED not in statuses(ledger)


def test_usage_and_sub_commands_list_the_new_ones() -> None:
    from slop.commands import build_registry

    context = build_registry().find("/context")
    assert context is not None
    for sub in ("mode", "budget", "compact", "recover", "pin", "unpin", "log", "set"):
        assert sub in context.usage  # the usage line is written from the registered sub-commands
        assert sub in context.subcommands
