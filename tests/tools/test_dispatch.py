"""dispatch: order, concurrency, validation, approval, failures, cancellation."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from slop.approval import USER_REFUSED
from slop.records import ToolCall, ToolResult, ToolSpec
from slop.tools.base import Tool, ToolContext, ToolOutput
from slop.tools.dispatch import dispatch
from slop.tools.registry import ToolRegistry, default_tools

SLEEP_SPEC = ToolSpec(
    name="nap",
    description="sleep",
    parameters={"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]},
)


def _nap(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    time.sleep(args["seconds"])
    return ToolOutput(f"slept {args['seconds']}")


def _boom(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    raise RuntimeError("kaboom")


def registry() -> ToolRegistry:
    extra = [
        Tool(SLEEP_SPEC, _nap),
        Tool(ToolSpec("boom", "fails", {"type": "object", "properties": {}}), _boom),
    ]
    return ToolRegistry([*default_tools(), *extra])


def call(id_: str, name: str, **args: Any) -> ToolCall:
    return ToolCall(id_, name, json.dumps(args))


class Recorder:
    """An approver that remembers what it was asked and answers from a list."""

    def __init__(self, *answers: bool) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, str]] = []

    def approve(self, call: ToolCall, preview: str) -> str | None:
        self.asked.append((call.id, preview))
        return None if self.answers.pop(0) else USER_REFUSED


def test_parallel_and_in_call_order(ctx: ToolContext) -> None:
    calls = [call("a", "nap", seconds=0.4), call("b", "nap", seconds=0.1), call("c", "nap", seconds=0.2)]
    finished: list[str] = []
    results = dispatch(calls, registry(), ctx, None, on_done=lambda c, r: finished.append(c.id))
    assert [r.call_id for r in results] == ["a", "b", "c"]
    assert [r.content for r in results] == ["slept 0.4", "slept 0.1", "slept 0.2"]
    # run one after another they would finish a, b, c: the shortest nap finishing first
    # proves they ran together (the wall time is measured by scripts/bench_tools.py)
    assert finished == ["b", "c", "a"]
    assert all(r.status == "completed" and r.duration >= 0.09 for r in results)


def test_validation_errors_become_results(ctx: ToolContext) -> None:
    calls = [
        ToolCall("1", "read_file", "{not json"),
        ToolCall("2", "read_file", json.dumps({"start_line": 1})),
        ToolCall("3", "read_file", json.dumps({"path": "a", "start_line": "10"})),
        ToolCall("4", "no_such_tool", "{}"),
    ]
    results = dispatch(calls, registry(), ctx, None)
    assert all(r.status == "error" for r in results)
    assert results[0].content.startswith("Error: INVALID_ARGUMENT: arguments are not valid JSON (")
    assert results[1].content == "Error: INVALID_ARGUMENT: missing required field 'path'"
    assert results[2].content.startswith("Error: INVALID_ARGUMENT: start_line must be an integer")
    assert results[3].content.startswith("Error: UNKNOWN_TOOL: no tool named 'no_such_tool'. Available: read_file")


def test_refused_approval(ctx: ToolContext, root: Path) -> None:
    approver = Recorder(False, True)
    calls = [
        call("w1", "write_file", path="a.txt", content="a"),
        call("r", "list_directory"),
        call("w2", "write_file", path="b.txt", content="b"),
    ]
    results = dispatch(calls, registry(), ctx, approver)
    assert [c for c, _ in approver.asked] == ["w1", "w2"]  # only mutating calls, in order
    assert "a.txt" in approver.asked[0][1]
    assert results[0].content == "Error: PERMISSION_DENIED: the user refused this call"
    assert results[0].status == "error"
    assert results[1].status == "completed" and results[2].status == "completed"
    assert not (root / "a.txt").exists() and (root / "b.txt").read_text() == "b"


def test_approval_happens_before_anything_runs(ctx: ToolContext) -> None:
    events: list[str] = []

    class Slow:
        def approve(self, call: ToolCall, preview: str) -> str | None:
            events.append(f"ask {call.id}")
            return None

    calls = [call("n", "nap", seconds=0.01), call("w", "write_file", path="x", content="")]
    dispatch(calls, registry(), ctx, Slow(), on_start=lambda c: events.append(f"start {c.id}"))
    assert events[0] == "ask w"


def test_exception_becomes_internal_error(ctx: ToolContext) -> None:
    results = dispatch([call("x", "boom"), call("y", "nap", seconds=0)], registry(), ctx, None)
    assert results[0].status == "error"
    assert results[0].content == "Error: INTERNAL: RuntimeError: kaboom"
    assert results[1].status == "completed"


def test_cancel_before_start(ctx: ToolContext) -> None:
    ctx.cancel.set()
    results = dispatch([call("a", "nap", seconds=1)], registry(), ctx, None)
    assert results == [ToolResult("a", "nap", "[Cancelled]", "cancelled", 0.0)]


def test_cancel_queued_calls_and_running_shell(ctx: ToolContext) -> None:
    calls = [call("sh", "execute_bash", command="sleep 30"), call("q", "nap", seconds=0)]
    threading.Timer(0.3, ctx.cancel.set).start()
    started = time.monotonic()
    results = dispatch(calls, registry(), ctx, None, max_workers=1)
    assert time.monotonic() - started < 3
    assert [r.status for r in results] == ["cancelled", "cancelled"]
    assert [r.content for r in results] == ["[Cancelled]", "[Cancelled]"]


def test_callbacks_errors_do_not_break_dispatch(ctx: ToolContext) -> None:
    def bad(*_: object) -> None:
        raise ValueError("ui bug")

    results = dispatch([call("a", "nap", seconds=0)], registry(), ctx, None, on_start=bad, on_done=bad)
    assert results[0].status == "completed"


def test_secrets_redacted_everywhere(ctx: ToolContext) -> None:
    ctx.secrets = ("supersecretvalue",)
    results = dispatch(
        [call("a", "execute_bash", command="echo supersecretvalue"), ToolCall("b", "supersecretvalue", "{}")],
        registry(),
        ctx,
        None,
    )
    assert all("supersecretvalue" not in r.content for r in results)
    assert "[REDACTED]" in results[0].content and "[REDACTED]" in results[1].content


def test_empty_batch(ctx: ToolContext) -> None:
    assert dispatch([], registry(), ctx, None) == []


def test_tool_returning_garbage_is_internal_error(ctx: ToolContext) -> None:
    broken = Tool(ToolSpec("broken", "returns None", {"type": "object", "properties": {}}), lambda a, c: None)  # type: ignore[arg-type,return-value]
    (result,) = dispatch([call("x", "broken")], ToolRegistry([broken]), ctx, None)
    assert result.status == "error" and result.content.startswith("Error: INTERNAL: AttributeError")
