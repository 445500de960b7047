"""A very long message (a paste, big @path attachments) asks before it is sent: it would
take a large share of the prompt budget on every call while it stays in the window."""

from __future__ import annotations

from slop.commands.base import CommandContext
from slop.context.budget import prompt_budget


def oversize_question(ctx: CommandContext, text: str) -> str | None:
    """The question to ask when `text` exceeds the configured share of the budget, else None."""
    share = ctx.settings.paste_warn_share
    if share <= 0:
        return None
    provider = ctx.providers.current()
    session = ctx.store.sessions.get(ctx.session)
    budget = prompt_budget(provider.model if provider else "", session.budget)
    if budget <= 0:
        return None
    tokens = ctx.orchestrator.context.count(text)
    if tokens <= share * budget:
        return None
    return (
        f"This message is {tokens:,} tokens, {tokens / budget:.0%} of the {budget:,}-token prompt budget "
        f"(warning above {share:.0%}, SLOP_PASTE_WARN_SHARE). Send it?"
    )
