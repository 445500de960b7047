"""read_file and write_file, plus the atomic write apply_patch shares.

read_file shows numbered lines so the model can cite and patch precisely, and
caps what it returns so one huge file cannot fill the context window.
write_file replaces files atomically so an interrupted write never leaves a
half-written source file behind.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, BinaryIO

from slop.records import ToolSpec
from slop.tools.base import ErrorCode, Tool, ToolContext, ToolFailure, ToolOutput
from slop.tools.output import plural
from slop.tools.paths import display, resolve
from slop.tools.preview import unified_diff
from slop.tools.safefs import atomic_write_at, open_read, read_bytes

MAX_LINES = 2000
MAX_CHARS = 100_000
BINARY_SNIFF = 8192


# --- shared helpers --------------------------------------------------------------


def require_file(ctx: ToolContext, raw: str) -> Path:
    """Resolve `raw` and insist it is an existing regular file, with clear errors."""
    path = resolve(ctx, raw)
    if path.is_dir():
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{raw} is a directory; use list_directory to see its contents")
    if not path.exists():
        raise ToolFailure(ErrorCode.NOT_FOUND, f"no such file: {raw}")
    if not path.is_file():  # a FIFO or device would block or never end
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{raw} is not a regular file")
    return path


def atomic_write(ctx: ToolContext, path: Path, data: bytes) -> None:
    """Write the resolved `path` atomically, in its directory opened without following
    symlinks (see `safefs.atomic_write_at`); the file's permission bits are kept."""
    atomic_write_at(ctx, path, data)


def read_current(ctx: ToolContext, path: Path) -> str:
    """The file's text as it is now, for an approval diff ("" when missing or unreadable)."""
    try:
        return read_bytes(ctx, path).decode("utf-8", "replace")
    except (OSError, ToolFailure):
        return ""


def count_lines(text: str) -> int:
    """Lines as an editor counts them: a final line without newline still counts."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


# --- read_file ---------------------------------------------------------------------


def _check_range(start: int | None, end: int | None) -> None:
    if start is not None and start < 1:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "start_line must be 1 or more (lines are numbered from 1)")
    if end is not None and end < 1:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "end_line must be 1 or more (lines are numbered from 1)")
    if start is not None and end is not None and start > end:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "start_line must be less than or equal to end_line")


def _looks_binary(handle: BinaryIO) -> bool:
    head = handle.read(BINARY_SNIFF)
    handle.seek(0)
    return b"\x00" in head


def _collect(handle: BinaryIO, start: int, end: int | None) -> tuple[list[str], int, bool]:
    """Read lines start..end within the caps. Returns (numbered lines, total lines, cut by cap)."""
    out: list[str] = []
    used = 0
    total = 0
    capped = False
    for total, raw in enumerate(handle, start=1):
        if total < start or (end is not None and total > end) or capped:
            continue
        text = raw.decode("utf-8", "replace").rstrip("\n").rstrip("\r")
        line = f"{total:>5} | {text}"
        if len(out) >= MAX_LINES or (out and used + len(line) + 1 > MAX_CHARS):
            capped = True
            continue
        if len(line) > MAX_CHARS:  # a single giant line (minified code)
            line = f"{line[:MAX_CHARS]} [... line cut: {len(line) - MAX_CHARS} more characters]"
        out.append(line)
        used += len(line) + 1
    return out, total, capped


def read_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    start, end = args.get("start_line"), args.get("end_line")
    _check_range(start, end)
    path = require_file(ctx, args["path"])
    shown = display(ctx, path)
    try:
        with os.fdopen(open_read(ctx, path), "rb") as handle:
            if _looks_binary(handle):
                raise ToolFailure(
                    ErrorCode.FAILED_PRECONDITION,
                    f"{shown} looks like a binary file (it contains NUL bytes); not shown",
                )
            lines, total, capped = _collect(handle, start or 1, end)
    except PermissionError:
        raise ToolFailure(ErrorCode.PERMISSION_DENIED, f"cannot read {shown}: permission denied") from None
    except FileNotFoundError:  # removed since it was checked
        raise ToolFailure(ErrorCode.NOT_FOUND, f"no such file: {shown}") from None
    if total and not lines:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT, f"start_line={start} is past the end of {shown} ({plural(total, 'line')})"
        )
    if ctx.on_file_read:
        ctx.on_file_read(shown)
    return ToolOutput(_format_read(shown, lines, total, start or 1, capped))


def _format_read(shown: str, lines: list[str], total: int, start: int, capped: bool) -> str:
    if total == 0:
        return f"File: {shown} (empty file)"
    last = start + len(lines) - 1
    body = "\n".join(lines)
    text = f"File: {shown} | lines {start}-{last} of {total}\n{body}"
    if capped:
        text += (
            f"\n[... output capped at {MAX_LINES} lines / {MAX_CHARS} characters; "
            f"read the rest with start_line={last + 1}]"
        )
    elif last < total:
        text += f"\n[... {total - last} more lines; read them with start_line={last + 1}]"
    return text


READ_FILE = Tool(
    spec=ToolSpec(
        name="read_file",
        description=(
            "Read a text file. Lines come numbered ('   12 | text'); the numbers are not part of the file. "
            f"At most {MAX_LINES} lines per call: use start_line/end_line for a range or to continue."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the project root."},
                "start_line": {"type": "integer", "description": "First line to show (1-based, default 1)."},
                "end_line": {"type": "integer", "description": "Last line to show (inclusive, default end of file)."},
            },
            "required": ["path"],
        },
    ),
    run=read_file,
)


# --- write_file --------------------------------------------------------------------


def write_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    raw: str = args["path"]
    path = resolve(ctx, raw)
    if path.is_dir():
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{raw} is a directory; give a file path")
    existed = path.exists()
    data = args["content"].encode("utf-8")
    try:
        atomic_write(ctx, path, data)
    except PermissionError:
        raise ToolFailure(ErrorCode.PERMISSION_DENIED, f"cannot write {raw}: permission denied") from None
    except OSError as exc:
        raise ToolFailure(ErrorCode.INTERNAL, f"cannot write {raw}: {exc.strerror or exc}") from None
    verb = "Overwrote" if existed else "Created"
    lines = count_lines(args["content"])
    return ToolOutput(f"{verb} {display(ctx, path)}: {plural(len(data), 'byte')}, {plural(lines, 'line')}.")


def _preview_write(args: dict[str, Any], ctx: ToolContext) -> str:
    size = len(args["content"].encode("utf-8"))
    path = resolve(ctx, args["path"])
    header = f"write {plural(size, 'byte')} to {args['path']}" + ("" if path.exists() else " (new file)")
    return header + "\n" + unified_diff(read_current(ctx, path), args["content"], args["path"])


WRITE_FILE = Tool(
    spec=ToolSpec(
        name="write_file",
        description=(
            "Create or overwrite a file with the given content (parent directories are created). "
            "For small edits to an existing file prefer apply_patch."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the project root."},
                "content": {"type": "string", "description": "The complete new content of the file."},
            },
            "required": ["path", "content"],
        },
        mutating=True,
    ),
    run=write_file,
    preview=_preview_write,
)
