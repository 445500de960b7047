"""Loads a Snapshot from the ledger and assembles the Prompt: the one path used by
every model call and by /context show."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from slop.context import layers as L
from slop.context.assemble import AssemblyConfig, Snapshot, assemble, build_layers, definitions_tokens
from slop.context.budget import output_limit, prompt_budget
from slop.context.strategies.base import ContextStrategy, Maintenance, Selection, Summarizer, Upkeep
from slop.context.strategies.window import WindowStrategy
from slop.context.truncate import TruncationConfig
from slop.parser import parse_cached
from slop.records import Memo, Prompt, Role, SessionInfo, ToolSpec
from slop.store import Store
from slop.store.context_source import StoreHistory
from slop.store.memos import Memos

MAX_MEMOS = 5


@dataclass(frozen=True, slots=True)
class TurnLayers:
    turn: tuple[object, ...]  # (the turn's group id, its request)
    state: str
    scratchpad: str
    memos: tuple[Memo, ...]
    files_read: tuple[str, ...]


MEMO_PREVIEW_CHARS = 80


def one_line_preview(text: str, limit: int = MEMO_PREVIEW_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def no_instructions() -> str:
    return ""


@dataclass
class ContextService:
    store: Store
    memos: Memos
    tool_specs: Callable[[], Sequence[ToolSpec]]
    strategies: dict[str, ContextStrategy]
    count: Callable[[str], int]
    exact_tokens: Callable[[], bool]
    truncation: TruncationConfig = TruncationConfig()  # noqa: RUF009 - frozen, shared safely
    system_prompt: str = L.SYSTEM_PROMPT
    server_window: Callable[[str], int] = lambda model: 0  # the context size a local server reported
    # The instruction files' layer text (slop.instructions.InstructionFiles.text), asked
    # on every call so an edited AGENTS.md is seen without a restart.
    instructions: Callable[[], str] = no_instructions

    def __post_init__(self) -> None:
        # A stored row never changes, and the same window is parsed on every model call:
        # parse each tool-call row once (pair integrity needs the call ids of every row).
        # The cache is the parser's own, which the provider rendering the prompt reads too.
        self._parse = parse_cached
        # The volatile layers of each session's running turn, as of its first call.
        self._turns: dict[str, TurnLayers] = {}
        self._last_memos: tuple[Memo, ...] = ()  # the memos of the last snapshot

    def announce_new_memos(self) -> list[str]:
        """One line per memo saved by the model that the last prompt carries for the first
        time: text the model wrote is now steering the model, and the user should know."""
        fresh = self.memos.take_unannounced(list(self._last_memos))
        return [
            f"memo #{m.id} saved by the model in project {m.project or '(unknown)'} is now in the context: "
            f"{one_line_preview(m.content)} (/memo remove {m.id} deletes it)"
            for m in fresh
        ]

    def offered_tools(self) -> tuple[ToolSpec, ...]:
        """The tools the model is offered: every registered one not disabled in the `tools` table."""
        disabled = self.store.catalog.disabled_tools()
        return tuple(spec for spec in self.tool_specs() if spec.name not in disabled)

    def strategy_for(self, session: SessionInfo) -> ContextStrategy:
        return self.strategies.get(session.context_mode) or WindowStrategy()

    def source(self) -> StoreHistory:
        """The ledger as strategies read (and compacting strategies edit) it."""
        return self.store.history

    def snapshot(self, session_name: str, wire: str, model: str) -> Snapshot:
        session = self.store.sessions.get(session_name)
        budget = prompt_budget(model, session.budget, server_window=self.server_window(model))
        query = self.store.messages.last_user_text(session_name)
        skills = self.store.catalog.skills()
        active = [s for s in skills if s.name in session.active_skills]
        base = Snapshot(
            session=session,
            history=(),
            wire=wire,
            state=self.store.sessions.state(session_name),
            skills=tuple(active),
            tools=self.offered_tools(),
            budget=budget,
            output_limit=output_limit(model),
            instructions=self.instructions(),
        )
        # Strategies get the room the history may use: the budget minus the system layers
        # and the tool definitions.
        config = self._config()
        fixed = sum(layer.tokens for layer in build_layers(base, config)) + definitions_tokens(base.tools, config.count)
        room = max(1, budget - fixed) if budget > 0 else 0
        selection: Selection = self.strategy_for(session).select(self.source(), session, query, room)
        last_user = next((m.content for m in reversed(selection.messages) if m.role == Role.USER), query)
        memos = tuple(self.memos.find([last_user], limit=MAX_MEMOS)) if last_user else ()
        fresh = replace(
            base,
            history=selection.messages,
            memos=memos,
            files_read=selection.files_read,
            notes=selection.notes,
            strategy_layer=selection.layer,
        )
        snapshot = self._same_turn_layers(session_name, (self.store.messages.last_group_id(session_name), query), fresh)
        self._last_memos = snapshot.memos  # the memos the prompt really carries
        return snapshot

    def _same_turn_layers(self, session_name: str, turn: tuple[object, ...], fresh: Snapshot) -> Snapshot:
        """Every call of a turn carries the STATE, scratchpad, memos and files read of its
        first call, so each request extends the previous one exactly and the provider's
        prompt cache holds; what the model changes during the turn it sees in its own
        tool calls, and in these layers from the next turn on."""
        kept = self._turns.get(session_name)
        if kept is None or kept.turn != turn:
            self._turns[session_name] = TurnLayers(
                turn, fresh.state, fresh.session.scratchpad, fresh.memos, fresh.files_read
            )
            return fresh
        session = replace(fresh.session, scratchpad=kept.scratchpad)
        return replace(fresh, session=session, state=kept.state, memos=kept.memos, files_read=kept.files_read)

    def prompt(self, session_name: str, wire: str, model: str) -> Prompt:
        return assemble(self.snapshot(session_name, wire, model), self._config())

    def _config(self) -> AssemblyConfig:
        return AssemblyConfig(
            truncation=self.truncation,
            count=self.count,
            exact_tokens=self.exact_tokens(),
            system_prompt=self.system_prompt,
            parse=self._parse,
        )

    def validate_input(self, session_name: str, text: str) -> str | None:
        """The session strategy's objection to a user input (e.g. too long), or None."""
        session = self.store.sessions.get(session_name)
        return self.strategy_for(session).validate_input(session, text)

    def maintain(
        self,
        session_name: str,
        wire: str,
        model: str,
        summarize: Summarizer | None = None,
        *,
        force: bool = False,
    ) -> Maintenance:
        """Let the session's strategy compact the history before a model call (or when
        /context compact forces it); most strategies do nothing here."""
        session = self.store.sessions.get(session_name)
        strategy = self.strategy_for(session)
        if not strategy.compacts:
            return Maintenance()

        def measure() -> int:  # the prompt as it would be sent now, before the budget guard
            snapshot = self.snapshot(session_name, wire, model)
            return assemble(replace(snapshot, budget=0), self._config()).total_tokens

        query = self.store.messages.last_user_text(session_name)
        budget = prompt_budget(model, session.budget, server_window=self.server_window(model))
        done = strategy.maintain(Upkeep(self.source(), session, query, budget, measure, summarize, force))
        if done.changed:  # a compaction changes the request anyway: take the layers afresh
            self._turns.pop(session_name, None)
        return done
