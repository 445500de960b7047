"""`slop logs`: the project's recent sessions, newest first, like `llm logs`: when, how big,
what it cost and the first prompt, so the one to resume is easy to find."""

from __future__ import annotations

import shutil
import sys
from typing import TextIO

from slop.boot import resolve_paths
from slop.settings import Settings
from slop.store import Store
from slop.store.sessions import SessionOverview

DEFAULT_COUNT = 20


def run_logs(settings: Settings, count: int = DEFAULT_COUNT, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    _root, db_path, _home = resolve_paths(settings)
    if not db_path.exists():  # a look must not create a ledger
        print(f"no ledger at {db_path}: nothing logged yet in this project", file=out)
        return 0
    store = Store.open(str(db_path))
    try:
        sessions = store.sessions.overview(count)
    finally:
        store.close()
    if not sessions:
        print(f"no sessions with messages in {db_path}", file=out)
        return 0
    width = shutil.get_terminal_size((100, 24)).columns
    print(f"{len(sessions)} most recent session(s) in {db_path}:", file=out)
    for entry in sessions:
        print(format_line(entry, width), file=out)
    return 0


def format_line(entry: SessionOverview, width: int) -> str:
    cost = f" ${entry.cost:.4f}" if entry.cost is not None else ""
    billed = f"{entry.billed_tokens:,} billed tok{cost}" if entry.billed_tokens or cost else "no usage"
    head = (
        f"{entry.last_activity[:16]:<16}  {entry.name:<14} {entry.messages:>5} msg {entry.tokens:>9,} tok  {billed:<22}"
    )
    # One line, and no control characters: a prompt may hold pasted terminal escapes.
    prompt = " ".join("".join(c if c.isprintable() else " " for c in entry.first_prompt).split()) or "(no prompt)"
    room = max(20, width - len(head) - 2)
    if len(prompt) > room:
        prompt = prompt[: room - 1] + "…"
    return f"{head}  {prompt}"
