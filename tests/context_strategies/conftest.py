"""Fixtures for the context-strategy tests: a real ledger on a temp file, the real
ContextService with every built-in strategy, a scripted provider and a recording IO."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pytest

from slop.commands.base import CommandContext
from slop.commands.conversation import Conversation
from slop.context.strategies.catalog import builtin_strategies
from slop.context.strategies.relevance import RelevanceStrategy
from slop.orchestrator import Orchestrator
from slop.providers.base import EventCallback, ProviderReply, TextDelta
from slop.providers.openai_wire import openai_native
from slop.records import NewMessage, Prompt, Role, Status, ToolCall, ToolResult, Usage, WireName
from slop.settings import Settings
from slop.snapshot import ContextService
from slop.store import Store
from slop.store.memos import Memos
from slop.tokenestimate import estimate
from tests.recording import Recorder

SID = "s"
NOW = datetime(2030, 1, 1, 12, 0, 0)


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Store]:
    store = Store.open(str(tmp_path / "ledger.db"), estimate)
    yield store
    store.close()


@pytest.fixture
def service(ledger: Store) -> ContextService:
    strategies = dict(builtin_strategies())
    strategies["relevance"] = RelevanceStrategy(clock=lambda: NOW)
    return ContextService(ledger, Memos(ledger.db), lambda: (), strategies, estimate, lambda: False, system_prompt="")


def add_group(
    store: Store,
    user: str,
    answer: str = "",
    *,
    tools: list[str] | None = None,
    sid: str = SID,
    when: str | None = None,
) -> str:
    """One turn as the orchestrator stores it: user, optional tool call + results, answer."""
    gid = store.messages.new_group_id()
    store.messages.append(sid, gid, NewMessage(Role.USER, user, parsing_strategy="openai"))
    if tools:
        calls = [ToolCall(f"c{gid}-{i}", "read_file", json.dumps({"path": f"f{i}.py"})) for i in range(len(tools))]
        store.messages.append(
            sid,
            gid,
            NewMessage(Role.ASSISTANT, openai_native("checking", calls), Status.TOOL_CALL, parsing_strategy="openai"),
        )
        store.messages.append_many(
            sid,
            gid,
            [
                NewMessage(Role.TOOL, out, tool_call_id=c.id, parsing_strategy="openai")
                for c, out in zip(calls, tools, strict=True)
            ],
        )
    if answer:
        store.messages.append(sid, gid, NewMessage(Role.ASSISTANT, answer, parsing_strategy="openai"))
    if when:
        store.db.execute("UPDATE messages SET created_at=? WHERE group_id=?", (when, gid))
    return gid


def statuses(store: Store, sid: str = SID) -> dict[str, int]:
    rows = store.db.query("SELECT status, COUNT(*) FROM messages WHERE session_id=? GROUP BY status", (sid,))
    return {r[0]: r[1] for r in rows}


@dataclass
class ScriptedProvider:
    """A Provider: summary requests (no tools, one layer) get `summary`; turns get `answer`."""

    summary: str | Callable[[Prompt], str] = "## Analysis\n1. Initial Request: x\n## Summary\n1. Primary Request: x"
    answer: str = "done"
    fail_summary: bool = False
    wire: WireName = "openai"
    model: str = "fake-model"
    prompts: list[Prompt] = field(default_factory=list)

    def stream(self, prompt: Prompt, cancel: threading.Event, on_event: EventCallback) -> ProviderReply:
        self.prompts.append(prompt)
        if prompt.layers and prompt.layers[0].name == "summary instructions":
            if self.fail_summary:
                from slop.errors import ProviderUnavailable

                raise ProviderUnavailable("the model is down")
            text = self.summary(prompt) if callable(self.summary) else self.summary
        else:
            text = self.answer
        on_event(TextDelta(text))
        return ProviderReply(text=text, usage=Usage(prompt.total_tokens, 5, prompt.total_tokens + 5, self.model))

    def list_models(self) -> list[str]:
        return [self.model]


class NoTools:
    def run(self, calls, session_id, group_id, cancel, sink) -> list[ToolResult]:  # type: ignore[no-untyped-def]
        return []


@pytest.fixture
def provider() -> ScriptedProvider:
    return ScriptedProvider()


@pytest.fixture
def orchestrator(ledger: Store, service: ContextService, provider: ScriptedProvider) -> Orchestrator:
    return Orchestrator(ledger, service, lambda: provider, NoTools())


@pytest.fixture
def command(ledger: Store, orchestrator: Orchestrator) -> Callable[[str], Recorder]:
    """Run one /context line through the real command registry; returns what it showed."""
    from slop.commands import build_registry

    registry = build_registry()

    def run(line: str) -> Recorder:
        recorder = Recorder()
        ctx = CommandContext(
            ledger,
            Memos(ledger.db),
            orchestrator,
            None,
            Settings(),
            recorder,
            recorder,  # type: ignore[arg-type]
            Path.cwd(),
            Conversation(SID),
        )
        registry.dispatch(ctx, line)
        return recorder

    return run
