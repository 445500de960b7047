"""Three-tier truncation of tool results at assembly time (the ledger keeps the full text)."""

from __future__ import annotations

from dataclasses import dataclass

HINT = '\n\n... [TRUNCATED. Use query_db(sql="SELECT content FROM messages WHERE id={id}") to see full output] ...\n\n'
HEAD_SHARE = 0.2  # most of the signal of a command's output is at its end (errors, summaries)


@dataclass(frozen=True, slots=True)
class TruncationConfig:
    """Character limits for tool results; all configurable."""

    full_limit: int = 5000  # the most recent results of the active group
    full_count: int = 5
    degraded_limit: int = 1000  # older results of the active group
    inactive_limit: int = 300  # results of every finished group


def sandwich(content: str, limit: int, message_id: int) -> str:
    """Keep head and tail around the query_db hint; unchanged when it fits.

    Works on characters (Python str), so a multi-byte character is never split."""
    if len(content) <= limit:
        return content
    hint = HINT.format(id=message_id)
    if limit <= len(hint) + 10:
        return content[: max(0, limit - 3)] + "..." + hint.strip("\n")
    available = limit - len(hint)
    head = max(1, int(available * HEAD_SHARE))
    tail = available - head
    return content[:head] + hint + content[len(content) - tail :]


def limit_for(position_from_end: int, in_active_group: bool, config: TruncationConfig) -> int:
    """The limit of a tool result: `position_from_end` counts the active group's
    results from the newest (0 = newest)."""
    if not in_active_group:
        return config.inactive_limit
    return config.full_limit if position_from_end < config.full_count else config.degraded_limit
