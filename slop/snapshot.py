"""Loads a Snapshot from the ledger and assembles the Prompt: the one path used by
every model call and by /context show."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from slop.context.assemble import AssemblyConfig, Snapshot, assemble
from slop.context.budget import prompt_budget
from slop.context.strategies import ContextStrategy, Selection, WindowStrategy
from slop.context.truncate import TruncationConfig
from slop.records import Prompt, Role, SessionInfo, ToolSpec
from slop.store import Store
from slop.store.memos import Memos

MAX_MEMOS = 5


@dataclass
class ContextService:
    store: Store
    memos: Memos
    tool_specs: Callable[[], Sequence[ToolSpec]]
    strategies: dict[str, ContextStrategy]
    count: Callable[[str], int]
    exact_tokens: Callable[[], bool]
    truncation: TruncationConfig = field(default_factory=TruncationConfig)

    def strategy_for(self, session: SessionInfo) -> ContextStrategy:
        return self.strategies.get(session.context_mode) or WindowStrategy()

    def snapshot(self, session_name: str, parsing_strategy: str, model: str) -> Snapshot:
        session = self.store.sessions.get(session_name)
        budget = prompt_budget(model, session.budget)
        query = self.store.messages.last_user_text(session_name)
        selection: Selection = self.strategy_for(session).select(self.store.messages, session, query, budget)
        last_user = next((m.content for m in reversed(selection.messages) if m.role == Role.USER), query)
        skills = self.store.catalog.skills()
        active = [s for s in skills if s.name in session.active_skills]
        return Snapshot(
            session=session,
            history=selection.messages,
            strategy=parsing_strategy,
            state=self.store.sessions.state(session_name),
            memos=tuple(self.memos.find([last_user], limit=MAX_MEMOS)) if last_user else (),
            skills=tuple(active),
            tools=tuple(self.tool_specs()),
            budget=budget,
            notes=selection.notes,
            strategy_layer=selection.layer,
        )

    def prompt(self, session_name: str, parsing_strategy: str, model: str) -> Prompt:
        config = AssemblyConfig(truncation=self.truncation, count=self.count, exact_tokens=self.exact_tokens())
        return assemble(self.snapshot(session_name, parsing_strategy, model), config)
