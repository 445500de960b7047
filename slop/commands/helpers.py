"""Small text helpers shared by the command modules: names, snippets, fences, R: comments."""

from __future__ import annotations

import re
import unicodedata

from slop.errors import CommandError

NAME_MAX = 100


def check_name(name: str, what: str, usage: str) -> str:
    """A session or skill name: non-empty, at most NAME_MAX characters, no control characters."""
    name = name.strip()
    if not name:
        raise CommandError(f"missing {what} name", usage=usage)
    if len(name) > NAME_MAX:
        raise CommandError(f"the {what} name is too long ({len(name)} characters, at most {NAME_MAX})", usage=usage)
    bad = next((c for c in name if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")), None)
    if bad is not None:
        raise CommandError(
            f"the {what} name contains a control character ({bad!r}); use printable characters", usage=usage
        )
    return name


def snippet(text: str, width: int = 60) -> str:
    """One line: whitespace collapsed, cut at `width` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def fence(text: str, lang: str = "") -> str:
    """`text` in a markdown code fence longer than any backtick run inside it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.rstrip(chr(10))}\n{ticks}"


def review_comments(text: str) -> list[str]:
    """The reviewer's comments: lines whose left-trimmed text starts with `R:`."""
    return [line.strip()[2:].strip() for line in text.splitlines() if line.lstrip().startswith("R:")]


def strip_header(text: str, header: str) -> str:
    """`text` without the instruction header we put on top (leading `#` lines)."""
    if header and text.startswith(header):
        return text[len(header) :].lstrip("\n")
    lines = text.splitlines()
    while lines and (lines[0].startswith("#") or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines)


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"
