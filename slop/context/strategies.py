"""Context strategies: which history goes into the window. One small interface.

A strategy reads the ledger through `HistorySource` (implemented by the store) and
returns a Selection; assembly then applies isolation, pair integrity, truncation
and the budget guard to whatever it chose, the same for every strategy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from slop.records import Message, SessionInfo


class HistorySource(Protocol):
    def window(self, session_id: str, n: int) -> list[Message]: ...


@dataclass(frozen=True, slots=True)
class Selection:
    messages: tuple[Message, ...]
    notes: tuple[str, ...] = ()  # shown by /context show: what was chosen and why
    layer: str = ""  # extra system text the strategy needs (e.g. "history has gaps")


class ContextStrategy(Protocol):
    name: str

    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection: ...


class WindowStrategy:
    """The sequential rolling window: the last N groups (0 = full history)."""

    name = "window"

    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection:
        n = session.context_size
        messages = tuple(source.window(session.name, n))
        label = "full history" if n <= 0 else f"last {n} group(s)"
        return Selection(messages, (f"Strategy window: {label}.",))


def builtin_strategies() -> dict[str, ContextStrategy]:
    return {"window": WindowStrategy()}
