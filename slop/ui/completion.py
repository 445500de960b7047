"""Tab completion generated from the command registry: commands, sub-commands, and
whatever a command's completer offers (GIDs, sessions, skills, models); paths after `@`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from slop.commands.base import CommandContext, Registry
from slop.commands.mentions import complete_mention


class CommandCompleter(Completer):
    def __init__(self, registry: Registry, ctx: CommandContext) -> None:
        self.registry = registry
        self.ctx = ctx

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        word = text.rsplit(None, 1)[-1] if text.strip() and not text[-1].isspace() else ""
        if word.startswith("@") and not text.startswith("/"):
            yield from self._paths(word[1:])
            return
        if not text.startswith("/") or "\n" in text:
            return
        if " " not in text:
            for name in self.registry.names():
                if name.startswith(text):
                    command = self.registry.find(name)
                    yield Completion(name, -len(text), display_meta=command.help if command else "")
            return
        name, _, rest = text.partition(" ")
        command = self.registry.find(name)
        if command is None:
            return
        words = rest.split(" ")
        current = words[-1]
        if command.complete is None:
            return
        try:  # sub-commands and their arguments: the completer `commands.base.grouped` wrote
            options = command.complete(self.ctx, words)
        except Exception:  # a busy ledger must not break typing
            return
        for option in options:
            if option.startswith(current):
                yield Completion(option, -len(current))

    def _paths(self, partial: str) -> Iterable[Completion]:
        """`@path` mentions: files and folders, from the project root."""
        allowed = tuple(Path(p) for p in self.ctx.settings.allow_paths)
        for option in complete_mention(self.ctx.root, allowed, partial):
            yield Completion(option, -len(partial))


class LazyCompleter(Completer):
    """Completes once the command registry exists (it is built after the first prompt)."""

    def __init__(self, source: Callable[[], tuple[Registry, CommandContext] | None]) -> None:
        self._source = source
        self._inner: CommandCompleter | None = None

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        if self._inner is None:
            ready = self._source()
            if ready is None:
                return
            self._inner = CommandCompleter(*ready)
        yield from self._inner.get_completions(document, complete_event)
