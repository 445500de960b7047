"""Sessions: settings, STATE anchor history, scratchpad with undo, clone, clear, remove."""

from __future__ import annotations

import builtins
import json
from dataclasses import dataclass
from typing import Any

from slop.errors import StoreError
from slop.records import SessionDefaults, SessionInfo
from slop.store.db import Database
from slop.store.sql import ENSURE_SESSION

_SETTING_KEYS = ("provider", "model", "context_mode", "budget", "throttle")
DEFAULT_WINDOW = 5
LARGEST_SETTING = 1_000_000_000  # beyond any real window, budget or pause; keeps SQLite and timers in range


@dataclass(frozen=True, slots=True)
class SessionOverview:
    """One line of `slop logs`."""

    name: str
    messages: int
    tokens: int  # the stored rows' own sizes
    last_activity: str
    first_prompt: str
    billed_tokens: int  # what the providers reported in the usage table
    cost: float | None  # None: the usage table records no cost


class Sessions:
    def __init__(self, db: Database, defaults: SessionDefaults | None = None) -> None:
        self._db = db
        self.defaults = defaults or SessionDefaults()

    def ensure(self, session_id: str) -> None:
        with self._db.transaction():
            self._db.execute(ENSURE_SESSION, (session_id, session_id, self.defaults.context_size))

    def exists(self, session_id: str) -> bool:
        return self._db.scalar("SELECT 1 FROM sessions WHERE id=?", (session_id,)) is not None

    def get(self, session_id: str) -> SessionInfo:
        """The session's settings; defaults when it has never been written."""
        row = self._db.row(
            "SELECT context_size, CAST(scratchpad AS TEXT) AS scratchpad, CAST(active_skills AS TEXT) AS active_skills,"
            " CAST(settings AS TEXT) AS settings FROM sessions WHERE id=?",
            (session_id,),
        )
        d = self.defaults
        if row is None:
            return SessionInfo(
                name=session_id,
                context_size=d.context_size,
                context_mode=d.context_mode,
                budget=d.budget,
                options=dict(d.options),
            )
        settings = _loads_dict(row["settings"])
        return SessionInfo(
            name=session_id,
            context_size=_number(row["context_size"], int, d.context_size, low=0),
            scratchpad=row["scratchpad"] or "",
            active_skills=tuple(_loads_list(row["active_skills"])),
            provider=str(settings.get("provider") or ""),
            model=str(settings.get("model") or ""),
            context_mode=str(settings.get("context_mode") or d.context_mode),
            budget=_number(settings.get("budget"), int, d.budget, low=0),
            throttle=_number(settings.get("throttle"), float, 0.0, low=0.0),
            options={**dict(d.options), **{k: v for k, v in settings.items() if k not in _SETTING_KEYS}},
        )

    def list(self) -> list[dict[str, Any]]:
        """Every session with message count and last activity, most recent first."""
        rows = self._db.query(
            "SELECT s.id AS id, COUNT(m.id) AS messages, MAX(m.created_at) AS last"
            " FROM (SELECT id FROM sessions UNION SELECT DISTINCT session_id FROM messages) s"
            " LEFT JOIN messages m ON m.session_id = s.id GROUP BY s.id ORDER BY last DESC NULLS LAST, s.id"
        )
        return [dict(r) for r in rows]

    def overview(self, limit: int) -> builtins.list[SessionOverview]:
        """The `limit` most recently active sessions with their first prompt, size and
        the usage the providers billed (and its cost, when the usage table records one)."""
        has_cost = any(r[1] == "cost" for r in self._db.query("PRAGMA table_info(usage)"))
        cost = "(SELECT SUM(cost) FROM usage u WHERE u.session_id = s.id)" if has_cost else "NULL"
        rows = self._db.query(
            "SELECT s.id, COUNT(m.id), COALESCE(SUM(m.content_tokens), 0), MAX(m.created_at),"
            " (SELECT content FROM messages f WHERE f.session_id = s.id AND f.role = 'user' ORDER BY f.id LIMIT 1),"
            " (SELECT SUM(total_tokens) FROM usage u WHERE u.session_id = s.id),"
            f" {cost}"
            " FROM (SELECT DISTINCT session_id AS id FROM messages) s JOIN messages m ON m.session_id = s.id"
            " GROUP BY s.id ORDER BY MAX(m.id) DESC LIMIT ?",
            (limit,),
        )
        return [
            SessionOverview(r[0], int(r[1]), int(r[2]), str(r[3] or ""), r[4] or "", int(r[5] or 0), r[6]) for r in rows
        ]

    # ---- settings ------------------------------------------------------------------
    def set_context_size(self, session_id: str, n: int) -> None:
        if n < 0:
            raise StoreError("the window size cannot be negative")
        with self._db.transaction():
            self.ensure(session_id)
            self._db.execute("UPDATE sessions SET context_size=? WHERE id=?", (n, session_id))

    def set_active_skills(self, session_id: str, names: builtins.list[str]) -> None:
        with self._db.transaction():
            self.ensure(session_id)
            self._db.execute("UPDATE sessions SET active_skills=? WHERE id=?", (json.dumps(names), session_id))

    def update_settings(self, session_id: str, **values: Any) -> SessionInfo:
        """Persist per-session settings (provider, model, context_mode, budget, throttle, options)."""
        with self._db.transaction():
            self.ensure(session_id)
            current = _loads_dict(self._db.scalar("SELECT settings FROM sessions WHERE id=?", (session_id,)))
            current.update(values)
            self._db.execute("UPDATE sessions SET settings=? WHERE id=?", (json.dumps(current), session_id))
        return self.get(session_id)

    # ---- STATE ---------------------------------------------------------------------
    def state(self, session_id: str) -> str:
        """The authoritative STATE: the latest one whose group is not dropped from context
        (a dropped group's STATE comes back with /context restore)."""
        return (
            self._db.scalar(
                "SELECT state_blob FROM session_state s WHERE session_id=? AND (group_id IS NULL OR NOT EXISTS"
                " (SELECT 1 FROM messages m WHERE m.session_id=s.session_id AND m.group_id=s.group_id"
                " AND m.status='dropped')) ORDER BY id DESC LIMIT 1",
                (session_id,),
            )
            or ""
        )

    def push_state(self, session_id: str, group_id: str | None, state: str) -> None:
        with self._db.transaction():
            self._db.execute(
                "INSERT INTO session_state(session_id, group_id, state_blob) VALUES (?, ?, ?)",
                (session_id, group_id, state),
            )

    # ---- scratchpad ----------------------------------------------------------------
    def scratchpad(self, session_id: str) -> str:
        return self._db.scalar("SELECT scratchpad FROM sessions WHERE id=?", (session_id,)) or ""

    def set_scratchpad(self, session_id: str, text: str, group_id: str | None = None) -> None:
        """Replace the scratchpad. Within a turn (`group_id`), the value before the
        group's first change is kept so /undo of that group can restore it. An edit by
        the user (no group) is recorded as the latest change (the '' row, re-inserted
        so its id is the newest), so an undo never overwrites it."""
        with self._db.transaction():
            self.ensure(session_id)
            previous = self.scratchpad(session_id)
            if group_id:
                self._db.execute(
                    "INSERT OR IGNORE INTO scratchpad_history(session_id, group_id, previous) VALUES (?, ?, ?)",
                    (session_id, group_id, previous),
                )
            elif text != previous:
                self._db.execute(
                    "INSERT OR REPLACE INTO scratchpad_history(session_id, group_id, previous) VALUES (?, ?, ?)",
                    (session_id, USER_EDIT, previous),
                )
            self._db.execute("UPDATE sessions SET scratchpad=? WHERE id=?", (text, session_id))

    def append_scratchpad(self, session_id: str, text: str, group_id: str | None = None) -> str:
        """Add `text` on a new line at the end; returns the new scratchpad. Read and
        write happen in one write transaction, so appends from several processes (or
        parallel tools) are never lost."""
        with self._db.transaction():
            old = self.scratchpad(session_id)
            # A newline between old and new text, so appended notes do not glue onto the last line.
            new = old + ("\n" if old and not old.endswith("\n") else "") + text
            self.set_scratchpad(session_id, new, group_id)
            return new

    def restore_scratchpad_before(self, session_id: str, group_id: str) -> str:
        """Undo a group's scratchpad changes unless something changed it later.

        Returns "" (the group never changed it), "restored", "kept: edited by you" or
        "kept: changed by group GID" (a later change stays; the group's record goes)."""
        with self._db.transaction():
            mine = self._db.row(
                "SELECT id, previous FROM scratchpad_history WHERE session_id=? AND group_id=?", (session_id, group_id)
            )
            if mine is None:
                return ""
            later = self._db.scalar(
                "SELECT group_id FROM scratchpad_history WHERE session_id=? AND id>? ORDER BY id DESC LIMIT 1",
                (session_id, mine[0]),
            )
            self._db.execute("DELETE FROM scratchpad_history WHERE session_id=? AND group_id=?", (session_id, group_id))
            if later is None:
                self._db.execute("UPDATE sessions SET scratchpad=? WHERE id=?", (mine[1], session_id))
                return "restored"
            return "kept: edited by you" if later == USER_EDIT else f"kept: changed by group {later}"

    # ---- whole-session operations --------------------------------------------------
    def clear(self, session_id: str) -> None:
        """Delete the session's history, STATE, scratchpad and settings."""
        with self._db.transaction():
            for table, column in _SESSION_TABLES:
                self._db.execute(f"DELETE FROM {table} WHERE {column}=?", (session_id,))

    def remove(self, session_id: str) -> None:
        self.clear(session_id)

    def clone(self, source: str, target: str, first_group_id: int) -> None:
        """Copy settings, history, STATE, scratchpad, summaries, cold storage and pins into a
        new session (not the usage).

        Every group gets a fresh id (counting up from `first_group_id`, which the caller
        takes from Messages.new_group_id()), so /undo or /message remove in one session
        never touches the other."""
        if not target.strip():
            raise StoreError("the new session needs a name")
        with self._db.transaction():
            if self.exists(target) or self._db.scalar("SELECT 1 FROM messages WHERE session_id=? LIMIT 1", (target,)):
                raise StoreError(f"session '{target}' already exists; pick another name")
            self.ensure(source)
            self._db.execute(
                "INSERT INTO sessions(id, name, context_size, scratchpad, active_skills, settings)"
                " SELECT ?, ?, context_size, scratchpad, active_skills, settings FROM sessions WHERE id=?",
                (target, target, source),
            )
            gids = self._db.query(
                "SELECT DISTINCT group_id FROM messages WHERE session_id=? AND group_id IS NOT NULL ORDER BY group_id",
                (source,),
            )
            mapping = {row[0]: f"{first_group_id + i:019d}" for i, row in enumerate(gids)}
            ids = self._copy_messages(source, target, mapping)
            self._copy_side_tables(source, target, mapping)
            self._copy_compactions(source, target, mapping, ids)

    def _copy_messages(self, source: str, target: str, mapping: dict[str, str]) -> dict[int, int]:
        """Copy the rows; returns source message id -> the clone's."""
        rows = self._db.query(
            "SELECT m.*, h.status AS hidden_from FROM messages m LEFT JOIN hidden_status h ON h.message_id = m.id"
            " WHERE m.session_id=? ORDER BY m.id",
            (source,),
        )
        ids: dict[int, int] = {}
        for r in rows:
            cur = self._db.execute(
                "INSERT INTO messages(session_id, role, content, tool_call_id, status, created_at, group_id,"
                " parsing_strategy, tokens, reasoning, content_tokens, call_ids)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    target,
                    r["role"],
                    r["content"],
                    r["tool_call_id"],
                    r["status"],
                    r["created_at"],
                    mapping.get(r["group_id"]),
                    r["parsing_strategy"],
                    r["tokens"],
                    r["reasoning"],
                    r["content_tokens"],
                    r["call_ids"],
                ),
            )
            ids[r["id"]] = int(cur.lastrowid or 0)
            if r["hidden_from"] is not None:
                self._db.execute(
                    "INSERT INTO hidden_status(message_id, status) VALUES (?, ?)", (cur.lastrowid, r["hidden_from"])
                )
        return ids

    def _copy_side_tables(self, source: str, target: str, mapping: dict[str, str]) -> None:
        for table, columns in _GROUPED_SIDE_TABLES:
            rows = self._db.query(
                f"SELECT group_id, {columns} FROM {table} WHERE session_id=? ORDER BY rowid", (source,)
            )
            marks = ", ".join("?" * (len(columns.split(",")) + 2))
            for r in rows:
                self._db.execute(
                    f"INSERT INTO {table}(session_id, group_id, {columns}) VALUES ({marks})",
                    (target, mapping.get(r[0], r[0]), *tuple(r)[1:]),
                )

    def _copy_compactions(self, source: str, target: str, gids: dict[str, str], ids: dict[int, int]) -> None:
        """The summaries' records, pointed at the clone's rows: without them a summary in
        the clone is a plain message, and /undo of it would leave what it replaced hidden."""
        for c in self._db.query("SELECT * FROM context_compactions WHERE session_id=? ORDER BY id", (source,)):
            if c["summary_message_id"] not in ids:
                continue
            anchor = c["anchor_message_id"]
            cur = self._db.execute(
                "INSERT INTO context_compactions(session_id, kind, summary_group_id, summary_message_id,"
                " anchor_message_id, tokens_before, tokens_after, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    target,
                    c["kind"],
                    gids.get(c["summary_group_id"], c["summary_group_id"]),
                    ids[c["summary_message_id"]],
                    None if anchor is None else ids.get(anchor),
                    c["tokens_before"],
                    c["tokens_after"],
                    c["created_at"],
                ),
            )
            replaced = self._db.query("SELECT message_id FROM context_compacted_rows WHERE compaction_id=?", (c["id"],))
            self._db.executemany(
                "INSERT INTO context_compacted_rows(compaction_id, message_id) VALUES (?, ?)",
                [(cur.lastrowid, ids[r[0]]) for r in replaced if r[0] in ids],
            )


