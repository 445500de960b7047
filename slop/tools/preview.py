"""Approval previews: what a mutating call would change, as a unified diff."""

from __future__ import annotations

import difflib

MAX_PREVIEW_LINES = 80


def unified_diff(old: str, new: str, name: str, max_lines: int = MAX_PREVIEW_LINES) -> str:
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
