"""Approval previews: what a mutating call would change, as a unified diff."""

from __future__ import annotations

import difflib

MAX_PREVIEW_LINES = 80
NEW_FILE_LINES = 20  # a new file is shown by its first lines


def unified_diff(old: str, new: str, name: str, max_lines: int = MAX_PREVIEW_LINES) -> str:
    if not old:
        max_lines = min(max_lines, NEW_FILE_LINES + 3)  # the ---/+++/@@ header, then the first lines
    lines = list(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{name}", f"b/{name}", n=2
        )
    )
    if not lines:
        return f"(no change to {name})"
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines[:max_lines])
    if len(lines) > max_lines:
        text += f"... {len(lines) - max_lines} more diff lines\n"
    return text.rstrip("\n")
