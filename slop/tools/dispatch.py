"""Running a batch of tool calls: validate, ask approval, run in parallel, collect in order.

Whatever goes wrong (bad JSON, unknown tool, refusal, a bug inside a tool,
cancellation) becomes a ToolResult the model can read: a turn never crashes
because of a tool. Results come back in call order, because providers pair
results with calls and the ledger stores them in that order.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import Any

from slop.errors import Cancelled, ToolError
from slop.records import Status, StatusName, ToolCall, ToolResult
from slop.tools.base import (
    CANCELLED_TEXT,
    Approver,
    ErrorCode,
    Tool,
    ToolContext,
    ToolFailure,
    error_text,
)
from slop.tools.output import redact
from slop.tools.registry import ToolRegistry
from slop.tools.validate import parse_arguments

log = logging.getLogger(__name__)

OnStart = Callable[[ToolCall], None]
OnDone = Callable[[ToolCall, ToolResult], None]
OnOutput = Callable[[ToolCall, str], None]

_LOST = error_text("INTERNAL", "the call produced no result")  # defensive: should never be seen


@dataclass
class _Job:
    """One call on its way through dispatch; `result` is set once it is decided."""

    call: ToolCall
    tool: Tool | None = None
    args: dict[str, Any] | None = None
    result: ToolResult | None = None


def dispatch(
    calls: Sequence[ToolCall],
    registry: ToolRegistry,
    ctx: ToolContext,
    approver: Approver | None,
    *,
    max_workers: int = 4,
    on_start: OnStart | None = None,
    on_done: OnDone | None = None,
    on_output: OnOutput | None = None,
) -> list[ToolResult]:
    """Run `calls` and return one result per call, in call order.

    Approval of mutating calls is asked one by one, in call order, before
    anything runs (approver None approves all). Callbacks run on worker threads."""
    jobs = [_prepare(call, registry, ctx) for call in calls]
    _approve_all(jobs, approver, ctx)
    for job in jobs:
        if job.result is not None:
            _notify_done(on_done, job.call, job.result)
    runnable = [job for job in jobs if job.result is None]
    if runnable:
        _run_parallel(runnable, ctx, max(1, max_workers), on_start, on_done, on_output)
    return [job.result or _finish(job.call, _LOST, Status.ERROR, ctx) for job in jobs]


# --- preparation and approval ----------------------------------------------------


def _finish(call: ToolCall, text: str, status: StatusName, ctx: ToolContext, duration: float = 0.0) -> ToolResult:
    """Build a result; every text passes through redaction here, whatever its origin."""
    return ToolResult(call.id, call.name, redact(text, ctx.secrets), status, duration)


def _prepare(call: ToolCall, registry: ToolRegistry, ctx: ToolContext) -> _Job:
    tool = registry.get(call.name)
    if tool is None:
        names = ", ".join(registry.names())
        text = error_text(ErrorCode.UNKNOWN_TOOL, f"no tool named '{call.name}'. Available: {names}")
        return _Job(call, result=_finish(call, text, Status.ERROR, ctx))
    args, error = parse_arguments(tool.spec.parameters, call.arguments)
    if error is not None:
        return _Job(call, tool, result=_finish(call, error, Status.ERROR, ctx))
    return _Job(call, tool, args)


def _preview(job: _Job, ctx: ToolContext) -> str:
    assert job.tool is not None and job.args is not None
    if job.tool.preview is not None:
        try:
            return job.tool.preview(job.args, ctx)
        except Exception:  # a preview is a courtesy; fall back to the raw call
            log.debug("preview failed for %s", job.call.name, exc_info=True)
    return f"{job.call.name} {json.dumps(job.args, ensure_ascii=False)}"


def _approve_all(jobs: list[_Job], approver: Approver | None, ctx: ToolContext) -> None:
    """Ask for mutating calls, sequentially and in call order, before any call runs."""
    for job in jobs:
        if job.result is not None:
            continue
        if ctx.cancel.is_set():
            job.result = _finish(job.call, CANCELLED_TEXT, Status.CANCELLED, ctx)
            continue
        assert job.tool is not None
        if approver is None or not job.tool.spec.mutating:
            continue
        job.result = _ask(approver, job, ctx)


def _ask(approver: Approver, job: _Job, ctx: ToolContext) -> ToolResult | None:
    """None when approved; otherwise the refusal (or cancellation) result."""
    try:
        refusal = approver.approve(job.call, _preview(job, ctx))
        if refusal is None:
            return None
        return _finish(job.call, error_text(ErrorCode.PERMISSION_DENIED, refusal), Status.ERROR, ctx)
    except (Cancelled, KeyboardInterrupt):
        ctx.cancel.set()  # cancelling at the prompt cancels the turn
        return _finish(job.call, CANCELLED_TEXT, Status.CANCELLED, ctx)
    except Exception as exc:
        log.exception("approver failed for %s", job.call.name)
        return _finish(job.call, error_text(ErrorCode.INTERNAL, f"approval failed: {exc}"), Status.ERROR, ctx)


# --- running ---------------------------------------------------------------------


def _run_parallel(
    jobs: list[_Job],
    ctx: ToolContext,
    workers: int,
    on_start: OnStart | None,
    on_done: OnDone | None,
    on_output: OnOutput | None = None,
) -> None:
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="slop-tool") as pool:
        futures = [pool.submit(_run_job, job, _job_context(ctx, job, on_output), on_start, on_done) for job in jobs]
        try:
            wait(futures)
        except KeyboardInterrupt:
            # Ctrl-C while tools run: cancel them (shell commands get killed) and
            # still return a result for every call.
            ctx.cancel.set()
            wait(futures)


def _job_context(ctx: ToolContext, job: _Job, on_output: OnOutput | None) -> ToolContext:
    """The call's own context: its live output goes to `on_output` tagged with the call."""
    if on_output is None:
        return ctx
    call = job.call

    def emit(text: str) -> None:
        try:
            on_output(call, text)
        except Exception:  # the live view must never break a tool
            log.exception("on_output callback failed")

    return replace(ctx, on_output=emit)


