"""File checkpoints of a turn: record what the tools change, put it back on /undo.

Git-independent: before the first change of a file in a turn, its content is stored
in the ledger (`store.checkpoints`). The file tools name their path, so they are
recorded exactly. A shell command can touch anything, so the project tree's file
sizes and times are compared before and after it: files it created can be removed
again; files it changed or deleted are reported, as their earlier content is not
known (unless a file tool of the same turn recorded it first)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from slop.records import ToolCall
from slop.store.checkpoints import Checkpoints, FileChange
from slop.tools.base import ToolContext, ToolFailure
from slop.tools.paths import resolve

PATH_TOOLS = frozenset({"write_file", "apply_patch"})  # mutating tools whose `path` is the file they change
SHELL_TOOLS = frozenset({"execute_bash"})
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".slop", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".tox", "dist", "build", "target"}
)  # fmt: skip
SCAN_LIMIT = 20_000  # a tree with more files is not scanned around shell commands
MAX_KEPT_BYTES = 4_000_000  # larger files created by a command are recorded without content

Stamp = tuple[int, int]  # (mtime_ns, size)


@dataclass
class TurnFiles:
    """Hooks for one batch of tool calls: `before` runs just before a call, `after` just after."""

    checkpoints: Checkpoints
    session_id: str
    group_id: str
    ctx: ToolContext
    ledger: str = ""  # the ledger's own files (and -wal, -shm) change on every turn: never listed
    _scans: dict[str, dict[str, Stamp] | None] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def before(self, call: ToolCall) -> None:
        if call.name in PATH_TOOLS:
            path = self._path_of(call)
            if path is not None:
                self.checkpoints.record_before(self.session_id, self.group_id, str(path), read_bytes(path))
        elif call.name in SHELL_TOOLS:
            scan = self._scan()
            with self._lock:
                self._scans[call.id] = scan

    def after(self, call: ToolCall) -> None:
        if call.name in PATH_TOOLS:
            path = self._path_of(call)
            if path is not None:
                self.checkpoints.record_after(self.group_id, str(path), read_bytes(path))
        elif call.name in SHELL_TOOLS:
            with self._lock:
                before = self._scans.pop(call.id, None)
            if before is not None:
                self._record_shell_changes(before)

    def _scan(self) -> dict[str, Stamp] | None:
        found = scan_tree(Path(self.ctx.root))
        if found is None or not self.ledger:
            return found
        ledger = os.path.realpath(self.ledger)
        name = os.path.basename(ledger)

        def is_ledger(path: str) -> bool:  # the name test first: realpath costs a system call
            return os.path.basename(path).startswith(name) and os.path.realpath(path).startswith(ledger)

        return {path: stamp for path, stamp in found.items() if not is_ledger(path)}

    def _path_of(self, call: ToolCall) -> Path | None:
        try:
            raw = json.loads(call.arguments).get("path")
            return resolve(self.ctx, raw) if isinstance(raw, str) else None
        except (ValueError, AttributeError, ToolFailure):
            return None  # the tool itself reports the bad argument

    def _record_shell_changes(self, before: dict[str, Stamp]) -> None:
        after = self._scan()
        if after is None:
            return
        for path in sorted(set(before) | set(after)):
            if before.get(path) == after.get(path):
                continue
            content = read_bytes(Path(path)) if path in after else None
            if content is not None and len(content) > MAX_KEPT_BYTES:
                content = b""
            if path not in before:
                self.checkpoints.record_before(self.session_id, self.group_id, path, None)
            else:
                note = "deleted by a command" if path not in after else "changed by a command"
                self.checkpoints.record_before(self.session_id, self.group_id, path, None, note=note)
            self.checkpoints.record_after(self.group_id, path, content)


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError:
        return None


def scan_tree(root: Path) -> dict[str, Stamp] | None:
    """Every regular file under `root` (heavy directories skipped) with its mtime and
    size; None when the tree is too big to scan on every command."""
    found: dict[str, Stamp] = {}
    for path in _walk(root):
        try:
            stat = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        found[path] = (stat.st_mtime_ns, stat.st_size)
        if len(found) > SCAN_LIMIT:
            return None
    return found


def _walk(root: Path) -> Iterator[str]:
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            yield os.path.join(top, name)


# ---- putting files back ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Conflict:
    change: FileChange
    current: bytes | None  # what the file holds now, changed since the turn


def conflicts(changes: list[FileChange]) -> list[Conflict]:
    """Restorable files changed again (outside slop or by a later turn) since the turn."""
    found = []
    for change in changes:
        if not change.restorable:
            continue
        current = read_bytes(Path(change.path))
        if current != change.after:
            found.append(Conflict(change, current))
    return found


def restore(change: FileChange) -> str:
    """Put one file back as it was before the turn; returns what was done."""
    path = Path(change.path)
    if change.before is None:
        try:
            path.unlink()
        except FileNotFoundError:
            return "already gone"
        return "deleted"
    _replace_file(path, change.before)
    return "restored"


def _replace_file(path: Path, data: bytes) -> None:
    """Write `data` over `path` atomically (temp file in the same folder, then rename),
    keeping the file's permission bits. The rename replaces a symlink put in the file's
    place since the turn rather than writing through it."""
    try:
        mode = os.stat(path, follow_symlinks=False).st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".slop-undo")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
