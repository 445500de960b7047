"""Connects the orchestrator to the tools: per-turn ToolContext, approvals, progress."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from slop.checkpoint import TurnFiles
from slop.context.strategies.relevance_recovery import recover
from slop.context.textsearch import fts_query, informative_terms
from slop.orchestrator import EventSink
from slop.records import Memo, SearchHit, Skill, ToolCall, ToolResult
from slop.store import Store
from slop.store.memos import Memos
from slop.store.readonly import describe_schema, run_readonly_query
from slop.tools.base import Approver, RecoveredItem, ToolContext
from slop.tools.dispatch import dispatch
from slop.tools.registry import ToolRegistry
from slop.tools.summary import summarize


@dataclass
class SessionToolStore:
    """The ToolStore the tools see during one turn: scratchpad edits are tied to the
    turn's group so /undo can roll them back."""

    store: Store
    memos: Memos
    group_id: str | None = None
    project: str = ""  # where memos the model saves come from (shown when one is first injected)

    def get_scratchpad(self, session_id: str) -> str:
        return self.store.sessions.scratchpad(session_id)

    def set_scratchpad(self, session_id: str, text: str) -> None:
        self.store.sessions.set_scratchpad(session_id, text, self.group_id)

    def append_scratchpad(self, session_id: str, text: str) -> str:
        return self.store.sessions.append_scratchpad(session_id, text, self.group_id)

    def save_memo(self, content: str, tags: list[str]) -> int:
        return self.memos.add(content, tags, source="model", project=self.project)

    def find_memos(self, tags: list[str], limit: int = 20) -> list[Memo]:
        return self.memos.find(tags, limit=limit)

    def list_skills(self) -> list[Skill]:
        return self.store.catalog.skills()

    def set_skill_active(self, session_id: str, name: str, active: bool) -> None:
        if self.store.catalog.skill(name) is None:
            raise KeyError(name)
        current = list(self.store.sessions.get(session_id).active_skills)
        if active and name not in current:
            current.append(name)
            self.store.catalog.count_activation(name)
        if not active and name in current:
            current.remove(name)
        self.store.sessions.set_active_skills(session_id, current)

    def query_readonly(self, sql: str, max_rows: int, max_chars: int) -> str:
        return run_readonly_query(
            self.store.path, sql, max_rows=max_rows, max_chars=max_chars, memo_path=self.memos.path
        )

    def describe(self) -> str:
        return describe_schema(self.store.path, memo_path=self.memos.path)

    def search_history(self, session_id: str, query: str, limit: int) -> list[SearchHit]:
        terms = informative_terms(query)
        if not terms:
            raise ValueError(f"{query!r} has no words to search for (stop words and filler are ignored)")
        return self.store.search.messages(session_id, fts_query(terms), limit)

    def recover_context(self, session_id: str, query: str, limit: int) -> list[RecoveredItem]:
        found = recover(self.store.history, session_id, query, limit)
        return [RecoveredItem(r.group_id, r.overlap, r.prompt_at_drop, r.preview) for r in found]


@dataclass
class ToolRunnerImpl:
    store: Store
    memos: Memos
    registry: ToolRegistry
    root: Path
    approver: Approver | None
    allowed_paths: tuple[Path, ...] = ()
    shell_timeout: float = 120.0
    max_workers: int = 4
    secrets: tuple[str, ...] = ()
    read_only: bool = False
    pass_env: tuple[str, ...] = ()
    on_file_read: Callable[[str, str], None] | None = None  # (session, path)
    output_cap: int = 1 << 20

    def _file_read_hook(self, session_id: str) -> Callable[[str], None] | None:
        hook = self.on_file_read
        if hook is None:
            return None
        return lambda path: hook(session_id, path)

    def run(
        self, calls: Sequence[ToolCall], session_id: str, group_id: str, cancel: threading.Event, sink: EventSink
    ) -> list[ToolResult]:
        ctx = ToolContext(
            root=self.root,
            session_id=session_id,
            store=SessionToolStore(self.store, self.memos, group_id, str(self.root)),
            cancel=cancel,
            allowed_paths=self.allowed_paths,
            shell_timeout=self.shell_timeout,
            output_cap=self.output_cap,
            secrets=self.secrets,
            read_only=self.read_only,
            pass_env=self.pass_env,
            on_file_read=self._file_read_hook(session_id),
        )

        files = TurnFiles(self.store.checkpoints, session_id, group_id, ctx, ledger=self.store.path)  # for /undo
        started: set[int] = set()

        def start(call: ToolCall) -> None:
            started.add(id(call))
            try:
                files.before(call)
            finally:  # a failed checkpoint is logged by dispatch; the progress line still shows
                sink.tool_call_start(call.name, call.arguments)

        def done(call: ToolCall, result: ToolResult) -> None:
            try:
                if id(call) in started:
                    files.after(call)
            finally:
                if id(call) not in started:  # decided before running (unknown, invalid, refused): still a call
                    sink.tool_call_start(call.name, call.arguments)
                _report_done(sink, call, result)

        disabled = self.store.catalog.disabled_tools()
        return dispatch(
            calls,
            self.registry.with_disabled(disabled) if disabled else self.registry,
            ctx,
            self.approver,
            max_workers=self.max_workers,
            on_start=start,
            on_done=done,
            on_output=_live_output(sink),
        )


def _report_done(sink: EventSink, call: ToolCall, result: ToolResult) -> None:
    summary = summarize(call.name, result.content, result.status)
    sink.tool_call_done(call.name, call.arguments, result.status, result.duration, summary)


@runtime_checkable
class ToolProgressSink(Protocol):
    """A sink that also shows a running call's output as it arrives (the terminal)."""

    def tool_output(self, name: str, args_json: str, text: str) -> None: ...


def _live_output(sink: EventSink) -> Callable[[ToolCall, str], None] | None:
    if not isinstance(sink, ToolProgressSink):
        return None
    return lambda call, text: sink.tool_output(call.name, call.arguments, text)
