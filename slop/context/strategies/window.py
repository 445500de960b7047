"""`window`, the default: the sequential rolling window of the last N groups."""

from __future__ import annotations

from slop.context.options import WINDOW_STEP, option
from slop.context.strategies.base import ContextStrategy, HistorySource, Selection
from slop.records import SessionInfo


class WindowStrategy(ContextStrategy):
    """The last N groups in order (0 = full history); `window_step` > 1 slides several at
    once so the request's prefix stays put, and cacheable, for several turns."""

    name = "window"
    help = "the last N groups in order (/context window N), the default"
    windowed = True
    kept_because = "in the window"

    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection:
        n = session.context_size
        step = int(option(session, WINDOW_STEP))
        if n > 0 and step > 1:
            keep = stepped_window(len(source.last_group_ids(session.name, 0)), n, step)
            messages = tuple(source.window(session.name, keep))
            label = f"last {keep} group(s) (window {n}, sliding {step} at a time)"
        else:
            messages = tuple(source.window(session.name, n))
            label = "full history" if n <= 0 else f"last {n} group(s)"
        return Selection(messages, (f"Strategy window: {label}.",))


def stepped_window(groups: int, n: int, step: int) -> int:
    """How many of the newest `groups` a window of `n` sliding `step` groups at a time
    keeps: between n - step + 1 and n, so its first group stays put for `step` turns."""
    if groups <= n:
        return groups
    skip = -(-(groups - n) // step) * step
    return max(1, groups - skip)
