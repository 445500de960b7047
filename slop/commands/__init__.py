"""Slash commands: a declarative registry; handlers use CommandIO, never the terminal."""

from __future__ import annotations

from slop.commands import context, core, inspect, memo, model, review, session, skill
from slop.commands.base import Command, CommandContext, CommandIO, Proceed, Registry

__all__ = ["Command", "CommandContext", "CommandIO", "Proceed", "Registry", "build_registry"]


def build_registry() -> Registry:
    ref: list[Registry] = []
    registry = Registry([
        core.make_help(ref), core.EXIT, *context.COMMANDS,
        *session.COMMANDS, *memo.COMMANDS, *skill.COMMANDS, *review.COMMANDS, *inspect.COMMANDS,
        *model.COMMANDS,
    ])
    ref.append(registry)
    return registry
