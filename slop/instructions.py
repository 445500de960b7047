"""Project instruction files (AGENTS.md and its peers' names) read into their own layer.

Looked for in every folder from the git top level down to the working directory (the
nearest last, so it has the final word), after a user-level `$SLOP_HOME/AGENTS.md`.
Read again only when a file's mtime or size changes, so an edit is seen on the next
model call without a restart and an unchanged file costs one stat per call."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

INSTRUCTION_NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", ".github/copilot-instructions.md")
USER_FILE = "AGENTS.md"
MAX_FILE_BYTES = 32_000  # one file's share; the rest stays on disk for read_file
MAX_TOTAL_BYTES = 96_000  # all files together: instructions must not crowd out the work


@dataclass(frozen=True, slots=True)
class InstructionFile:
    path: Path
    label: str  # how the layer names it: relative to the root, or ~slop/AGENTS.md
    text: str
    note: str = ""  # why the text is cut, if it is


@dataclass
class InstructionFiles:
    root: Path  # the git top level (or project root)
    cwd: Path  # the working directory; folders between root and cwd are searched too
    home: Path | None = None  # $SLOP_HOME, for the user-level file
    _cache: dict[Path, tuple[tuple[int, int], InstructionFile]] = field(default_factory=dict, repr=False)

    def candidates(self) -> list[tuple[Path, str]]:
        found: list[tuple[Path, str]] = []
        if self.home is not None:
            found.append((self.home / USER_FILE, f"$SLOP_HOME/{USER_FILE}"))
        for folder in self.folders():
            for name in INSTRUCTION_NAMES:
                path = folder / name
                found.append((path, path.relative_to(self.root).as_posix()))
        return found

    def folders(self) -> list[Path]:
        """The root, then each folder down to the working directory (if it is inside the root)."""
        root, cwd = self.root.resolve(), self.cwd.resolve()
        if cwd != root and root not in cwd.parents:
            return [root]
        chain = [cwd, *[p for p in cwd.parents if root in p.parents or p == root]]
        return list(reversed(chain))

    def load(self) -> list[InstructionFile]:
        files: list[InstructionFile] = []
        room = MAX_TOTAL_BYTES
        for path, label in self.candidates():
            loaded = self._read(path, label)
            if loaded is None or not loaded.text.strip():
                continue
            if len(loaded.text) > room:
                cut = loaded.text[: max(0, room)]
                loaded = InstructionFile(path, label, cut, over_cap_note(label, len(cut), MAX_TOTAL_BYTES, total=True))
            room -= len(loaded.text)
            files.append(loaded)
        return files

    def text(self) -> str:
        """The layer's text: each file under its own heading, nearest last; '' when none."""
        files = self.load()
        if not files:
            return ""
        parts = ["## Project Instructions", "Instructions from the user's instruction files; follow them."]
        for f in files:
            parts.append(f"### {f.label}\n{f.text.strip()}" + (f"\n{f.note}" if f.note else ""))
        return "\n\n".join(parts)

    def _read(self, path: Path, label: str) -> InstructionFile | None:
        try:
            info = path.stat()
        except OSError:
            self._cache.pop(path, None)
            return None
        if not path.is_file():
            return None
        key = (info.st_mtime_ns, info.st_size)
        cached = self._cache.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        loaded = read_capped(path, label)
        if loaded is not None:
            self._cache[path] = (key, loaded)
        return loaded


def read_capped(path: Path, label: str) -> InstructionFile | None:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    text = raw[:MAX_FILE_BYTES].decode("utf-8", errors="replace")
    if len(raw) <= MAX_FILE_BYTES:
        return InstructionFile(path, label, text)
    size = path.stat().st_size
    return InstructionFile(path, label, text, over_cap_note(label, MAX_FILE_BYTES, size))


def over_cap_note(label: str, kept: int, limit: int, *, total: bool = False) -> str:
    if total:
        return f"[{label}: cut, the instruction files together exceed {limit} bytes; read the rest with read_file]"
    return f"[{label}: only the first {kept} of {limit} bytes are shown; read the rest with read_file]"
