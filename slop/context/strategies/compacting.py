"""What the compacting strategies (compact, relevance) share: a share of the budget that
triggers them, and an edit that is kept only when it shrinks the prompt.

`shrink` runs a strategy's edit in one transaction, measures the prompt again and rolls
the edit back when it did not get smaller, so a compaction never makes the context
worse and never leaves half of itself behind."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from slop.context.strategies.base import ContextStrategy, HistoryEditor, Maintenance, Upkeep
from slop.records import SessionInfo


@dataclass(frozen=True, slots=True)
class Shrunk:
    """The outcome of one edit: the prompt's size before and after, and whether it was kept."""

    before: int
    after: int
    kept: bool

    def report(self, what: str) -> str:
        return f"{what} would not shrink the prompt ({self.before:,} -> {self.after:,} tokens); nothing changed"


class CompactingStrategy(ContextStrategy):
    compacts = True
    skipped_event = "compact-skipped"  # the context log's name for a pass that changed nothing

    @abstractmethod
    def trigger(self, session: SessionInfo) -> float:
        """The share of the budget at which the strategy starts compacting."""

    def due(self, upkeep: Upkeep, used: int) -> bool:
        """Whether a prompt of `used` tokens calls for a pass (always, when forced)."""
        return upkeep.force or used >= self.trigger(upkeep.session) * upkeep.budget

    def skipped(self, history: HistoryEditor, sid: str, used: int, message: str) -> Maintenance:
        """A pass that changed nothing: logged, and the reason shown to the user."""
        history.log(sid, self.skipped_event, message, tokens_before=used)
        return Maintenance(False, (message,))


def shrink(upkeep: Upkeep, used: int, write: Callable[[], int], log: Callable[[int], None]) -> Shrunk:
    """Run `write` (the edit; it returns the summary row it added, or 0) in one
    transaction and keep it only when the prompt shrank: then the summary records the
    prompt's size after it, and `log(after)` writes the pass to the context log."""
    history = upkeep.history
    with history.edit() as edit:
        summary_id = write()
        after = upkeep.measure()
        if after >= used:
            edit.rollback()
        else:
            if summary_id:
                history.set_compaction_tokens(summary_id, after)
            log(after)
    return Shrunk(used, after, not edit.rolled_back)
