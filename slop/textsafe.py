"""Text that can always be stored, printed and sent: no lone UTF-16 surrogates; errors on one line.

A model (or a JSON escape like "\\ud800" in a stream) can hand Python a `str` holding a
lone surrogate. Such a string cannot be encoded as UTF-8, so SQLite, the terminal, a
JSON line on stdout and the next HTTP request would all fail on it. Providers and the
store pass text through `scrub` at the boundary. Stdlib only."""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def scrub(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD; a high+low pair that arrived
    as two code points is joined into the character it encodes. Cheap when clean."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def single_line(text: str) -> str:
    """An error is one line: line breaks quoted from the user's input or a server's
    message are shown as \\n instead of breaking it (scripts read errors line by line)."""
    return text.replace("\r\n", "\n").replace("\r", "\\r").replace("\n", "\\n")
