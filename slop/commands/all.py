"""Every slash command, assembled into the registry."""

from __future__ import annotations

from slop.commands import context, core, init, inspect, mcp, memo, model, review, session, skill, terminal
from slop.commands.base import Registry


def build_registry() -> Registry:
    ref: list[Registry] = []
    registry = Registry(
        [
            core.make_help(ref),
            core.EXIT,
            *context.COMMANDS,
            *session.COMMANDS,
            *memo.COMMANDS,
            *skill.COMMANDS,
            *review.COMMANDS,
            *init.COMMANDS,
            *inspect.COMMANDS,
            *mcp.COMMANDS,
            *model.COMMANDS,
            *terminal.COMMANDS,
        ]
    )
    ref.append(registry)
    return registry
