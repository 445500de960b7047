"""Batch mode: one input, printed result, exit code."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from slop.app import App, build
from slop.approval import ApprovalPolicy
from slop.batch import JsonEvents
from slop.debuglog import one_line, write_crash_log
from slop.engine import Outcome
from slop.errors import SlopError, Terminated
from slop.settings import Settings, user_home
from slop.ui.signals import ExitSignals

if TYPE_CHECKING:
    from slop.ui.terminal_io import TerminalIO

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def run_batch(settings: Settings) -> int:
    """SIGTERM / SIGHUP cancel the running turn like Esc (its partial reply is kept) and
    the run ends with exit code 128 + the signal's number."""
    with ExitSignals() as signals:
        try:
            return _run(settings, signals)
        except Terminated:
            return signals.exit_code


def _run(settings: Settings, signals: ExitSignals) -> int:
    if settings.output_format in ("json", "jsonl"):
        return _run_json(settings, signals)
    from slop.ui.terminal_io import TerminalIO

    io = TerminalIO.for_stream(sys.stdout, no_color=settings.no_color, interactive=False)
    io.verbosity = settings.verbosity  # --prompt shows tool output like the REPL would
    # under --yes the file changes are still shown, as diffs (commands show on their tool line)
    policy = ApprovalPolicy(
        settings.approval,
        None,
        io.warning,
        show=lambda call, diff: _show(io, call.name, diff),
        per_tool=settings.config.tool_approvals(),
    )
    try:
        app = build(settings, io, io.renderer, policy)
    except SlopError:
        raise  # the CLI prints it as one line
    except Exception as exc:
        print(f"slop: {_internal(settings, exc)}", file=sys.stderr)
        return EXIT_ERROR
    try:
        outcome = _handle(app, settings, signals)
    finally:
        app.close()
    return signals.exit_code or exit_code(outcome)


def _run_json(settings: Settings, signals: ExitSignals) -> int:
    """Every run ends with its `done` line, whatever failed before it."""
    events = JsonEvents(settings.output_format)
    app: App | None = None
    try:
        app = build(
            settings,
            events,
            events,
            ApprovalPolicy(settings.approval, None, events.warning, per_tool=settings.config.tool_approvals()),
        )
        outcome = _handle(app, settings, signals)
    except Terminated:
        raise
    except SlopError as exc:  # the ledger or the configuration could not be opened
        events.error(str(exc))
        outcome = Outcome("command", ok=False, error=str(exc))
    except Exception as exc:
        message = _internal(settings, exc)
        events.error(message)
        outcome = Outcome("command", ok=False, error=message, internal=True)
    session = app.ctx.session if app else settings.session
    group = outcome.turn.group_id if outcome.turn else None
    events.finish(outcome.ok, session=session, group_id=group, error=outcome.error or None)
    if app is not None:
        app.close()
    return signals.exit_code or exit_code(outcome)


def _handle(app: App, settings: Settings, signals: ExitSignals) -> Outcome:
    with signals.turn(app.ctx.cancel):
        outcome = app.engine.handle(settings.prompt or "")
    if signals.received is None:
        return outcome
    error = f"stopped by {signals.name}; the partial reply is kept, marked interrupted"
    app.ctx.io.error(error)
    return Outcome(outcome.kind, ok=False, turn=outcome.turn, error=error)


def _internal(settings: Settings, exc: Exception) -> str:
    """A bug while starting: its traceback to the debug log, one line for the user."""
    home = Path(settings.home) if settings.home else user_home()
    return one_line(exc, write_crash_log(home, exc, "starting batch mode"))


def exit_code(outcome: Outcome) -> int:
    if outcome.ok:
        return EXIT_OK
    return EXIT_USAGE if outcome.usage_error else EXIT_ERROR


def _show(io: TerminalIO, tool: str, preview: str) -> None:
    if tool != "execute_bash":
        io.diff(preview)
