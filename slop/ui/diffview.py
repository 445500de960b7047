"""A tool preview (header line + unified diff) as coloured text."""

from __future__ import annotations

from rich.text import Text

_STYLES = (
    ("+++", "bold"),
    ("---", "bold"),
    ("@@", "cyan"),
    ("+", "green"),
    ("-", "red"),
)


def diff_style(line: str) -> str:
    for prefix, style in _STYLES:
        if line.startswith(prefix):
            return style
    return ""


def coloured_preview(preview: str) -> Text:
    """The first line (what the call does) bold; diff lines green/red/cyan."""
    text = Text()
    for index, line in enumerate(preview.splitlines()):
        if index:
            text.append("\n")
        text.append(line, style="bold" if index == 0 else diff_style(line) or "dim")
    return text
