"""A huge reply is drawn up to DISPLAY_LIMIT characters; the rest is counted, noted on
screen, and kept whole in the ledger (the batch/table tests check the ledger side)."""

from __future__ import annotations

import io

from rich.console import Console

from slop.ui.displaycap import DISPLAY_LIMIT
from slop.ui.render import Renderer


def test_a_reply_past_the_display_limit_is_noted_not_drawn() -> None:
    out = io.StringIO()
    renderer = Renderer(Console(file=out, width=100, force_terminal=False, color_system=None))
    reply = "y" * (DISPLAY_LIMIT + 800_000)
    renderer.assistant_start()
    for start in range(0, len(reply), 131_072):
        renderer.assistant_delta(reply[start : start + 131_072])
    renderer.assistant_end(42)
    screen = out.getvalue()
    assert "… 800,000 more characters not shown (the whole reply is in the ledger)" in screen
    assert DISPLAY_LIMIT <= screen.count("y") < DISPLAY_LIMIT + 1000
    assert "42 tokens" in screen
    renderer.assistant_start()  # the next reply starts with a fresh budget
    renderer.assistant_delta("short answer")
    renderer.assistant_end(None)
    assert "short answer" in out.getvalue()[len(screen) :]
    assert "more characters not shown" not in out.getvalue()[len(screen) :]
