"""What a finished tool call shows in the terminal: one short line, then detail lines.

The first line goes on the tool line (exit code, match counts, the tool's own first
line); the lines after it are shown under it as far as /verbose allows (the last lines
of a command's output: test failures are what the user wants to see)."""

from __future__ import annotations

import re

from slop.records import Status
from slop.tools.output import line_count

DETAIL_LINES = 40  # the most detail lines ever passed on (/verbose full shows them all)
_EXIT = re.compile(r"^exit code: (-?\d+|None)")
_SECTION = re.compile(r"^### (STDOUT|STDERR)$")
_MATCH = re.compile(r"^(?P<file>[^:\n]+):\d+[:-]")
_MORE = re.compile(r"^\[\.\.\. (\d+) more lines")
SEARCH_TOOLS = frozenset({"grep_tool", "git_grep_tool"})


def summarize(name: str, content: str, status: str) -> str:
    if status != Status.COMPLETED:
        return _first_line(content)
    if name == "execute_bash":
        return _command(content)
    if name in SEARCH_TOOLS:
        return _search(content)
    first = _first_line(content)
    return first if len(content.splitlines()) <= 1 else line_count(content)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _command(content: str) -> str:
    lines = content.splitlines()
    match = _EXIT.match(lines[0]) if lines else None
    head = f"exit {match.group(1)} · {line_count(content)}" if match else _first_line(content)
    output = [line for line in lines[1 if match else 0 :] if not _SECTION.match(line) and line != "(no output)"]
    while output and not output[-1].strip():
        output.pop()
    return "\n".join([head, *output[-DETAIL_LINES:]])


def _search(content: str) -> str:
    if content.strip() == "No matches.":
        return "no matches"
    lines = content.splitlines()
    hits = [m.group("file") for m in map(_MATCH.match, lines) if m]
    more = sum(int(m.group(1)) for m in map(_MORE.match, lines) if m)
    count = len(hits) + more
    files = len(set(hits))
    return f"{count} match{'es' if count != 1 else ''} in {files}{'+' if more else ''} file{'s' if files != 1 else ''}"
