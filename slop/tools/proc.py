"""Running a subprocess that can be cancelled, timed out, and cannot deadlock.

Shared by execute_bash and the search tools. Each command runs in its own
process group so that cancelling kills everything it started (a `make -j` or a
`sleep &` included), not just the shell. Pipes are drained by threads into
bounded sinks, so a command printing gigabytes neither blocks on a full pipe nor
fills memory.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from slop.tools.childenv import child_environment

POLL_INTERVAL = 0.05
TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
DETACH_GRACE = 1.0  # how long to wait for pipes once the main process has exited


class Sink(Protocol):
    """Receives a stream's bytes as they arrive (from a reader thread)."""

    def feed(self, chunk: bytes) -> None: ...


@dataclass(frozen=True, slots=True)
class ProcOutcome:
    returncode: int | None  # None when killed by us
    timed_out: bool = False
    cancelled: bool = False
    detached: bool = False  # background processes kept the output pipes open


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    cancel: threading.Event,
    timeout: float,
    stdout: Sink,
    stderr: Sink,
    stdin_data: bytes | None = None,
    env: Mapping[str, str] | None = None,
    stdin_file: IO[bytes] | None = None,
) -> ProcOutcome:
    """Run argv (never through a shell unless argv says so) and wait for it.

    `env` defaults to this process's environment without provider keys."""
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env) if env is not None else child_environment(),
        stdin=subprocess.PIPE if stdin_data is not None else (stdin_file or subprocess.DEVNULL),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    readers = [_start_thread(_pump, proc.stdout, stdout), _start_thread(_pump, proc.stderr, stderr)]
    if stdin_data is not None:
        assert proc.stdin is not None
        _start_thread(_feed_stdin, proc.stdin, stdin_data)
    deadline = time.monotonic() + timeout
    reason = _wait_leader(proc, cancel, deadline)
    if reason is None:
        reason, detached = _wait_readers(readers, cancel, deadline)
    else:
        detached = False
    if reason is not None:
        kill_group(proc)
        detached = not _join_all(readers, DETACH_GRACE)
    return ProcOutcome(
        returncode=None if reason else proc.returncode,
        timed_out=reason == "timeout",
        cancelled=reason == "cancel",
        detached=detached,
    )


def _start_thread(target: object, *args: object) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
    thread.start()
    return thread


def _pump(stream: IO[bytes], sink: Sink) -> None:
    """Copy a pipe into a sink until EOF; runs in its own thread."""
    try:
        fd = stream.fileno()
        while chunk := os.read(fd, 65536):
            sink.feed(chunk)
    except OSError:
        pass
    finally:
        stream.close()


def _feed_stdin(stream: IO[bytes], data: bytes) -> None:
    """Write the input then close, so programs waiting for EOF finish."""
    try:
        stream.write(data)
    except (BrokenPipeError, OSError):
        pass  # the command exited without reading all of its input
    finally:
        try:
            stream.close()
        except OSError:
            pass


def _stop_reason(cancel: threading.Event, deadline: float) -> str | None:
    if cancel.is_set():
        return "cancel"
    if time.monotonic() >= deadline:
        return "timeout"
    return None


def _wait_leader(proc: subprocess.Popen[bytes], cancel: threading.Event, deadline: float) -> str | None:
    """Wait for the main process; return "cancel"/"timeout" if we must stop it."""
    while True:
        try:
            proc.wait(timeout=POLL_INTERVAL)
            return None
        except subprocess.TimeoutExpired:
            reason = _stop_reason(cancel, deadline)
            if reason:
                return reason


def _wait_readers(readers: list[threading.Thread], cancel: threading.Event, deadline: float) -> tuple[str | None, bool]:
    """After the main process exited, give the pipes a moment to reach EOF.

    A background child (`server &`) may keep them open forever; we then stop
    reading and report it instead of hanging the turn."""
    detach_at = time.monotonic() + DETACH_GRACE
    while any(t.is_alive() for t in readers):
        reason = _stop_reason(cancel, deadline)
        if reason:
            return reason, False
        if time.monotonic() >= detach_at:
            return None, True
        for thread in readers:
            thread.join(POLL_INTERVAL / 2)
    return None, False


def _join_all(threads: list[threading.Thread], timeout: float) -> bool:
    end = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, end - time.monotonic()))
    return not any(t.is_alive() for t in threads)


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the whole process group, then SIGKILL whatever survives TERM_GRACE.

    The group id equals the leader's pid because of start_new_session=True."""
    pgid = proc.pid
    _signal_group(pgid, signal.SIGTERM)
    end = time.monotonic() + TERM_GRACE
    while time.monotonic() < end:
        proc.poll()  # reap the leader so it does not count as alive
        if not group_alive(pgid):
            break
        time.sleep(POLL_INTERVAL)
    else:
        _signal_group(pgid, signal.SIGKILL)
    try:
        proc.wait(timeout=TERM_GRACE)
    except subprocess.TimeoutExpired:
        pass


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def group_alive(pgid: int) -> bool:
    """Whether any non-zombie process is still in the group.

    Zombies are ignored: orphans reparented to a non-reaping init stay zombies
    and would otherwise make us wait for the full grace period."""
    proc_dir = Path("/proc")
    if not proc_dir.is_dir():
        try:
            os.killpg(pgid, 0)
            return True
        except (ProcessLookupError, PermissionError):
            return False
    return any(entry.name.isdigit() and _stat_in_group(entry / "stat", pgid) for entry in proc_dir.iterdir())


def _stat_in_group(stat_file: Path, pgid: int) -> bool:
    """Parse /proc/PID/stat: fields after the `(comm)` are state, ppid, pgrp, ..."""
    try:
        text = stat_file.read_text()
    except OSError:
        return False
    fields = text[text.rfind(")") + 2 :].split()
    return len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X")
