"""The SQLite connection: WAL, foreign keys, busy timeout, one lock, explicit transactions."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from slop.errors import StoreError

BUSY_TIMEOUT_MS = 5000


class Database:
    """One connection shared by the REPL thread and tool worker threads.

    SQLite serialises access anyway; the RLock keeps a transaction opened by one
    thread from interleaving with statements of another."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            if path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
            )
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the ledger at {path}: {exc}. Check the path or pass --db PATH.") from exc
        self._conn.row_factory = sqlite3.Row
        self.lock = threading.RLock()
        self._depth = 0
        try:
            self.execute("PRAGMA journal_mode=WAL")
        except StoreError as exc:  # not a database, or not readable: say which file and what to do
            self._conn.close()
            raise StoreError(
                f"cannot use {path} as the ledger ({exc.__cause__ or exc}); pass --db with another path"
            ) from None
        self.execute("PRAGMA synchronous=NORMAL")
        self.execute("PRAGMA foreign_keys=ON")
        self.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")

    def close(self) -> None:
        with self.lock:
            self._conn.close()

    def execute(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> sqlite3.Cursor:
        with self.lock:
            try:
                return self._conn.execute(sql, params)
            except sqlite3.Error as exc:
                raise StoreError(f"ledger error: {exc}") from exc

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        with self.lock:
            try:
                self._conn.executemany(sql, rows)
            except sqlite3.Error as exc:
                raise StoreError(f"ledger error: {exc}") from exc

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        return self.execute(sql, params).fetchall()

    def tuples(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows as plain tuples: much cheaper than sqlite3.Row for bulk loads."""
        with self.lock:
            cursor = self._conn.cursor()
            cursor.row_factory = None
            try:
                return cursor.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"ledger error: {exc}") from exc
            finally:
                cursor.close()

    def scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        row = self.execute(sql, params).fetchone()
        return None if row is None else row[0]

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One logical step = one transaction. Nested calls join the outer one."""
        with self.lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self._conn.rollback()
                raise
            self._depth = 0
            try:
                self._conn.commit()
            except sqlite3.Error as exc:
                raise StoreError(f"ledger commit failed: {exc}") from exc

    def executescript_in_transaction(self, script: str) -> None:
        """Run several DDL statements inside the current transaction."""
        for statement in _split_statements(script):
            self.execute(statement)


def _split_statements(script: str) -> list[str]:
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
