"""apply_patch: exact find/replace edits, all or nothing.

Each `find` must occur exactly once, so an edit can never land in the wrong
place; if any block fails, the file is left untouched so the model can re-read
and retry from a known state.
"""

from __future__ import annotations

from typing import Any

from slop.records import ToolSpec
from slop.tools.base import ErrorCode, Tool, ToolContext, ToolFailure, ToolOutput
from slop.tools.files import atomic_write, require_file
from slop.tools.output import plural
from slop.tools.paths import display
from slop.tools.preview import unified_diff
from slop.tools.safefs import read_bytes


def count_occurrences(text: str, needle: str) -> int:
    """Occurrences including overlapping ones: "aa" in "aaa" is ambiguous, not unique."""
    count = 0
    index = text.find(needle)
    while index != -1:
        count += 1
        index = text.find(needle, index + 1)
    return count


def _describe(index: int, find: str) -> str:
    first = find.strip("\n").split("\n", 1)[0].strip()
    if len(first) > 80:
        first = first[:80] + "..."
    return f"patch {index} (find starting {first!r})"


def _apply_one(text: str, index: int, block: dict[str, str], crlf: bool) -> str:
    """Apply one block to the in-memory text, or raise naming the block and the count."""
    find, replace = block["find"], block["replace"]
    if not find:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"patch {index}: find must not be empty")
    count = count_occurrences(text, find)
    if count == 0 and crlf and "\r\n" not in find:
        # The model writes "\n"; a CRLF file needs "\r\n" to match.
        find, replace = find.replace("\n", "\r\n"), replace.replace("\n", "\r\n")
        count = count_occurrences(text, find)
    if count == 1:
        return text.replace(find, replace, 1)
    if count == 0:
        hint = "it must match the file exactly, whitespace included; re-read the file and retry"
        raise ToolFailure(ErrorCode.NOT_FOUND, f"{_describe(index, find)} matches 0 times: {hint}")
    raise ToolFailure(
        ErrorCode.FAILED_PRECONDITION,
        f"{_describe(index, find)} matches {count} times: add surrounding lines to make it unique",
    )


def apply_patch(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    raw: str = args["path"]
    patches: list[dict[str, str]] = args["patches"]
    if not patches:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "patches must contain at least one {find, replace} block")
    path = require_file(ctx, raw)
    # surrogateescape round-trips bytes that are not UTF-8, so they survive the edit unchanged.
    text = read_bytes(ctx, path).decode("utf-8", "surrogateescape")
    crlf = "\r\n" in text
    try:
        for index, block in enumerate(patches, start=1):
            text = _apply_one(text, index, block, crlf)
    except ToolFailure as exc:
        raise ToolFailure(exc.code, f"{exc} (nothing was written to {raw})") from None
    atomic_write(ctx, path, text.encode("utf-8", "surrogateescape"))
    return ToolOutput(f"Successfully applied {plural(len(patches), 'patch', 'patches')} to {display(ctx, path)}")


def _preview(args: dict[str, Any], ctx: ToolContext) -> str:
    header = f"apply {plural(len(args['patches']), 'patch', 'patches')} to {args['path']}"
    path = require_file(ctx, args["path"])
    old = text = read_bytes(ctx, path).decode("utf-8", "surrogateescape")
    try:
        for index, block in enumerate(args["patches"], start=1):
            text = _apply_one(text, index, block, "\r\n" in old)
    except ToolFailure as exc:
        return f"{header}\n(it will fail: {exc})"
    return header + "\n" + unified_diff(old, text, args["path"])


APPLY_PATCH = Tool(
    spec=ToolSpec(
        name="apply_patch",
        description=(
            "Edit a file by exact find/replace. Each 'find' must occur exactly once in the file "
            "(copy it verbatim, whitespace included, with enough context to be unique). Blocks apply "
            "in order; if any fails, nothing is written."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the project root."},
                "patches": {
                    "type": "array",
                    "description": "Edits to apply in order.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "find": {"type": "string", "description": "Exact text to replace (must be unique)."},
                            "replace": {"type": "string", "description": "Replacement text."},
                        },
                        "required": ["find", "replace"],
                    },
                },
            },
            "required": ["path", "patches"],
        },
        mutating=True,
    ),
    run=apply_patch,
    preview=_preview,
)
