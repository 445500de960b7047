"""Token arithmetic of assembly, in one place: what the history markers cost, what a
tool result costs once truncation has cut it, and what a row costs as stored.

Strategies choose rows with these figures before assembly runs, and assembly charges
the same figures while it builds the request, so a choice that fits the budget also
fits once assembled. Exact counts (the tokenizer) are used where the text is known;
the chars/4 estimate (slop.tokenestimate) where it is not yet."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from slop.context.truncate import TruncationConfig, page_hint
from slop.records import Message, Role
from slop.tokenestimate import estimate

BEGIN_MARKER = "## Begin Conversation History\n"
CURRENT_MARKER = "## End of History\n\n### CURRENT REQUEST\n"

# The cut-point hint at its widest (7-digit positions and id): a truncated result never
# costs more than its kept share plus this.
HINT_TOKENS = estimate(page_hint(100_000, 1_000_000, 1_000_000, 1_000_000))


_DEFAULT_LIMITS = TruncationConfig()  # one instance: cost() runs for every row a strategy weighs


def marker_tokens(count: Callable[[str], int] = estimate) -> int:
    """Tokens of both history markers: what assembly adds besides the rows themselves."""
    return count(BEGIN_MARKER) + count(CURRENT_MARKER)


def own_tokens(msg: Message) -> int:
    """A row's tokens as stored (exact once the tokenizer counted it), else the estimate."""
    return msg.content_tokens or estimate(msg.content)


def kept_tokens(own: int, kept_chars: int, all_chars: int) -> int:
    """Tokens of the `kept_chars` of a text that keeps `own` tokens in `all_chars`: the
    row's own count scaled by the share of it that remains (at least 1)."""
    return max(1, round(own * kept_chars / max(1, all_chars)))


def cost(msg: Message, *, active: bool, config: TruncationConfig | None = None) -> int:
    """Tokens `msg` will take once assembled: tool results of finished groups are cut to
    the inactive limit, those of the active group to at most the full limit."""
    own = own_tokens(msg)
    if msg.role != Role.TOOL:
        return own
    config = config or _DEFAULT_LIMITS
    limit = config.full_limit if active else config.inactive_limit
    if len(msg.content) <= limit:
        return own
    return min(own, kept_tokens(own, limit, len(msg.content)) + HINT_TOKENS)


def group_cost(messages: Iterable[Message], *, active: bool) -> int:
    return sum(cost(m, active=active) for m in messages)
