"""Messages and groups: append, window, drop/restore, delete, list."""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from slop.errors import StoreError
from slop.records import GroupSummary, Message, NewMessage, Role, Status
from slop.store.db import Database
from slop.store.row_cache import RowCache
from slop.store.sql import BY_GROUP, ENSURE_SESSION, HIDDEN, MESSAGE_COLUMNS, VISIBLE, to_messages
from slop.textsafe import has_surrogates, scrub

TokenCounter = Callable[[str], int]


class Messages:
    def __init__(self, db: Database, count_tokens: TokenCounter, default_window: int = 5) -> None:
        self._db = db
        self._count = count_tokens
        self._window = default_window  # of a session this creates
        self._records = RowCache()  # records of committed rows, reused by the next read

    # ---- writing -------------------------------------------------------------------
    def new_group_id(self) -> str:
        """A group id unique across sessions and increasing in time.

        Nanosecond clock, zero-padded so text order equals time order, and bumped past
        the largest id in the ledger so clock steps back or fast clones never collide."""
        with self._db.transaction():
            latest = self._db.scalar("SELECT MAX(group_id) FROM messages")
            now = time.time_ns()
            if latest is not None and str(latest).isdigit() and int(latest) >= now:
                now = int(latest) + 1
            return f"{now:019d}"

    def append(self, session_id: str, group_id: str | None, message: NewMessage) -> int:
        """Append one message in its own transaction; tokens are counted here, once."""
        return self.append_many(session_id, group_id, [message])[0]

    def append_many(self, session_id: str, group_id: str | None, messages: Iterable[NewMessage]) -> list[int]:
        """Append several messages atomically: all of them or none."""
        ids: list[int] = []
        with self._db.transaction():
            self._db.execute(ENSURE_SESSION, (session_id, session_id, self._window))
            for msg in messages:
                if msg.role not in Role.ALL:
                    raise StoreError(f"invalid role {msg.role!r}")
                msg = _storable(msg)
                own = self._count(msg.content)
                tokens = msg.tokens if msg.tokens is not None else own
                cur = self._db.execute(
                    "INSERT INTO messages(session_id, role, content, status, group_id, tool_call_id,"
                    " parsing_strategy, tokens, reasoning, content_tokens, call_ids, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%d %H:%M:%f', 'now'))",
                    (
                        session_id,
                        msg.role,
                        msg.content,
                        msg.status,
                        group_id,
                        msg.tool_call_id,
                        msg.parsing_strategy,
                        tokens,
                        msg.reasoning,
                        own,
                        msg.call_ids,
                    ),
                )
                ids.append(int(cur.lastrowid or 0))
                if msg.call_ids:
                    self._db.executemany(
                        "INSERT OR IGNORE INTO tool_call_ids(call_id) VALUES (?)",
                        [(cid,) for cid in msg.call_ids.split("\n") if cid],
                    )
        return ids

    def reserve_call_ids(self, proposed: Sequence[str]) -> list[str]:
        """The ids to store a reply's tool calls under: the provider's own where they are
        new to this ledger (providers may want them echoed), a fresh one where the server
        sent none or one already used. Call it in the transaction that appends the row
        (append_many registers the ids), so two processes cannot pick the same id."""
        chosen: list[str] = []
        with self._db.transaction():
            for cid in proposed:
                while not cid or cid in chosen or self._call_id_used(cid):
                    cid = "call_" + secrets.token_hex(12)
                chosen.append(cid)
        return chosen

    def _call_id_used(self, call_id: str) -> bool:
        return self._db.scalar("SELECT 1 FROM tool_call_ids WHERE call_id=?", (call_id,)) is not None

    # ---- reading -------------------------------------------------------------------
    def get(self, message_id: int) -> Message | None:
        rows = self._db.tuples(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id=?", (message_id,))
        return to_messages(rows)[0] if rows else None

    def last_group_ids(self, session_id: str, n: int, *, include_hidden: bool = False) -> list[str]:
        """The session's last `n` group ids, newest first (n <= 0: all of them)."""
        hidden = "" if include_hidden else f" AND {VISIBLE}"
        limit = " LIMIT ?" if n > 0 else ""
        params: tuple[object, ...] = (session_id, n) if n > 0 else (session_id,)
        rows = self._db.query(
            f"SELECT DISTINCT group_id FROM messages {BY_GROUP}"
            f" WHERE session_id=? AND group_id IS NOT NULL{hidden} ORDER BY group_id DESC{limit}",
            params,
        )
        return [r[0] for r in rows]

    def window(self, session_id: str, n: int) -> list[Message]:
        """Messages of the last `n` visible groups (n <= 0: full history), oldest first.

        Rows without a group are always included. Cost follows the window, not the
        history: both queries walk the (session_id, group_id) index from the end."""
        if n <= 0:
            rows = self._db.tuples(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id=? AND {VISIBLE} ORDER BY id",
                (session_id,),
            )
            return to_messages(rows)
        # One statement: the N newest visible group ids bound the range, then the rows of
        # that range (hidden rows excluded) and the rows without a group, in order. Two
        # index ranges joined by UNION ALL, not `... OR group_id IS NULL`: with the OR (and
        # with ANALYZE statistics) SQLite walks the whole session, so the cost grew with
        # the session's length instead of the window's.
        rows = self._db.tuples(
            f"WITH g AS (SELECT DISTINCT group_id FROM messages {BY_GROUP} WHERE session_id=?1"
            f" AND group_id IS NOT NULL AND {VISIBLE} ORDER BY group_id DESC LIMIT ?2)"
            f" SELECT {MESSAGE_COLUMNS} FROM messages {BY_GROUP} WHERE session_id=?1"
            f" AND group_id >= (SELECT MIN(group_id) FROM g) AND {VISIBLE}"
            f" UNION ALL SELECT {MESSAGE_COLUMNS} FROM messages {BY_GROUP} WHERE session_id=?1"
            f" AND group_id IS NULL AND {VISIBLE} ORDER BY 1",
            (session_id, n),
        )
        return to_messages(rows)

    def messages_of_groups(
        self, session_id: str, group_ids: list[str], *, include_ungrouped: bool = False, include_hidden: bool = False
    ) -> list[Message]:
        hidden = "" if include_hidden else f" AND {VISIBLE}"
        marks = ",".join("?" * len(group_ids))
        where = f"group_id IN ({marks})" if group_ids else "0"

        def rows(columns: str) -> list[tuple[Any, ...]]:
            select = f"SELECT {columns} FROM messages {BY_GROUP} WHERE session_id=?1 AND"
            sql = f"{select} {where}{hidden}"
            if include_ungrouped:  # a second index range, not an OR that walks the session
                sql += f" UNION ALL {select} group_id IS NULL{hidden}"
            return self._db.tuples(f"{sql} ORDER BY 1", (session_id, *group_ids))

        return self._records.read(self._db, group_ids, rows)  # records of rows read before are reused

    def group(self, session_id: str, group_id: str) -> list[Message]:
        """Every message of a group of this session, hidden ones included."""
        return self.messages_of_groups(session_id, [group_id], include_hidden=True)

    def group_exists(self, session_id: str, group_id: str) -> bool:
        return (
            self._db.scalar("SELECT 1 FROM messages WHERE session_id=? AND group_id=? LIMIT 1", (session_id, group_id))
            is not None
        )

    def group_owner(self, group_id: str) -> str | None:
        owner = self._db.scalar("SELECT session_id FROM messages WHERE group_id=? LIMIT 1", (group_id,))
        return None if owner is None else str(owner)

    def last_group_id(self, session_id: str) -> str | None:
        ids = self.last_group_ids(session_id, 1, include_hidden=True)
        return ids[0] if ids else None

    def list_groups(self, session_id: str, n: int) -> list[GroupSummary]:
        """Summaries of the last `n` groups, newest first."""
        gids = self.last_group_ids(session_id, n, include_hidden=True)
        if not gids:
            return []
        marks = ",".join("?" * len(gids))
        rows = self._db.query(
            "SELECT group_id,"
            " (SELECT CAST(content AS TEXT) FROM messages u WHERE u.session_id=m.session_id"
            "   AND u.group_id=m.group_id AND u.role='user' ORDER BY id LIMIT 1) AS prompt,"
            " MAX(CASE WHEN role='assistant' THEN CAST(tokens AS INTEGER) ELSE 0 END) AS tokens, COUNT(*) AS n,"
            " MIN(status) AS any_status, MAX(status) AS max_status,"
            " SUM(status IN " + HIDDEN + ") AS hidden, MIN(created_at) AS created"
            f" FROM messages m WHERE session_id=? AND group_id IN ({marks}) GROUP BY group_id ORDER BY group_id DESC",
            (session_id, *gids),
        )
        out = []
        for r in rows:
            status = _group_status(r)
            out.append(GroupSummary(r["group_id"], r["prompt"] or "", r["tokens"] or 0, r["n"], status, r["created"]))
        return out

    def count(self, session_id: str) -> int:
        return int(self._db.scalar("SELECT COUNT(*) FROM messages WHERE session_id=?", (session_id,)) or 0)

    def latest_failed_request(self, session_id: str) -> tuple[str, str] | None:
        """(group id, text) of the latest request whose model call failed, if any."""
        row = self._db.execute(
            "SELECT group_id, content FROM messages WHERE session_id=? AND role='user' AND status=?"
            " ORDER BY id DESC LIMIT 1",
            (session_id, Status.FAILED),
        ).fetchone()
        return (str(row[0]), str(row[1])) if row and row[0] else None

    def last_user_text(self, session_id: str) -> str:
        """The prompt that opened the session's latest visible group (index lookups only)."""
        gids = self.last_group_ids(session_id, 1)
        if not gids:
            return ""
        row = self._db.row(
            f"SELECT CAST(content AS TEXT) FROM messages {BY_GROUP} WHERE session_id=? AND group_id=? AND role='user'"
            " ORDER BY id LIMIT 1",
            (session_id, gids[0]),
        )
        return row[0] if row else ""

    def recent(self, session_id: str, limit: int) -> list[Message]:
        rows = self._db.tuples(
            f"SELECT {MESSAGE_COLUMNS} FROM (SELECT * FROM messages WHERE session_id=? ORDER BY id DESC LIMIT ?)"
            " ORDER BY id",
            (session_id, limit),
        )
        return to_messages(rows)

    # ---- changing groups -----------------------------------------------------------
    def set_group_status(self, session_id: str, group_id: str, status: str, *, only_from: str | None = None) -> int:
        """Mark a whole group (e.g. dropped); returns how many rows changed."""
        with self._db.transaction():
            if status in Status.HIDDEN:
                # Remember each row's own status so a restore gives back exactly what was there.
                self._db.execute(
                    "INSERT OR IGNORE INTO hidden_status(message_id, status) SELECT id, status FROM messages"
                    f" WHERE session_id=? AND group_id=? AND {VISIBLE}",
                    (session_id, group_id),
                )
                cur = self._db.execute(
                    f"UPDATE messages SET status=? WHERE session_id=? AND group_id=? AND {VISIBLE}",
                    (status, session_id, group_id),
                )
                return cur.rowcount
            cur = self._db.execute(
                "UPDATE messages SET status=COALESCE("
                "(SELECT h.status FROM hidden_status h WHERE h.message_id = messages.id), 'completed')"
                " WHERE session_id=? AND group_id=? AND status=?",
                (session_id, group_id, only_from or Status.DROPPED),
            )
            self._db.execute(
                "DELETE FROM hidden_status WHERE message_id IN"
                " (SELECT id FROM messages WHERE session_id=? AND group_id=?)",
                (session_id, group_id),
            )
            return cur.rowcount

    def delete_group(self, session_id: str, group_id: str) -> int:
        """Hard-delete a group of this session with what it changed (STATE rows, usage
        stays as billing history). Other sessions are never touched."""
        with self._db.transaction():
            cur = self._db.execute("DELETE FROM messages WHERE session_id=? AND group_id=?", (session_id, group_id))
            self._db.execute("DELETE FROM session_state WHERE session_id=? AND group_id=?", (session_id, group_id))
            return cur.rowcount

    def last_id(self) -> int:
        return int(self._db.scalar("SELECT MAX(id) FROM messages") or 0)

    def recount(self, after_id: int) -> int:
        """Count again the rows stored after `after_id` (counted with an estimate while the
        tokenizer was loading); a row's `tokens` follows unless the API reported it."""
        rows = self._db.query("SELECT id, content, tokens, content_tokens FROM messages WHERE id > ?", (after_id,))
        with self._db.transaction():
            for row in rows:
                own = self._count(row["content"] or "")
                tokens = own if row["tokens"] == row["content_tokens"] else row["tokens"]
                self._db.execute("UPDATE messages SET content_tokens=?, tokens=? WHERE id=?", (own, tokens, row["id"]))
        return len(rows)

    def first_prompt(self, session_id: str) -> str:
        """The session's first user message ("" when none): how people recognise a session."""
        value = self._db.scalar(
            "SELECT content FROM messages WHERE session_id=? AND role='user' ORDER BY id LIMIT 1", (session_id,)
        )
        return str(value or "")


def _storable(msg: NewMessage) -> NewMessage:
    """The message with every text field UTF-8-encodable (see slop.textsafe): SQLite
    cannot store a lone surrogate, and a reply must not be lost for one character."""
    fields = (msg.content, msg.tool_call_id, msg.reasoning, msg.call_ids)
    if not any(text and has_surrogates(text) for text in fields):
        return msg
    return replace(
        msg,
        content=scrub(msg.content),
        tool_call_id=scrub(msg.tool_call_id) if msg.tool_call_id else msg.tool_call_id,
        reasoning=scrub(msg.reasoning) if msg.reasoning else msg.reasoning,
        call_ids=scrub(msg.call_ids) if msg.call_ids else msg.call_ids,
    )


def _group_status(row: sqlite3.Row) -> str:
    if row["hidden"] and row["hidden"] == row["n"]:
        return str(row["max_status"])
    return "active"
