"""Three-tier truncation of tool results at assembly time (the ledger keeps the full text)."""

from __future__ import annotations

from dataclasses import dataclass

# Where the text was cut, and the query that pages the stored row from the first
# character not shown (a 4,000-character page fits query_db's 4,600-character output).
PAGE = 4000


def page_hint(start: object, end: object, length: object, message_id: object) -> str:
    """The hint at a cut (an f-string: assembly cuts every old result, 3x faster than
    str.format)."""
    return (
        f"\n\n... [TRUNCATED: characters {start}-{end} of {length} not shown; page: "
        f'query_db(sql="SELECT substr(content, {start}, {PAGE}) FROM messages WHERE id={message_id}"), '
        f"then {start}+{PAGE}] ...\n\n"
    )


HINT = page_hint("{start}", "{end}", "{length}", "{id}")  # the same text as a template


HEAD_SHARE = 0.2  # most of the signal of a command's output is at its end (errors, summaries)


@dataclass(frozen=True, slots=True)
class TruncationConfig:
    """Character limits for tool results; all configurable."""

    full_limit: int = 5000  # the most recent results of the active group
    full_count: int = 5
    degraded_limit: int = 1000  # older results of the active group
    inactive_limit: int = 300  # results of every finished group
    attachment_limit: int = 20_000  # a user message carrying @path attachments


def sandwich(content: str, limit: int, message_id: int) -> str:
    """Keep head and tail around the query_db hint; unchanged when it fits.

    Works on characters (Python str), so a multi-byte character is never split."""
    if len(content) <= limit:
        return content
    n = len(content)
    widest = page_hint(n, n, n, message_id)  # the hint's length bounds its numbers'
    if limit <= len(widest) + 10:
        head = max(0, limit - 3)
        return content[:head] + "..." + page_hint(head + 1, n, n, message_id).strip("\n")
    available = limit - len(widest)
    head = max(1, int(available * HEAD_SHARE))
    tail = available - head
    hint = page_hint(head + 1, n - tail, n, message_id)
    for _ in range(3):  # give the tail what the real numbers leave over (their digits vary)
        slack = limit - head - len(hint) - tail
        if slack == 0:
            break
        tail += slack
        hint = page_hint(head + 1, n - tail, n, message_id)
    return content[:head] + hint + content[n - tail :]


def limit_for(position_from_end: int, in_active_group: bool, config: TruncationConfig) -> int:
    """The limit of a tool result: `position_from_end` counts the active group's
    results from the newest (0 = newest)."""
    if not in_active_group:
        return config.inactive_limit
    return config.full_limit if position_from_end < config.full_count else config.degraded_limit
