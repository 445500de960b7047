"""Batch mode: one input, printed result, exit code."""

from __future__ import annotations

import sys

from slop.app import App, build
from slop.approval import ApprovalPolicy
from slop.batch import JsonEvents
from slop.engine import Outcome
from slop.errors import Terminated
from slop.settings import Settings
from slop.ui.signals import ExitSignals

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
        events = JsonEvents(settings.output_format)
        app = build(settings, events, events, ApprovalPolicy(settings.approval, None, events.warning))
        try:
            outcome = _handle(app, settings, signals)
            group = outcome.turn.group_id if outcome.turn else None
            events.finish(outcome.ok, session=app.ctx.session, group_id=group, error=outcome.error or None)
        finally:
            app.close()
        return signals.exit_code or exit_code(outcome)
    from slop.ui.terminal_io import TerminalIO

    io = TerminalIO.for_stream(sys.stdout, no_color=settings.no_color, interactive=False)
    app = build(settings, io, io.renderer, ApprovalPolicy(settings.approval, None, io.warning))
    try:
        outcome = _handle(app, settings, signals)
    finally:
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


def exit_code(outcome: Outcome) -> int:
    if outcome.ok:
        return EXIT_OK
    return EXIT_USAGE if outcome.usage_error else EXIT_ERROR
