"""The last-resort record of a bug: one traceback per file under `$SLOP_HOME/logs/`.

Stdlib only. The file is created 0600 in a 0700 directory: a traceback can quote the
conversation (arguments, replies) the ledger itself protects."""

from __future__ import annotations

import io
import logging
import os
import sys
import time
import traceback
from pathlib import Path

LOG_DIR_NAME = "logs"
KEEP_LOGS = 50  # older crash logs are pruned so a looping bug cannot fill the disk


def log_dir(home: Path) -> Path:
    return home / LOG_DIR_NAME


def write_crash_log(home: Path, exc: BaseException, context: str = "") -> Path | None:
    """Write `exc`'s traceback (and what slop was doing) to a new file; its path, or
    None when even that failed (a full disk must not turn one error into two)."""
    directory = log_dir(home)
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(directory, 0o700)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = directory / f"crash-{stamp}-{os.getpid()}-{time.monotonic_ns() % 1_000_000:06d}.log"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as out:
            out.write(f"slop internal error at {time.strftime('%Y-%m-%d %H:%M:%S %z')}\n")
            out.write(f"python {sys.version.split()[0]} on {sys.platform}\n")
            if context:
                out.write(f"while: {context}\n")
            out.write("\n")
            out.write("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
        _prune(directory)
        return path
    except OSError:
        return None


class PrivateLogFile(logging.FileHandler):
    """`$SLOP_HOME/logs/slop.log`, created 0600 on the first record only (delay=True)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, encoding="utf-8", delay=True, errors="backslashreplace")

    def _open(self) -> io.TextIOWrapper:
        Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        return open(fd, "a", encoding="utf-8", errors="backslashreplace")


def route_warnings_to_file(home: Path) -> None:
    """Warnings slop's modules log (a tool that raised, a failed callback) go to the
    debug log, not as a traceback onto the user's screen (Python's last-resort handler
    prints them to stderr). Replaces the handler a previous build installed."""
    logger = logging.getLogger("slop")
    for handler in list(logger.handlers):
        if isinstance(handler, PrivateLogFile):
            logger.removeHandler(handler)
            handler.close()
    handler = PrivateLogFile(log_dir(home) / "slop.log")
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.propagate = False


def one_line(exc: BaseException, path: Path | None) -> str:
    """What the user sees: the error in one line and where the details are."""
    detail = " ".join(str(exc).split())[:200]
    kind = type(exc).__name__
    what = f"{kind}: {detail}" if detail else kind
    where = f"the traceback is in {path}" if path else "no debug log could be written"
    return f"internal error ({what}); {where} (please report it)"


def _prune(directory: Path) -> None:
    logs = sorted(directory.glob("crash-*.log"))
    for old in logs[:-KEEP_LOGS]:
        try:
            old.unlink()
        except OSError:
            pass
