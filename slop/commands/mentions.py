"""`@path` mentions in a message: the file (or a directory listing) goes with the message.

The file tools do the work (read_file, list_directory), so a mention is confined to the
project root and --allow-path directories exactly as the model's own reads are, binary
files are refused the same way and the same caps apply. Attachments follow the user's
text inside <attachment> tags and are stored with the message; assembly cuts a big one
with the query_db page hint (context/assemble.py), so nothing is lost from the ledger.

A mention that names no existing path (an e-mail address, `@dataclass`) stays plain text."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from slop.commands.base import CommandContext
from slop.errors import CommandError
from slop.records import ATTACHMENT_OPEN
from slop.tools.base import ToolContext, ToolFailure
from slop.tools.files import read_file
from slop.tools.listing import SKIP_DIRS, list_directory
from slop.tools.paths import display, resolve

# `@` at the start or after whitespace/an opening bracket; the path runs to the next blank.
MENTION = re.compile(r"(?:(?<=^)|(?<=[\s(\[{'\"]))@([^\s@]+)")
TRAILING = ".,;:!?)]}'\""  # punctuation that ends a sentence, not a path
MAX_MENTIONS = 20


@dataclass(frozen=True, slots=True)
class Attachment:
    path: str  # as shown to the model (relative to the root when inside it)
    kind: str  # "file" | "directory"
    body: str

    def block(self) -> str:
        return f'{ATTACHMENT_OPEN}path="{self.path}" kind="{self.kind}">\n{self.body}\n</attachment>'


def mentioned_paths(text: str) -> list[str]:
    seen: list[str] = []
    for raw in MENTION.findall(text):
        if raw not in seen:
            seen.append(raw)
    return seen


def attach_mentions(ctx: CommandContext, text: str) -> tuple[str, list[Attachment]]:
    """`text` with an <attachment> block per mentioned existing path; raises CommandError
    (nothing sent) for a mention outside the allowed roots or an unreadable file."""
    tool_ctx = ToolContext(
        root=ctx.root,
        session_id=ctx.session,
        store=ctx.store,  # type: ignore[arg-type]  # the ledger's ToolStore side; read tools do not write it
        allowed_paths=tuple(Path(p).resolve() for p in ctx.settings.allow_paths),
    )
    attachments: list[Attachment] = []
    for raw in mentioned_paths(text)[:MAX_MENTIONS]:
        path = _existing(ctx.root, raw)
        if path is None:
            continue
        attachments.append(_attach(tool_ctx, path))
    if not attachments:
        return text, []
    return "\n\n".join([text, *(a.block() for a in attachments)]), attachments


def _existing(root: Path, raw: str) -> str | None:
    """The mention as an existing path, without sentence punctuation it may carry."""
    for candidate in (raw, raw.rstrip(TRAILING)):
        if not candidate:
            continue
        full = Path(os.path.expanduser(candidate))
        full = full if full.is_absolute() else root / full
        if full.exists():
            return candidate
    return None


def _attach(tool_ctx: ToolContext, raw: str) -> Attachment:
    try:
        real = resolve(tool_ctx, raw)  # the file tools' confinement, before anything is read
        if real.is_dir():
            listing = list_directory({"path": raw}, tool_ctx).text
            return Attachment(display(tool_ctx, real).rstrip("/") + "/", "directory", listing)
        return Attachment(display(tool_ctx, real), "file", read_file({"path": raw}, tool_ctx).text)
    except ToolFailure as exc:
        raise CommandError(f"@{raw}: {exc} (nothing sent)") from None


MAX_COMPLETIONS = 50


def complete_mention(root: Path, allowed: tuple[Path, ...], partial: str) -> list[str]:
    """Paths that `@partial` may complete to: entries of its folder starting with its last
    part, folders with a trailing slash, hidden ones only when asked for, never outside the
    root or the allowed directories."""
    folder_part, _, stem = partial.rpartition("/")
    base = Path(os.path.expanduser(folder_part or ".")) if partial.startswith(("/", "~")) else root / folder_part
    try:
        real = base.resolve()
        bases = [root.resolve(), *(p.resolve() for p in allowed)]
        if not any(real == b or b in real.parents for b in bases):
            return []
        entries = sorted(real.iterdir(), key=lambda p: p.name)
    except OSError:
        return []
    prefix = f"{folder_part}/" if folder_part or partial.startswith("/") else ""
    found = []
    for entry in entries:
        name = entry.name
        if not name.startswith(stem) or (name.startswith(".") and not stem.startswith(".")) or name in SKIP_DIRS:
            continue
        found.append(prefix + name + ("/" if entry.is_dir() else ""))
        if len(found) >= MAX_COMPLETIONS:
            break
    return found