# Usage is not copied: a clone starts its own bill (the calls were made, and paid, once).
_GROUPED_SIDE_TABLES = (
    ("session_state", "state_blob, created_at"),
    ("scratchpad_history", "previous"),
    # cold storage and pins: an archived group stays recoverable, a pinned one pinned, in the clone
    ("context_archive", "score, prompt_at_drop, reason, archived_at, recoverable_until, recovered_at"),
    ("context_pins", "pinned_at"),
)
USER_EDIT = ""  # scratchpad_history.group_id of the user's own latest edit


_SESSION_TABLES = (
    ("messages", "session_id"),
    ("usage", "session_id"),
    ("session_state", "session_id"),
    ("scratchpad_history", "session_id"),
    ("sessions", "id"),
)


# A row edited by hand (garbage JSON, text where a number belongs) reads as the
# defaults instead of failing every command that looks at the session.
_UNREADABLE = (TypeError, ValueError, OverflowError, RecursionError)


def _loads_dict(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except _UNREADABLE:
        return {}
    return value if isinstance(value, dict) else {}


def _loads_list(text: str | None) -> list[str]:
    try:
        value = json.loads(text or "[]")
    except _UNREADABLE:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def _number(value: Any, kind: type[Any], default: Any, *, low: float) -> Any:
    """A stored number, or `default` when it is missing, unreadable or out of range."""
    if value is None or isinstance(value, bool):
        return default
    try:
        number = kind(value)
    except _UNREADABLE:
        return default
    return number if low <= number <= LARGEST_SETTING else default
