"""Small text helpers shared by tools: redaction and size caps.

Every tool result goes into the model's context and the ledger, so outputs are
capped (a runaway `cat` must not blow the context window) and secrets are
removed before anything leaves the tool layer.
"""

from __future__ import annotations

from collections.abc import Iterable

REDACTED = "[REDACTED]"
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


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 line`, `2 lines`: keeps messages readable without ad-hoc (s) suffixes."""
    return f"{count} {word}" if count == 1 else f"{count} {many or word + 's'}"
