"""The declarative slash-command registry. Handlers talk through CommandIO, never to the terminal."""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from slop.commands.conversation import Conversation
from slop.commands.meanings import meant
from slop.errors import CommandError

if TYPE_CHECKING:
    from slop.mcptools.manager import McpManager
    from slop.orchestrator import EventSink, Orchestrator
    from slop.providers.registry import ProviderManager
    from slop.settings import Settings
    from slop.store import Store
    from slop.store.memos import Memos


class CommandIO(Protocol):
    """Output and interaction for command handlers (the renderer, or a recording fake)."""

    def info(self, text: str) -> None: ...
    def success(self, text: str) -> None: ...
    def warning(self, text: str) -> None: ...
    def error(self, text: str) -> None: ...
    def markdown(self, text: str) -> None: ...
    def plain(self, text: str) -> None: ...
    def table(self, title: str | None, columns: list[str], rows: list[list[str]]) -> None: ...
    def edit(self, text: str, suffix: str = ".md") -> str | None:
        """Open $VISUAL/$EDITOR on `text`; None when the editor failed or was cancelled."""
        ...

    def view(self, text: str, suffix: str = ".txt") -> None:
        """Show long text: inline when it fits the terminal, else a read-only editor or pager."""
        ...

    def confirm(self, question: str) -> bool: ...

    def data(self, value: Any) -> None:
        """A machine-readable result (e.g. a request body): as JSON, exactly and alone on
        stdout in text mode, in a `request` event in the JSON output formats."""
        ...

    def screen_height(self) -> int:
        """Lines the screen shows; 0 when there is no screen (a pipe, batch mode)."""
        ...

    def screen_width(self) -> int:
        """Columns of the screen; 0 when there is no screen."""
        ...

    def page(self, text: str, suffix: str = ".txt") -> str:
        """Open `text` in a read-only $EDITOR copy or a pager and say which ("" when it
        was printed inline because there is no terminal)."""
        ...


@dataclass(frozen=True, slots=True)
class CommandContext:
    """What handlers reach: the application's parts, fixed once it is built; where output
    goes (`io`, and `sink` for model calls a command makes); the cancel event of the
    running input; and the one mutable part, the `conversation` (current session, last
    input, waiting `!!` outputs, listed model names). `root` is the project root (git top
    level or the start directory), the cwd of /exec and /review."""

    store: Store
    memos: Memos
    orchestrator: Orchestrator
    providers: ProviderManager
    settings: Settings
    io: CommandIO
    sink: EventSink
    root: Path
    conversation: Conversation = field(default_factory=Conversation)
    cancel: threading.Event = field(default_factory=threading.Event)
    mcp: McpManager | None = None  # the session's MCP servers (None: none configured)

    @property
    def session(self) -> str:
        """The current session's name (`conversation.session`; /session switches it)."""
        return self.conversation.session


@dataclass(frozen=True, slots=True)
class Proceed:
    """A handler's rewritten input, to be sent to the model as a user message."""

    text: str


@dataclass(frozen=True, slots=True)
class Exit:
    """A handler's answer meaning: leave slop (/exit)."""


Handler = Callable[[CommandContext, str], Proceed | Exit | None]
Completer = Callable[[CommandContext, list[str]], list[str]]


@dataclass(frozen=True, slots=True)
class Sub:
    """One sub-command, `/COMMAND NAME ARGS`. `args` is its usage after the name ("GID",
    "[N]", "" for none); `complete` offers the words after the name."""

    name: str
    args: str
    help: str  # one line
    handler: Callable[[CommandContext, str], Proceed | None]
    aliases: tuple[str, ...] = ()
    complete: Completer | None = None

    def usage(self, command: str) -> str:
        return " ".join(part for part in (command, self.name, self.args) if part)


@dataclass(frozen=True, slots=True)
class Command:
    name: str  # with the slash: "/context"
    help: str  # one line
    usage: str
    category: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    subs: tuple[Sub, ...] = ()  # made by `grouped`, which also writes handler, usage and complete
    complete: Completer | None = None

    @property
    def subcommands(self) -> tuple[str, ...]:
        """Every word a sub-command may be called by, aliases included."""
        return tuple(word for sub in self.subs for word in (sub.name, *sub.aliases))

    def sub(self, word: str) -> Sub | None:
        return next((sub for sub in self.subs if word == sub.name or word in sub.aliases), None)


