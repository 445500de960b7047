"""The per-session turn lock: at most one running turn per session, across processes.

Two terminals on one session would interleave their rows (A's tool call, B's question,
A's results), so a turn takes the session's row in `turn_locks` first. The row records
the holder's pid, host and a heartbeat the holder refreshes while the turn runs, so a
holder that died (kill -9, power cut) never blocks the session: a lock whose process
is gone (same host) or whose heartbeat is older than STALE_AFTER is taken over."""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from slop.errors import SessionBusy, StoreError
from slop.store.db import Database

HEARTBEAT_EVERY = 5.0  # seconds between heartbeats of a running turn
# A heartbeat this old means a frozen or vanished holder (e.g. another host, or a pid
# reused by an unrelated process); long tools do not matter, the heartbeat is a thread.
STALE_AFTER = 30.0


@dataclass(frozen=True, slots=True)
class Holder:
    pid: int
    host: str
    token: str
    heartbeat: float


class TurnLocks:
    def __init__(self, db: Database, *, heartbeat_every: float = HEARTBEAT_EVERY) -> None:
        self._db = db
        self._every = heartbeat_every
        self._host = socket.gethostname()

    def holder(self, session_id: str) -> Holder | None:
        """The live holder of the session's lock, if any."""
        row = self._db.execute(
            "SELECT pid, host, token, heartbeat FROM turn_locks WHERE session_id=?", (session_id,)
        ).fetchone()
        if row is None:
            return None
        holder = Holder(int(row[0]), str(row[1]), str(row[2]), float(row[3]))
        return holder if self._alive(holder) else None

    def acquire(self, session_id: str) -> str:
        """Take the lock or raise SessionBusy; returns the token that proves ownership."""
        token = secrets.token_hex(8)
        with self._db.transaction():
            holder = self.holder(session_id)
            if holder is not None:
                raise SessionBusy(session_id, holder.pid)
            now = time.time()
            self._db.execute(
                "INSERT OR REPLACE INTO turn_locks(session_id, pid, host, token, started, heartbeat)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, os.getpid(), self._host, token, now, now),
            )
        return token

    def release(self, session_id: str, token: str) -> None:
        with self._db.transaction():
            self._db.execute("DELETE FROM turn_locks WHERE session_id=? AND token=?", (session_id, token))

    def beat(self, session_id: str, token: str) -> bool:
        """Refresh the heartbeat; False when the lock is no longer ours (taken over)."""
        with self._db.transaction():
            cur = self._db.execute(
                "UPDATE turn_locks SET heartbeat=? WHERE session_id=? AND token=?", (time.time(), session_id, token)
            )
            return cur.rowcount == 1

    @contextmanager
    def hold(self, session_id: str, on_lost: Callable[[], None] = lambda: None) -> Iterator[None]:
        """Hold the lock for a block, heartbeating on a thread. `on_lost` runs if another
        process took the lock over (this one was frozen past STALE_AFTER)."""
        token = self.acquire(session_id)
        stop = threading.Event()
        beater = threading.Thread(
            target=self._heartbeat, args=(session_id, token, stop, on_lost), name="slop-turn-lock", daemon=True
        )
        beater.start()
        try:
            yield
        finally:
            stop.set()
            beater.join()
            try:
                self.release(session_id, token)
            except StoreError:
                pass  # the ledger stayed locked past the busy timeout: the lock goes stale instead

    def _heartbeat(self, session_id: str, token: str, stop: threading.Event, on_lost: Callable[[], None]) -> None:
        while not stop.wait(self._every):
            try:
                if not self.beat(session_id, token):
                    on_lost()
                    return
            except StoreError:
                continue  # the ledger was busy for longer than the busy timeout: try again

    def _alive(self, holder: Holder) -> bool:
        if time.time() - holder.heartbeat > STALE_AFTER:
            return False
        return holder.host != self._host or process_running(holder.pid)


def process_running(pid: int) -> bool:
    """Whether `pid` is a running (not zombie) process on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (macOS): trust kill
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"
