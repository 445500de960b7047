"""One input line -> a slash command or a model turn. Shared by the REPL and batch mode."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from slop.commands.bang import is_bang, restore_pending, run_bang, take_pending, with_outputs
from slop.commands.base import CommandContext, Exit, Proceed, Registry
from slop.commands.mentions import attach_mentions
from slop.commands.paste import question_before_sending
from slop.debuglog import one_line, write_crash_log
from slop.errors import CommandError, SlopError
from slop.textsafe import scrub, single_line
from slop.turnend import TurnResult


@dataclass
class Outcome:
    kind: str  # empty | command | turn | exit
    ok: bool = True
    turn: TurnResult | None = None
    error: str = ""
    usage_error: bool = False  # a command used wrongly (batch mode exits 2)
    internal: bool = False  # a bug in slop, caught by the last-resort handler (debug log written)


class Engine:
    def __init__(
        self,
        registry: Registry,
        ctx: CommandContext,
        home: Path | None = None,
        before_turn: Callable[[], None] | None = None,
    ) -> None:
        self.registry = registry
        self.ctx = ctx
        self.home = home  # $SLOP_HOME: debug logs go to its logs/ directory
        self.before_turn = before_turn  # e.g. wait for MCP servers still starting

    def handle(self, line: str) -> Outcome:
        """Never raises for an Exception: whatever a model, a server or a bug in slop
        throws ends as one error line (traceback in the debug log) and the REPL stays
        at its prompt, batch mode prints its final line."""
        try:
            return self._handle(line)
        except Exception as exc:
            return self.internal_error(exc, line)

    def internal_error(self, exc: BaseException, line: str) -> Outcome:
        what = "a slash command" if line.strip().startswith("/") else "a model turn"
        path = write_crash_log(self.home, exc, f"{what}: {line[:200]!r}") if self.home else None
        message = one_line(exc, path)
        try:
            self.ctx.io.error(message)
        except Exception:  # the output itself failed (it may be the bug): plain stderr still works
            print(f"slop: {message}", file=sys.stderr)
        kind = "command" if line.strip().startswith("/") else "turn"
        return Outcome(kind, ok=False, error=message, internal=True)

    def _handle(self, line: str) -> Outcome:
        # Terminals and argv decode invalid UTF-8 as lone surrogates (surrogateescape);
        # they could not be stored, printed or sent, so they become U+FFFD here, once.
        line = scrub(line)
        text = line.strip()
        if not text:
            return Outcome("empty")
        if text.startswith("/"):
            return self._command(text)
        if is_bang(text):
            return self._bang(text)
        return self._turn(line.rstrip())  # trailing blanks carry nothing; /context show TEXT drops them too

    def _command(self, text: str) -> Outcome:
        try:
            result = self.registry.dispatch(self.ctx, text)
        except CommandError as exc:
            message = single_line(str(exc))
            self.ctx.io.error(message)
            return Outcome("command", ok=False, error=message, usage_error=True)
        except SlopError as exc:
            message = single_line(str(exc))
            self.ctx.io.error(message)
            return Outcome("command", ok=False, error=message)
        if isinstance(result, Exit):
            return Outcome("exit")
        if isinstance(result, Proceed):
            return self._turn(result.text)
        return Outcome("command")

    def _bang(self, text: str) -> Outcome:
        try:
            run_bang(self.ctx, text)
        except SlopError as exc:
            message = single_line(str(exc))
            self.ctx.io.error(message)
            return Outcome("command", ok=False, error=message, usage_error=isinstance(exc, CommandError))
        return Outcome("command")

    def _turn(self, text: str) -> Outcome:
        self.ctx.conversation.last_input = text
        try:
            text, files = attach_mentions(self.ctx, text)
        except CommandError as exc:
            message = single_line(str(exc))
            self.ctx.io.error(message)
            return Outcome("turn", ok=False, error=message, usage_error=True)
        count = self.ctx.orchestrator.context.count
        for file in files:
            self.ctx.io.info(f"attached {file.path} ({file.kind}, {count(file.block()):,} tokens)")
        attached = take_pending(self.ctx)  # `!!command` outputs go in front of the message
        if attached:
            text = with_outputs(attached, text)
        question = question_before_sending(self.ctx, text) if self.ctx.io.screen_height() > 0 else None
        if question and not self.ctx.io.confirm(question):
            restore_pending(self.ctx, attached)
            self.ctx.io.info("message not sent")
            return Outcome("turn", ok=False, error="not sent")
        self.ctx.cancel.clear()
        if self.before_turn is not None:
            self.before_turn()
        try:
            result = self.ctx.orchestrator.run_turn(self.ctx.session, text, self.ctx.sink, self.ctx.cancel)
        except SlopError as exc:
            restore_pending(self.ctx, attached)  # nothing was stored (e.g. the session is busy)
            message = single_line(str(exc))
            self.ctx.io.error(message)
            return Outcome("turn", ok=False, error=message)
        if result.group_id is None:
            restore_pending(self.ctx, attached)
        # A turn the user interrupted is not a failure; one cut short by an error is.
        ok = result.ok or (result.interrupted and not result.error)
        return Outcome("turn", ok=ok, turn=result, error=result.error)