def grouped(
    name: str,
    help: str,
    category: str,
    subs: Sequence[Sub],
    *,
    aliases: tuple[str, ...] = (),
    default: str = "",
    usage: str = "",
) -> Command:
    """A command made of sub-commands: `/NAME SUB ARGS` runs SUB's handler with ARGS.
    Its usage line, Tab completion and help pages are all written from `subs`; `default`
    is the sub-command run when none is given (without one, that is a usage error)."""
    line = usage or f"{name} " + "|".join(" ".join(filter(None, (s.name, s.args))) for s in subs)
    command: Command

    def run(ctx: CommandContext, args: str) -> Proceed | None:
        word, rest = split_sub(args)
        sub = command.sub(word or default)
        if sub is None:
            raise usage_error(line, f"unknown {name} sub-command {word!r}" if word else "missing sub-command")
        return sub.handler(ctx, rest)

    def complete(ctx: CommandContext, words: list[str]) -> list[str]:
        if len(words) <= 1:
            return [sub.name for sub in subs]
        sub = command.sub(words[0])
        return sub.complete(ctx, words[1:]) if sub is not None and sub.complete is not None else []

    command = Command(name, help, line, category, run, aliases, tuple(subs), complete)
    return command


def first_word(options: Callable[[CommandContext], list[str]]) -> Completer:
    """A sub-command completer offering `options` for its first argument only."""
    return lambda ctx, words: options(ctx) if len(words) <= 1 else []


def every_word(options: Callable[[CommandContext], list[str]]) -> Completer:
    """A sub-command completer offering `options` for each of its arguments (GIDs, skills)."""
    return lambda ctx, words: options(ctx)


CATEGORIES = ("Core", "Session & Memory", "Context & History", "Model & Configuration", "Agent Capabilities")


class Registry:
    def __init__(self, commands: Sequence[Command] = ()) -> None:
        self._by_name: dict[str, Command] = {}
        self._order: list[Command] = []
        for command in commands:
            self.add(command)

    def add(self, command: Command) -> None:
        for key in (command.name, *command.aliases):
            if key in self._by_name:
                raise ValueError(f"command {key} registered twice")
            self._by_name[key] = command
        self._order.append(command)

    def commands(self) -> list[Command]:
        return list(self._order)

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def find(self, name: str) -> Command | None:
        return self._by_name.get(name)

    def dispatch(self, ctx: CommandContext, line: str) -> Proceed | Exit | None:
        """Run a slash command line. Unknown commands raise CommandError with a suggestion."""
        name, _, args = line.strip().partition(" ")
        command = self.find(name)
        if command is None:
            close = difflib.get_close_matches(name, self.names(), n=3, cutoff=0.5)
            prefix = [n for n in self.names() if n.startswith(name)] if len(name) > 1 else []
            by_meaning = meant(name, self.names())  # what other agents call it comes first
            hints = by_meaning or list(dict.fromkeys(prefix[:3] + close))
            tip = f"; did you mean {' or '.join(hints)}?" if hints else "; /help lists the commands"
            raise CommandError(f"unknown command {name}{tip}")
        return command.handler(ctx, args.strip())


def split_sub(args: str) -> tuple[str, str]:
    sub, _, rest = args.strip().partition(" ")
    return sub, rest.strip()


def usage_error(command_usage: str, message: str = "") -> CommandError:
    return CommandError(message or "wrong arguments", usage=command_usage)


# No count, window, budget or id slop takes comes near this; SQLite stores 64-bit integers
# and Python ints beyond it fail deep inside a query instead of at the user's typo.
LARGEST_NUMBER = 1_000_000_000


def parse_int(text: str, what: str, usage: str, *, largest: int = LARGEST_NUMBER) -> int:
    """A whole number from a command argument, at most `largest` in size (negative
    numbers pass: each command says what its own lower bound means)."""
    try:
        value = int(text)
    except ValueError:
        raise CommandError(f"{what} must be a whole number, got {shown(text)}", usage=usage) from None
    if abs(value) > largest:
        raise CommandError(f"{what} is out of range: {shown(text)} (at most {largest:,})", usage=usage)
    return value


def shown(text: str, limit: int = 40) -> str:
    """A user's argument quoted for an error line: one line, clipped."""
    quoted = repr(text)
    return quoted if len(quoted) <= limit else quoted[: limit - 4] + "…" + quoted[-3:]
