"""Small text helpers shared by tools: redaction and size caps.

Every tool result goes into the model's context and the ledger, so outputs are
capped (a runaway `cat` must not blow the context window) and secrets are
removed before anything leaves the tool layer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[REDACTED]"
# What a stored command output says where its middle was cut (over the store cap): the
# exact byte range, and how many lines, so the tool line and the model know the truth.
CUT_NOTE = (
    "[... {lines} lines cut from the middle of this output (bytes {start}-{end} of {total}, {cut} bytes): "
    "it passed the {cap}-byte store cap (SLOP_TOOL_OUTPUT_CAP) ...]"
)
_CUT_LINES = re.compile(r"^\[\.\.\. (\d+) lines cut from the middle of this output \(bytes ", re.MULTILINE)
MIN_SECRET_LEN = 8  # shorter values would redact ordinary words


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace every secret of at least 8 characters with [REDACTED].

    Longest first, so a secret that contains another one is removed whole."""
    for secret in sorted({s for s in secrets if len(s) >= MIN_SECRET_LEN}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def cut_middle(text: str, max_chars: int) -> str:
    """Keep the head and the tail of `text`, dropping the middle with a note.

    The head shows how a command started, the tail how it ended (errors are
    usually at the end), which is what a reader needs from a long log."""
    if len(text) <= max_chars:
        return text
    head = max_chars // 2
    tail = max_chars - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... {cut} characters cut from the middle ...]\n{text[-tail:]}"


def cut_line(line: str, max_chars: int) -> str:
    """Shorten one long line (minified files) so a single match cannot flood the output."""
    if len(line) <= max_chars:
        return line
    return f"{line[:max_chars]} [... {len(line) - max_chars} more characters]"


def line_count(text: str) -> str:
    """`5000 lines`, or `5000 lines (1831 kept)` when a store-cap note says lines were cut."""
    kept = len(text.splitlines())
    notes = _CUT_LINES.findall(text)
    if not notes:
        return plural(kept, "line")
    kept -= len(notes)  # the note lines themselves
    # Each cut splits one line in two (its start ends the head, its end starts the tail).
    total = kept + sum(int(n) for n in notes) - len(notes)
    return f"{plural(total, 'line')} ({kept} kept)"


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 line`, `2 lines`: keeps messages readable without ad-hoc (s) suffixes."""
    return f"{count} {word}" if count == 1 else f"{count} {many or word + 's'}"
