"""grep_tool and git_grep_tool: searching the code without a shell.

Patterns go to grep/git grep as argv elements after `-e`, never through a shell,
so quotes, `$`, backticks or a leading `-` in a pattern are just text. Output is
capped at MAX_LINES lines; when it is cut, a per-file match count tells the model
where to narrow down.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, BinaryIO

from slop.errors import Cancelled
from slop.records import ToolSpec
from slop.tools.base import ErrorCode, Tool, ToolContext, ToolFailure, ToolOutput
from slop.tools.gitutil import in_work_tree
from slop.tools.output import plural
from slop.tools.paths import display, resolve
from slop.tools.proc import run_process
from slop.tools.safefs import fd_cwd, open_dir, open_read
from slop.tools.sinks import HeadTailSink, LineSink

MAX_LINES = 500
MAX_CONTEXT = 50
SKIP_DIRS = (".git", "node_modules", ".slop")
BOOL_OPERATORS = ("--and", "--or", "--not", "(", ")")


# --- running and formatting ------------------------------------------------------


def _run(
    argv: list[str], cwd: Path, ctx: ToolContext, stdin: BinaryIO | None = None
) -> tuple[LineSink, int | None, str]:
    """Run a search command; return (lines, exit code, stderr)."""
    lines, err = LineSink(MAX_LINES), HeadTailSink(4000)
    try:
        outcome = run_process(
            argv, cwd=cwd, cancel=ctx.cancel, timeout=ctx.shell_timeout, stdout=lines, stderr=err, stdin_file=stdin
        )
    except OSError as exc:
        raise ToolFailure(ErrorCode.FAILED_PRECONDITION, f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    lines.finish()
    if outcome.cancelled:
        raise Cancelled("search cancelled")
    if outcome.timed_out:
        raise ToolFailure(
            ErrorCode.DEADLINE_EXCEEDED, f"search timed out after {ctx.shell_timeout:g} s; narrow the path"
        )
    return lines, outcome.returncode, err.text().strip()


def _format(lines: LineSink, code: int | None, stderr: str, prefix: str = "") -> ToolOutput:
    """Exit 0 = matches, 1 = none (a normal answer), anything else = a real error."""
    if code not in (0, 1) and not lines.lines:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"search failed (exit {code}): {stderr or 'no details'}")
    if not lines.lines:
        return ToolOutput("No matches.")
    shown = [_prefixed(line, prefix) for line in lines.lines]
    text = "\n".join(shown)
    if lines.omitted:
        text += f"\n[... {lines.omitted} more lines not shown; narrow the pattern or path]"
        text += "\n" + _per_file_summary(lines, prefix)
    if code not in (0, 1) and stderr:
        text += f"\n### STDERR\n{stderr}"
    return ToolOutput(text)


def _prefixed(line: str, prefix: str) -> str:
    """Make paths root-relative when the search ran in a subdirectory ("--" separates hunks)."""
    return line if not prefix or line == "--" else prefix + line


def _per_file_summary(lines: LineSink, prefix: str, top: int = 20) -> str:
    counts = lines.per_file.most_common(top)
    body = ", ".join(f"{prefix}{name}: {count}" for name, count in counts)
    more = len(lines.per_file) - len(counts)
    tail = f", and {plural(more, 'more file')}" if more > 0 else ""
    return f"Matching lines per file: {body}{tail}"


def _context_flag(args: dict[str, Any]) -> list[str]:
    context = args.get("context") or 0
    if context < 0:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "context must be 0 or more")
    return ["-C", str(min(context, MAX_CONTEXT))] if context else []


def _match_flags(args: dict[str, Any]) -> list[str]:
    flags = ["-F"] if args.get("fixed_strings") else ["-E"]
    return flags + (["-i"] if args.get("case_insensitive") else [])


# --- grep_tool -------------------------------------------------------------------


def grep_tool(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    path = resolve(ctx, args.get("path") or ".")
    if not path.exists():
        raise ToolFailure(ErrorCode.NOT_FOUND, f"no such file or directory: {args.get('path')}")
    # Search from the directory itself so output paths are short; _format adds the
    # directory back so every path is relative to the project root.
    directory = path if path.is_dir() else path.parent
    prefix = "" if display(ctx, directory) == "." else display(ctx, directory) + "/"
    flags = _match_flags(args) + _context_flag(args)
    if not path.is_dir():  # one file: opened safely here, grep reads it from stdin
        argv = ["grep", "-n", "-H", f"--label={path.name}", "-I", *flags, "-e", args["pattern"], "-"]
        with os.fdopen(open_read(ctx, path), "rb") as handle:
            return _format(*_run(argv, directory, ctx, stdin=handle), prefix=prefix)
    if in_work_tree(directory):
        argv = ["git", "--no-pager", "grep", "--no-color", "-n", "-I", "--untracked", *flags]
    else:  # grep -r without a file operand searches "." and prints paths without "./"
        argv = ["grep", "-r", "-n", "-H", "-I", *flags, *(f"--exclude-dir={d}" for d in SKIP_DIRS)]
    argv += ["-e", args["pattern"], "--"]
    with open_dir(ctx, directory) as dir_fd:  # the search runs in the directory that was checked
        return _format(*_run(argv, fd_cwd(dir_fd, directory), ctx), prefix=prefix)


GREP_TOOL = Tool(
    spec=ToolSpec(
        name="grep_tool",
        description=(
            "Search file contents for a regular expression (extended syntax, like grep -E). Prints "
            "'path:line:text'. In a git repository it uses git grep (tracked and untracked files, "
            f".gitignore honoured); elsewhere grep -r. At most {MAX_LINES} lines are shown."
        ),
        parameters={
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Extended regular expression to look for."},
                "path": {"type": "string", "description": "File or directory to search (default: project root)."},
                "context": {"type": "integer", "description": "Lines of context around each match (default 0)."},
                "case_insensitive": {"type": "boolean", "description": "Ignore case (default false)."},
                "fixed_strings": {"type": "boolean", "description": "Treat the pattern as literal text."},
            },
            "required": ["pattern"],
        },
    ),
    run=grep_tool,
)


# --- git_grep_tool ---------------------------------------------------------------


def _as_list(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _pattern_args(patterns: list[str]) -> list[str]:
    """Operators pass through as git grep options; everything else becomes `-e PATTERN`."""
    if not any(p not in BOOL_OPERATORS for p in patterns):
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "patterns must contain at least one pattern besides operators")
    argv: list[str] = []
    for item in patterns:
        argv += [item] if item in BOOL_OPERATORS else ["-e", item]
    return argv


def _check_pathspec(ctx: ToolContext, spec: str) -> str:
    """Pathspecs may be globs, so they are not resolved; only obvious escapes are refused."""
    magic = spec[2 : spec.find(")")] if spec.startswith(":(") else ""
    if spec.startswith(":/") or "top" in magic.split(","):
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"pathspec {spec!r}: the 'top' magic is not allowed")
    if spec.startswith("/") or ".." in Path(spec).parts:
        resolve(ctx, spec)  # raises when it leaves the project
    return spec


def git_grep_tool(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    root = Path(ctx.root)
    if not in_work_tree(root):
        raise ToolFailure(
            ErrorCode.FAILED_PRECONDITION, "the project root is not inside a git work tree; use grep_tool instead"
        )
    argv = ["git", "--no-pager", "grep", "--no-color", "-n", "-I", *_match_flags(args), *_context_flag(args)]
    if args.get("function_context"):
        argv.append("-W")
    if args.get("untracked", True):
        argv.append("--untracked")
    argv += _pattern_args(_as_list(args["patterns"]))
    argv += ["--", *(_check_pathspec(ctx, s) for s in _as_list(args.get("pathspecs")))]
    return _format(*_run(argv, root, ctx))


_STRINGS = {"type": "array", "items": {"type": "string"}}

GIT_GREP_TOOL = Tool(
    spec=ToolSpec(
        name="git_grep_tool",
        description=(
            "Search the git repository with git grep (extended regular expressions; .gitignore honoured). "
            "Several patterns match lines containing ANY of them; put '--and', '--or', '--not', '(' and ')' "
            "as separate elements of patterns to combine them, e.g. ['foo', '--and', '--not', 'bar']. "
            "function_context shows the whole function around each match. "
            f"At most {MAX_LINES} lines are shown."
        ),
        parameters={
            "type": "object",
            "properties": {
                "patterns": {
                    "anyOf": [{"type": "string"}, _STRINGS],
                    "description": "One pattern, or a list of patterns and boolean operators.",
                },
                "pathspecs": {
                    "anyOf": [{"type": "string"}, _STRINGS],
                    "description": "Limit the search to these paths or globs, e.g. ['src/*.py', 'tests/'].",
                },
                "function_context": {"type": "boolean", "description": "Show the enclosing function (git grep -W)."},
                "context": {"type": "integer", "description": "Lines of context around each match (default 0)."},
                "case_insensitive": {"type": "boolean", "description": "Ignore case (default false)."},
                "fixed_strings": {"type": "boolean", "description": "Treat patterns as literal text."},
                "untracked": {"type": "boolean", "description": "Also search untracked files (default true)."},
            },
            "required": ["patterns"],
        },
    ),
    run=git_grep_tool,
)
