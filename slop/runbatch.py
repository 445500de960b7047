"""Batch mode: one input, printed result, exit code."""

from __future__ import annotations

import sys

from slop.app import build
from slop.approval import ApprovalPolicy
from slop.batch import JsonEvents
from slop.engine import Outcome
from slop.settings import Settings

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def run_batch(settings: Settings) -> int:
    if settings.output_format in ("json", "jsonl"):
        events = JsonEvents(settings.output_format)
        app = build(
            settings,
            events,
            events,
            ApprovalPolicy(settings.approval, None, events.warning, per_tool=settings.config.tool_approvals()),
        )
        try:
            outcome = app.engine.handle(settings.prompt or "")
            group = outcome.turn.group_id if outcome.turn else None
            events.finish(outcome.ok, session=app.ctx.session, group_id=group, error=outcome.error or None)
        finally:
            app.close()
        return exit_code(outcome)
    from slop.ui.terminal_io import TerminalIO

    io = TerminalIO.for_stream(sys.stdout, no_color=settings.no_color, interactive=False)
    app = build(
        settings,
        io,
        io.renderer,
        ApprovalPolicy(settings.approval, None, io.warning, per_tool=settings.config.tool_approvals()),
    )
    try:
        outcome = app.engine.handle(settings.prompt or "")
    finally:
        app.close()
    return exit_code(outcome)


def exit_code(outcome: Outcome) -> int:
    if outcome.ok:
        return EXIT_OK
    return EXIT_USAGE if outcome.usage_error else EXIT_ERROR
