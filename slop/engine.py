"""One input line -> a slash command or a model turn. Shared by the REPL and batch mode."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from slop.commands.base import CommandContext, Proceed, Registry
from slop.errors import CommandError, SlopError
from slop.orchestrator import TurnResult


@dataclass
class Outcome:
    kind: str  # empty | command | turn | exit
    ok: bool = True
    turn: TurnResult | None = None
    error: str = ""
    usage_error: bool = False  # a command used wrongly (batch mode exits 2)


class Engine:
    def __init__(self, registry: Registry, ctx: CommandContext, before_turn: Callable[[], None] | None = None) -> None:
        self.registry = registry
        self.ctx = ctx
        self.before_turn = before_turn  # e.g. wait for MCP servers still starting

    def handle(self, line: str) -> Outcome:
        text = line.strip()
        if not text:
            return Outcome("empty")
        if text.startswith("/"):
            return self._command(text)
        return self._turn(line.rstrip())  # trailing blanks carry nothing; /context show TEXT drops them too

    def _command(self, text: str) -> Outcome:
        try:
            result = self.registry.dispatch(self.ctx, text)
        except CommandError as exc:
            self.ctx.io.error(str(exc))
            return Outcome("command", ok=False, error=str(exc), usage_error=True)
        except SlopError as exc:
            self.ctx.io.error(str(exc))
            return Outcome("command", ok=False, error=str(exc))
        if self.ctx.exit_requested:
            return Outcome("exit")
        if isinstance(result, Proceed):
            return self._turn(result.text)
        return Outcome("command")

    def _turn(self, text: str) -> Outcome:
        self.ctx.last_input = text
        self.ctx.cancel.clear()
        if self.before_turn is not None:
            self.before_turn()
        try:
            result = self.ctx.orchestrator.run_turn(self.ctx.session, text, self.ctx.sink, self.ctx.cancel)
        except SlopError as exc:
            self.ctx.io.error(str(exc))
            return Outcome("turn", ok=False, error=str(exc))
        # A turn the user interrupted is not a failure; one cut short by an error is.
        ok = result.ok or (result.interrupted and not result.error)
        return Outcome("turn", ok=ok, turn=result, error=result.error)
