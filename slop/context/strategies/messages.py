"""`messages`: CheziousBot's sliding window of the last N messages (default 10).

* The window is counted in messages, not groups; a tool call and its results are never
  split (the window grows back to the call row instead).
* The current request (latest user message) is always kept, so a long tool loop never
  loses the task it is working on (an addition for an agent; the chatbot had no tools).
* Token overflow trimming: while the history exceeds the budget, the oldest messages go
  first (a call with its results as one unit); the system layers are outside the
  history and so are always kept.
* Maximum user-message length (default 500 characters, `/context set max_input_chars N`,
  0 = no limit): longer input is rejected with a clear message before anything is stored.
"""

from __future__ import annotations

from slop.context.costs import cost, marker_tokens
from slop.context.options import Option, option
from slop.context.selecting import current_group, pair_bundles, pair_safe_cut
from slop.context.strategies.base import ContextStrategy, HistorySource, Selection
from slop.records import Message, SessionInfo

_LOOKBACK = 64  # extra rows fetched so a cut can move back to its tool-call row

MESSAGES = Option("messages", 10, int, 1, 10_000, "messages", "how many recent messages the window holds")
MAX_INPUT_CHARS = Option(
    "max_input_chars",
    500,
    int,
    0,
    10_000_000,
    "messages",
    "longest user message accepted, in characters (0 = no limit)",
)


class MessagesStrategy(ContextStrategy):
    name = "messages"
    help = "the last N messages (/context set messages N), long inputs rejected"
    kept_because = "in the last messages"
    options = (MESSAGES, MAX_INPUT_CHARS)

    def validate_input(self, session: SessionInfo, text: str) -> str | None:
        limit = int(option(session, MAX_INPUT_CHARS))
        if limit and len(text) > limit:
            return (
                f"message not sent: it is {len(text):,} characters and the 'messages' context mode accepts at most "
                f"{limit:,}. Shorten it, raise the limit with /context set max_input_chars N (0 = no limit), "
                "or switch mode with /context mode window."
            )
        return None

    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection:
        n = int(option(session, MESSAGES))
        rows = source.recent_messages(session.name, n + _LOOKBACK)
        cut = pair_safe_cut(rows, len(rows) - n)
        window = rows[cut:]
        notes = [
            f"Strategy messages: last {n} message(s)"
            + (f", {len(window) - n} more to keep a tool call with its results" if len(window) > n else "")
            + "."
        ]
        latest = source.latest_user(session.name)
        if latest is not None and all(m.id != latest.id for m in window):
            window = [latest, *window]
            notes.append(f"The current request (message #{latest.id}) is older than the window and kept anyway.")
        window, trimmed = trim_to_budget(window, budget, keep_ids={latest.id} if latest else set())
        if trimmed:
            notes.append(f"Overflow trimming: left out the {trimmed} oldest message(s) to fit {budget} tokens.")
        limit = int(option(session, MAX_INPUT_CHARS))
        notes.append(f"Longest accepted user message: {f'{limit:,} characters' if limit else 'no limit'}.")
        return Selection(tuple(window), tuple(notes))


def trim_to_budget(rows: list[Message], budget: int, keep_ids: set[int]) -> tuple[list[Message], int]:
    """Drop the oldest units (a tool call with its results is one) until the history fits;
    never the last unit nor a message in `keep_ids`. Returns (rows, how many left out)."""
    if budget <= 0 or not rows:
        return rows, 0
    active = current_group(rows)
    total = sum(cost(m, active=m.group_id == active) for m in rows) + marker_tokens()
    bundles = pair_bundles(rows)
    dropped = 0
    kept: list[list[Message]] = []
    for i, bundle in enumerate(bundles):
        last = i == len(bundles) - 1
        if total > budget and not last and not any(m.id in keep_ids for m in bundle):
            total -= sum(cost(m, active=m.group_id == active) for m in bundle)
            dropped += len(bundle)
            continue
        kept.append(bundle)
    return [m for b in kept for m in b], dropped
