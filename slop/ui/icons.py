"""Icons for each kind of output line, with an ASCII fallback for non-UTF-8 consoles."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console


@dataclass(frozen=True, slots=True)
class IconSet:
    user: str
    tool: str
    ok: str
    error: str
    cancelled: str
    running: str
    info: str
    success: str
    warning: str
    memo: str
    skill: str
    session: str
    thought: str
    state: str
    ellipsis: str
    dot: str


UNICODE = IconSet(
    user="❯",
    tool="🔧",
    ok="✔",
    error="✘",
    cancelled="⏹",
    running="…",
    info="ℹ",
    success="✔",
    warning="⚠",
    memo="📝",
    skill="🎓",
    session="💬",
    thought="🧠",
    state="🕒",
    ellipsis="…",
    dot="·",
)

ASCII = IconSet(
    user=">",
    tool="[tool]",
    ok="[ok]",
    error="[x]",
    cancelled="[cancelled]",
    running="...",
    info="[i]",
    success="[ok]",
    warning="[!]",
    memo="[memo]",
    skill="[skill]",
    session="[session]",
    thought="[thought]",
    state="[state]",
    ellipsis="...",
    dot="-",
)


def icons_for(console: Console) -> IconSet:
    """The Unicode set when the console can encode it, else the ASCII set."""
    encoding = (console.encoding or "").lower().replace("-", "").replace("_", "")
    return UNICODE if encoding.startswith("utf") else ASCII
