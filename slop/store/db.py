"""The SQLite connection: WAL, foreign keys, busy timeout, one lock, explicit transactions."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from slop.errors import StoreError
from slop.settings import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, private_file, tighten

BUSY_TIMEOUT_MS = 5000
# SQLite's page cache (default 2 MiB). A ranked request on a 1M-message ledger touches
# more pages than that (index segments, doc sizes, the window's rows), and every miss is
# a read() the kernel copies: 2.5 ms of system time a request, 0.6 ms with this. Pages
# are cached as they are read, so a small ledger never uses it all.
PAGE_CACHE_KIB = 65_536
# Parameters SQLite cannot take: a str with a lone surrogate, an int past 64 bits.
_UNBINDABLE = (UnicodeEncodeError, OverflowError)


class Database:
    """One connection shared by the REPL thread and tool worker threads.

    SQLite serialises access anyway; the RLock keeps a transaction opened by one
    thread from interleaving with statements of another."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            if path != ":memory:":
                _private_ledger_files(Path(path))
            self._conn = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
            )
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the ledger at {path}: {exc}. Check the path or pass --db PATH.") from exc
        self._conn.row_factory = sqlite3.Row
        self.lock = threading.RLock()
        self._depth = 0
        try:
            self._enter_wal()
        except StoreError as exc:  # not a database, or not readable: say which file and what to do
            self._conn.close()
            raise StoreError(
                f"cannot use {path} as the ledger ({exc.__cause__ or exc}); pass --db with another path"
            ) from None
        self.execute("PRAGMA synchronous=NORMAL")
        self.execute("PRAGMA foreign_keys=ON")
        self.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self.execute(f"PRAGMA cache_size=-{PAGE_CACHE_KIB}")

    def _enter_wal(self) -> None:
        """Switch to WAL. On a fresh ledger opened by several processes at once, SQLite
        answers "database is locked" here without waiting for the busy timeout (the
        switch needs an exclusive lock and waiting could deadlock), so retry until then."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                self.execute("PRAGMA journal_mode=WAL")
                return
            except StoreError as exc:
                busy = isinstance(exc.__cause__, sqlite3.OperationalError) and "locked" in str(exc.__cause__)
                if not busy or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def close(self) -> None:
        with self.lock:
            self._conn.close()

    def interrupt(self) -> None:
        """Cut short the statement running on this connection, from another thread (it
        fails as interrupted and its transaction rolls back); without the lock, which
        the running statement holds."""
        self._conn.interrupt()

    def execute(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> sqlite3.Cursor:
        with self.lock:
            try:
                return self._conn.execute(sql, params)
            except sqlite3.Error as exc:
                raise StoreError(f"ledger error: {exc}") from exc
            except _UNBINDABLE as exc:
                raise StoreError(f"the ledger cannot store this value ({exc}); nothing was written") from exc

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        with self.lock:
            try:
                self._conn.executemany(sql, rows)
            except sqlite3.Error as exc:
                raise StoreError(f"ledger error: {exc}") from exc

    def change_stamp(self) -> tuple[int, int]:
        """Changes so far through this connection and through any other one (SQLite's
        data_version): equal stamps mean nothing was written in between."""
        return self._conn.total_changes, int(self.scalar("PRAGMA data_version") or 0)

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open on this connection (its writes may yet roll back)."""
        return self._conn.in_transaction

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        return self._fetch(sql, params, sqlite3.Row, None)

    def row(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Row | None:
        rows = self._fetch(sql, params, sqlite3.Row, 1)
        return rows[0] if rows else None

    def tuples(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows as plain tuples: much cheaper than sqlite3.Row for bulk loads."""
        return self._fetch(sql, params, None, None)

    def scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        rows = self._fetch(sql, params, None, 1)
        return rows[0][0] if rows else None

    def _fetch(self, sql: str, params: tuple[Any, ...], row_factory: Any, limit: int | None) -> list[Any]:
        """Every read goes through here. Text that is not UTF-8 (a row edited by hand)
        is read with U+FFFD in place of the bad bytes: the connection switches to the
        lenient decoder for good on the first such row, so an intact ledger keeps the
        fast C decoder."""
        with self.lock:
            try:
                return self._fetch_once(sql, params, row_factory, limit)
            except sqlite3.OperationalError as exc:
                if not _undecodable(exc) or self._conn.text_factory is _lenient_text:
                    raise StoreError(f"ledger error: {exc}") from exc
                self._conn.text_factory = _lenient_text
            try:
                return self._fetch_once(sql, params, row_factory, limit)
            except sqlite3.Error as exc:
                raise StoreError(f"ledger error: {exc}") from exc

    def _fetch_once(self, sql: str, params: tuple[Any, ...], row_factory: Any, limit: int | None) -> list[Any]:
        cursor = self._conn.cursor()
        cursor.row_factory = row_factory
        try:
            cursor.execute(sql, params)
            return cursor.fetchall() if limit is None else cursor.fetchmany(limit)
        except sqlite3.OperationalError:
            raise
        except sqlite3.Error as exc:
            raise StoreError(f"ledger error: {exc}") from exc
        except _UNBINDABLE as exc:
            raise StoreError(f"the ledger cannot look up this value ({exc})") from exc
        finally:
            cursor.close()

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


def _private_ledger_files(path: Path) -> None:
    """The ledger and its WAL/SHM files are 0600 (they hold whole conversations)."""
    path.parent.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    private_file(path)
    for suffix in ("-wal", "-shm", "-journal"):
        tighten(path.with_name(path.name + suffix), PRIVATE_FILE_MODE)


def _lenient_text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _undecodable(exc: sqlite3.OperationalError) -> bool:
    return str(exc).startswith("Could not decode to UTF-8")


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
