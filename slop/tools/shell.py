"""execute_bash: run a command with bash, bounded in time and output.

stdin is /dev/null unless `input` is given, so interactive programs see EOF
instead of hanging; the whole process group is killed on timeout or cancel.
"""

from __future__ import annotations

import codecs
import signal
from collections.abc import Callable
from typing import Any

from slop.errors import Cancelled
from slop.records import ToolSpec
from slop.tools.base import ErrorCode, Tool, ToolContext, ToolFailure, ToolOutput, error_text
from slop.tools.childenv import child_environment
from slop.tools.proc import ProcOutcome, Sink, run_process
from slop.tools.sinks import HeadTailSink


def _exit_line(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"exit code: {code} (killed by {name})"
    return f"exit code: {code}"


def format_streams(stdout: str, stderr: str) -> str:
    """The `### STDOUT` / `### STDERR` sections; empty streams are left out."""
    parts = []
    if stdout:
        parts.append(f"### STDOUT\n{stdout.rstrip(chr(10))}")
    if stderr:
        parts.append(f"### STDERR\n{stderr.rstrip(chr(10))}")
    return "\n".join(parts) if parts else "(no output)"


class TeeSink:
    """Keeps the output for the result and also passes it on as text, live."""

    def __init__(self, inner: Sink, live: Callable[[str], None] | None) -> None:
        self.inner = inner
        self.live = live
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def feed(self, chunk: bytes) -> None:
        self.inner.feed(chunk)
        if self.live is not None:
            text = self._decoder.decode(chunk)
            if text:
                self.live(text)


def execute_bash(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    command: str = args["command"]
    stdin = args.get("input")
    # The ledger keeps the whole output up to the cap (assembly truncates what the model
    # sees, and the hint pages the stored row); beyond it, head and tail, with a note.
    out, err = HeadTailSink(ctx.output_cap), HeadTailSink(ctx.output_cap)
    try:
        outcome = run_process(
            ["bash", "-c", command],
            cwd=ctx.root,
            cancel=ctx.cancel,
            timeout=ctx.shell_timeout,
            stdout=TeeSink(out, ctx.on_output),
            stderr=TeeSink(err, ctx.on_output),
            stdin_data=stdin.encode("utf-8") if stdin is not None else None,
            env=child_environment(ctx.pass_env),
        )
    except OSError as exc:
        raise ToolFailure(ErrorCode.FAILED_PRECONDITION, f"cannot start bash: {exc.strerror or exc}") from None
    if outcome.cancelled:
        raise Cancelled("execute_bash was cancelled")
    return _result(outcome, out.text(), err.text(), ctx.shell_timeout)


def _result(outcome: ProcOutcome, stdout: str, stderr: str, timeout: float) -> ToolOutput:
    streams = format_streams(stdout, stderr)
    if outcome.timed_out:
        message = f"command timed out after {timeout:g} s; its process group was killed. Output so far:\n" + streams
        return ToolOutput(error_text(ErrorCode.DEADLINE_EXCEEDED, message), is_error=True)
    text = f"{_exit_line(outcome.returncode)}\n{streams}"
    if outcome.detached:
        text += "\n[background processes still hold the output open; later output is not captured]"
    return ToolOutput(text)


def _preview(args: dict[str, Any], ctx: ToolContext) -> str:
    return f"run: {args['command']}"


EXECUTE_BASH = Tool(
    spec=ToolSpec(
        name="execute_bash",
        description=(
            "Run a command with bash -c in the project root and return its exit code, stdout and stderr. "
            "stdin is empty unless 'input' is given; there is no terminal, so avoid interactive programs. "
            "Long outputs are cut in the middle; commands are killed after the shell timeout."
        ),
        parameters={
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The bash command line to run."},
                "input": {"type": "string", "description": "Text fed to the command's stdin."},
            },
            "required": ["command"],
        },
        mutating=True,
    ),
    run=execute_bash,
    preview=_preview,
)
