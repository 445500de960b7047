"""A tool preview (header line + unified diff) as coloured text."""

from __future__ import annotations

from rich.text import Text

from slop.ui.sanitise import visible

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
    """The first line (what the call does) bold; diff lines green/red/cyan. Control
    characters from the model show as escapes (split on newlines only, after that, so a
    bare CR cannot pass for a line break)."""
    text = Text()
    for index, line in enumerate(visible(preview, strict=True).split("\n")):
        if index:
            text.append("\n")
        text.append(line, style="bold" if index == 0 else diff_style(line) or "dim")
    return text