def _run_job(job: _Job, ctx: ToolContext, on_start: OnStart | None, on_done: OnDone | None) -> None:
    if ctx.cancel.is_set():
        job.result = _finish(job.call, CANCELLED_TEXT, Status.CANCELLED, ctx)
    else:
        _notify(on_start, job.call)
        started = time.monotonic()
        assert job.tool is not None and job.args is not None
        text, status = run_tool(job.tool, job.args, ctx)
        job.result = _finish(job.call, text, status, ctx, time.monotonic() - started)
    _notify_done(on_done, job.call, job.result)


def run_tool(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> tuple[str, StatusName]:
    """Run one validated call; every exception becomes (text, status). Not redacted."""
    try:
        output = tool.run(args, ctx)
        return output.text, Status.ERROR if output.is_error else Status.COMPLETED
    except Cancelled:
        return CANCELLED_TEXT, Status.CANCELLED
    except ToolFailure as exc:
        return exc.text, Status.ERROR
    except ToolError as exc:
        return error_text(ErrorCode.FAILED_PRECONDITION, str(exc)), Status.ERROR
    except Exception as exc:
        log.exception("tool %s raised", tool.spec.name)
        return error_text(ErrorCode.INTERNAL, f"{type(exc).__name__}: {exc}"), Status.ERROR


def _notify(callback: OnStart | None, call: ToolCall) -> None:
    if callback is not None:
        try:
            callback(call)
        except Exception:  # UI problems must not lose tool results
            log.exception("on_start callback failed")


def _notify_done(callback: OnDone | None, call: ToolCall, result: ToolResult) -> None:
    if callback is not None:
        try:
            callback(call, result)
        except Exception:
            log.exception("on_done callback failed")
