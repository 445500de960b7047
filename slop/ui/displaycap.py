"""How much of one reply is drawn on screen.

Terminal layout of one huge line grows faster than linearly (a 10 MB reply without
whitespace took over a minute in rich's line splitting), and no one reads megabytes in a
terminal: past DISPLAY_LIMIT characters a reply is counted, not drawn, and a dim note says
so. The ledger keeps every character (/message show, query_db)."""

from __future__ import annotations

DISPLAY_LIMIT = 200_000  # characters of one reply drawn on screen (~1,600 full lines)


class DisplayBudget:
    def __init__(self, limit: int = DISPLAY_LIMIT) -> None:
        self.limit = limit
        self.shown = 0
        self.not_shown = 0

    def reset(self) -> None:
        self.shown = self.not_shown = 0

    def take(self, text: str) -> str:
        """The part of `text` still within the limit (all of it, usually)."""
        room = max(0, self.limit - self.shown)
        shown = text[:room]
        self.shown += len(shown)
        self.not_shown += len(text) - len(shown)
        return shown

    def note(self) -> str:
        """The line to print when the reply ends ("" when everything was shown); resets."""
        if not self.not_shown:
            return ""
        text = f"… {self.not_shown:,} more characters not shown (the whole reply is in the ledger)"
        self.not_shown = 0
        return text
