"""Slash commands: a declarative registry; handlers use CommandIO, never the terminal.

The package itself stays light (the prompt's completer imports `commands.base` before
the first prompt is drawn); `build_registry` loads every command module on first use."""

from __future__ import annotations

from typing import Any

from slop.commands.base import Command, CommandContext, CommandIO, Proceed, Registry

__all__ = ["Command", "CommandContext", "CommandIO", "Proceed", "Registry", "build_registry"]


def __getattr__(name: str) -> Any:
    if name == "build_registry":
        from slop.commands.all import build_registry

        return build_registry
    raise AttributeError(f"module 'slop.commands' has no attribute {name!r}")
