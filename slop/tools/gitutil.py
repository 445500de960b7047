"""Tiny git helpers for the search and listing tools."""

from __future__ import annotations

import subprocess
from pathlib import Path

from slop.tools.childenv import child_environment

GIT_CHECK_TIMEOUT = 10.0


def in_work_tree(directory: Path) -> bool:
    """Whether `directory` is inside a git work tree (False when git is missing).

    Inside `.git` itself git answers "false", which is what we want there too."""
    try:
        done = subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "--is-inside-work-tree"],
            capture_output=True,
            text=True,
            timeout=GIT_CHECK_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env=child_environment(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip() == "true"
