"""Console construction (light: rich.console only)."""

from __future__ import annotations

import os
import sys
from typing import IO

from rich.console import Console


def make_console(stream: IO[str] | None = None, *, no_color: bool = False) -> Console:
    no_color = no_color or bool(os.environ.get("NO_COLOR"))
    return Console(
        file=stream or sys.stdout,
        no_color=no_color,
        highlight=False,
        soft_wrap=False,
        emoji=False,
        color_system=None if no_color else "auto",
    )
