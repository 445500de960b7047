"""`### STATE` extraction: the model's self-maintained anchor at the end of each reply."""

from __future__ import annotations

import re

_STATE_HEADING = re.compile(r"^\s{0,3}#{2,3}\s+STATE\s*:?\s*$", re.IGNORECASE)
_END_HEADING = re.compile(r"^\s{0,3}#{1,3}\s")
_RULE = re.compile(r"^\s{0,3}(-{3,}|\*{3,}|_{3,})\s*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_FIELD = re.compile(r"^\s*[-*]?\s*\**[A-Za-z][A-Za-z ]{1,40}\**\s*:")


def extract_state(text: str) -> str | None:
    """The last well-formed STATE block of `text`, normalised to start with `### STATE`.

    Line-anchored (so `### STATEMENT` or a mention in prose is not a block), ignores
    headings inside code fences, ends at the next heading of level <= 3 or a rule.
    A block with no `Field: value` line is mangled and yields None, so it never
    replaces a good anchor."""
    lines = text.splitlines()
    blocks: list[list[str]] = []
    current: list[str] | None = None
    fence: str | None = None
    for line in lines:
        marker = _FENCE.match(line)
        if marker:
            token = marker.group(1)[0] * 3
            fence = None if fence == token else (fence or token)
        if fence is None and not marker and _STATE_HEADING.match(line):
            current = []
            blocks.append(current)
            continue
        if current is None:
            continue
        if fence is None and (_END_HEADING.match(line) or _RULE.match(line)):
            current = None
            continue
        current.append(line)
    for block in reversed(blocks):
        body = "\n".join(block).strip()
        if body and any(_FIELD.match(line) for line in block):
            return "### STATE\n" + body
    return None
