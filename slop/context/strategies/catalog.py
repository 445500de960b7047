"""The built-in context strategies by name. A module of its own so that `base.py`,
which every strategy imports, never imports a strategy back."""

from __future__ import annotations

from slop.context.strategies.base import ContextStrategy
from slop.context.strategies.compact import CompactStrategy
from slop.context.strategies.messages import MessagesStrategy
from slop.context.strategies.ranked import RankedStrategy
from slop.context.strategies.relevance import RelevanceStrategy
from slop.context.strategies.window import WindowStrategy


def builtin_strategies() -> dict[str, ContextStrategy]:
    built: list[ContextStrategy] = [
        WindowStrategy(),
        MessagesStrategy(),
        RankedStrategy(),
        CompactStrategy(),
        RelevanceStrategy(),
    ]
    return {s.name: s for s in built}
