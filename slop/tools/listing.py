"""list_directory: a sorted, depth-limited, capped view of a directory tree.

Inside git it lists what git knows (tracked plus untracked-but-not-ignored
files), so build outputs and virtualenvs do not drown the listing; elsewhere it
walks the disk, skipping the usual heavy directories.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import Any

from slop.records import ToolSpec
from slop.tools.base import ErrorCode, Tool, ToolContext, ToolFailure, ToolOutput
from slop.tools.childenv import child_environment
from slop.tools.gitutil import in_work_tree
from slop.tools.output import plural
from slop.tools.paths import display, resolve
from slop.tools.safefs import fd_cwd, open_dir

MAX_ENTRIES = 1000
DEFAULT_DEPTH = 2
SKIP_DIRS = frozenset({".git", "node_modules", ".slop", "__pycache__", ".venv"})

Entry = tuple[str, bool]  # (path relative to the listed directory, is a directory)


def _git_files(directory: Path, ctx: ToolContext) -> list[str]:
    """Tracked and untracked-not-ignored files under `directory`, relative to it."""
    done = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."],
        cwd=directory,
        capture_output=True,
        timeout=ctx.shell_timeout,
        stdin=subprocess.DEVNULL,
        env=child_environment(),
    )
    if done.returncode != 0:
        raise ToolFailure(ErrorCode.INTERNAL, f"git ls-files failed: {done.stderr.decode(errors='replace').strip()}")
    names = done.stdout.decode("utf-8", "replace").split("\0")
    return sorted({n for n in names if n})


def _git_entries(directory: Path, dir_fd: int, depth: int, ctx: ToolContext) -> set[Entry]:
    entries: set[Entry] = set()
    for name in _git_files(fd_cwd(dir_fd, directory), ctx):
        parts = name.split("/")
        for level in range(1, min(depth, len(parts)) + 1):
            rel = "/".join(parts[:level])
            if level < len(parts):
                entries.add((rel, True))
                continue
            try:  # skip tracked files deleted from disk; a submodule is a directory
                info = os.stat(rel, dir_fd=dir_fd, follow_symlinks=False)
            except OSError:
                continue
            entries.add((rel, stat.S_ISDIR(info.st_mode)))
    return entries


def _walk_entries(dir_fd: int, depth: int) -> set[Entry]:
    """os.fwalk from the safely opened directory: each level is opened below the one
    before without following symlinks, so a swapped directory cannot lead elsewhere."""
    entries: set[Entry] = set()
    for current, dirs, files, _fd in os.fwalk(".", dir_fd=dir_fd):
        rel_dir = Path(current)
        level = len(rel_dir.parts) + 1  # depth of the entries found here
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in dirs:
            entries.add(((rel_dir / name).as_posix(), True))
        for name in files:
            entries.add(((rel_dir / name).as_posix(), False))
        if level >= depth:
            dirs[:] = []  # do not descend further
    return entries


def _sort_key(entry: Entry) -> tuple[str, ...]:
    return tuple(entry[0].split("/"))


def list_directory(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    raw = args.get("path") or "."
    depth = args.get("depth") or DEFAULT_DEPTH
    if depth < 1:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "depth must be 1 or more")
    directory = resolve(ctx, raw)
    if not directory.exists():
        raise ToolFailure(ErrorCode.NOT_FOUND, f"no such directory: {raw}")
    if not directory.is_dir():
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{raw} is a file; use read_file to read it")
    use_git = in_work_tree(directory)
    with open_dir(ctx, directory) as dir_fd:
        entries = _git_entries(directory, dir_fd, depth, ctx) if use_git else _walk_entries(dir_fd, depth)
    return ToolOutput(_format(sorted(entries, key=_sort_key), display(ctx, directory), depth, use_git))


def _format(entries: list[Entry], shown: str, depth: int, use_git: bool) -> str:
    if not entries:
        return f"{shown}: empty" + (" (no tracked or untracked files)" if use_git else "")
    prefix = "" if shown == "." else shown.rstrip("/") + "/"
    lines = [
        f"Directory: {prefix}{rel}/" if is_dir else f"File: {prefix}{rel}" for rel, is_dir in entries[:MAX_ENTRIES]
    ]
    if len(entries) > MAX_ENTRIES:
        lines.append(
            f"[... {len(entries) - MAX_ENTRIES} more entries not shown; list a subdirectory or use a smaller depth]"
        )
    source = "from git, ignored files left out" if use_git else "from disk"
    header = f"Listing of {shown} (depth {depth}, {source}; {plural(len(entries), 'entry', 'entries')}):"
    return "\n".join([header, *lines])


LIST_DIRECTORY = Tool(
    spec=ToolSpec(
        name="list_directory",
        description=(
            "List files and directories, sorted, as 'Directory: path/' and 'File: path' lines with paths "
            "relative to the project root. In a git repository ignored files are left out. "
            f"depth 1 = direct children (default {DEFAULT_DEPTH}); at most {MAX_ENTRIES} entries."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory to list (default: project root)."},
                "depth": {"type": "integer", "description": f"How many levels to show (default {DEFAULT_DEPTH})."},
            },
            "required": [],
        },
    ),
    run=list_directory,
)
