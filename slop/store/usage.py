"""Provider-reported token usage: the billed truth, per call."""

from __future__ import annotations

from slop.records import Usage
from slop.store.db import Database
from slop.store.session_sql import ENSURE_SESSION


class UsageLog:
    def __init__(self, db: Database, default_window: int = 5) -> None:
        self._db = db
        self._window = default_window  # of a session this creates

    def record(self, session_id: str, group_id: str | None, usage: Usage) -> None:
        with self._db.transaction():
            self._db.execute(ENSURE_SESSION, (session_id, session_id, self._window))
            self._db.execute(
                "INSERT INTO usage(session_id, model, prompt_tokens, completion_tokens, total_tokens, group_id)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, usage.model, usage.prompt_tokens, usage.completion_tokens, usage.total_tokens, group_id),
            )

    def by_model(self, session_id: str) -> list[Usage]:
        rows = self._db.query(
            "SELECT model, SUM(prompt_tokens), SUM(completion_tokens), SUM(total_tokens) FROM usage"
            " WHERE session_id=? GROUP BY model ORDER BY model",
            (session_id,),
        )
        return [Usage(int(r[1] or 0), int(r[2] or 0), int(r[3] or 0), r[0] or "") for r in rows]

    def session_total(self, session_id: str) -> int:
        return int(self._db.scalar("SELECT SUM(total_tokens) FROM usage WHERE session_id=?", (session_id,)) or 0)

    def last(self, session_id: str) -> Usage | None:
        row = self._db.row(
            "SELECT model, CAST(prompt_tokens AS INTEGER), CAST(completion_tokens AS INTEGER),"
            " CAST(total_tokens AS INTEGER) FROM usage WHERE session_id=? ORDER BY id DESC LIMIT 1",
            (session_id,),
        )
        return None if row is None else Usage(row[1] or 0, row[2] or 0, row[3] or 0, row[0] or "")
