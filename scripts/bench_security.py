#!/usr/bin/env python3
"""The long versions of the "what the user approves is what runs" checks, as a table.

* approvals: N random commands mixing text with escape sequences, CR, backspace, C1
  controls, bidi overrides and zero-width characters are shown as an approval
  preview on a terminal console; the screen a terminal would show (tests/ui/termsim)
  is decoded back and compared with the command that would run (a mismatch is any
  difference), and raw control characters left in rich's output are counted;
* symlink race: N read_file calls while a thread swaps a project directory with a
  symlink to an outside directory (renameat2 RENAME_EXCHANGE); reads of the outside
  secret are counted;
* split keys: N random cut points through a key, redacted; runs of 8+ characters of
  the key's random part left over are counted;
* query_db: peak memory growth of a process running hostile queries, and how long
  a 2 s deadline takes to stop a query that never ends and a slow printf.

    python scripts/bench_security.py [--n 2000] [--json]
"""

from __future__ import annotations

import argparse
import ctypes
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from slop.records import ToolCall  # noqa: E402
from slop.tools.base import ToolContext  # noqa: E402
from slop.tools.dispatch import dispatch  # noqa: E402
from slop.tools.output import redact  # noqa: E402
from slop.tools.registry import ToolRegistry  # noqa: E402
from slop.ui.render import Renderer  # noqa: E402
from tests.ui.termsim import screen  # noqa: E402

HOSTILE_PIECES = [
    "\x1b[2K",
    "\x1b[1G",
    "\x1b]0;title\x07",
    "\x1b[2J",
    "\x1b[A",
    "\r",
    "\x08",
    "\x07",
    "\x9b2K",
    "\u202e",
    "\u2066",
    "\u200b",
    "\u200d",
    "\ufeff",
    "\x00",
    "\x7f",
]
WORDS = ["touch PWNED", "rm -rf build", "run: ls -la", "echo ok", "# comment", "&&", "|", "curl x | sh", "é✔你"]
_ESCAPE = re.compile(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|r)")
_RICH = re.compile(r"\x1b\[[0-9;]*m")


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        return "\r" if code == "r" else chr(int(code[1:], 16))

    return _ESCAPE.sub(one, text)


def approvals(n: int, rng: random.Random) -> dict[str, int]:
    mismatches = raw_left = 0
    for _ in range(n):
        command = "".join(rng.choice(HOSTILE_PIECES + WORDS) for _ in range(rng.randint(1, 12)))
        out = io.StringIO()
        console = Console(file=out, width=2000, force_terminal=True, color_system="truecolor")
        Renderer(console).plain(f"run: {command}")
        raw = out.getvalue()
        if re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff]", _RICH.sub("", raw)):
            raw_left += 1
        shown = screen(raw).rstrip("\n")
        if _unescape(shown) != f"run: {command}":
            mismatches += 1
    return {"approvals": n, "mismatches": mismatches, "raw control characters": raw_left}


def _exchange(a: Path, b: Path, libc: ctypes.CDLL) -> None:
    if libc.renameat2(-100, bytes(a), -100, bytes(b), 2) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")


class _NoStore:
    pass


def symlink_race(n: int) -> dict[str, int]:
    libc = ctypes.CDLL(None, use_errno=True)
    with tempfile.TemporaryDirectory() as tmp:
        root, outside = Path(tmp) / "project", Path(tmp) / "outside"
        (root / "dir").mkdir(parents=True)
        (outside / "dir").mkdir(parents=True)
        (root / "dir" / "notes.txt").write_text("inside\n")
        (outside / "dir" / "notes.txt").write_text("SECRET\n")
        (root / "dir.link").symlink_to(outside / "dir")
        stop = threading.Event()

        def swap() -> None:
            while not stop.is_set():
                _exchange(root / "dir", root / "dir.link", libc)

        worker = threading.Thread(target=swap, daemon=True)
        worker.start()
        ctx = ToolContext(root=root, session_id="s", store=_NoStore())  # type: ignore[arg-type]
        call = ToolCall("c", "read_file", json.dumps({"path": "dir/notes.txt"}))
        counts = {"reads": n, "outside reads": 0, "refused": 0, "inside reads": 0}
        for _ in range(n):
            (result,) = dispatch([call], ToolRegistry(), ctx, None)
            key = (
                "outside reads"
                if "SECRET" in result.content
                else "inside reads"
                if "inside" in result.content
                else "refused"
            )
            counts[key] += 1
        stop.set()
        worker.join()
    return counts


def split_keys(n: int, rng: random.Random) -> dict[str, int]:
    key = "sk-proj-" + "".join(
        rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(48)
    )
    leaks = 0
    for _ in range(n):
        cut = rng.randint(0, len(key))
        text = (
            "x" * rng.randint(0, 40)
            + key[:cut]
            + "\n[... 9 characters cut ...]\n"
            + key[cut:]
            + "y" * rng.randint(0, 40)
        )
        out = redact(text, [key])
        rand = key[8:]
        leaks += any(rand[i : i + 8] in out for i in range(len(rand) - 7))
    return {"cuts": n, "leaks (8+ key characters)": leaks}


QUERIES = [
    "WITH RECURSIVE r(i, s) AS (SELECT 1, hex(randomblob(2000000)) UNION ALL "
    "SELECT i + 1, s FROM r WHERE i < 100) SELECT i, s FROM r",
    "SELECT randomblob(1000000000)",
    "SELECT length(printf('%.*c', 2000000000, 'x'))",
]


def query_db() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "l.db")
        from slop.store import Store

        Store.open(db).close()
        script = textwrap.dedent(
            f"""
            import resource, time
            from slop.store.readonly import run_readonly_query
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            for sql in {QUERIES!r}:
                try:
                    run_readonly_query({db!r}, sql, max_rows=200, max_chars=20_000, timeout=10)
                except Exception:
                    pass
            grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
            times = []
            for sql in ["WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r",
                        "SELECT length(printf('%.*c', 2000000000, 'x'))"]:
                started = time.monotonic()
                try:
                    run_readonly_query({db!r}, sql, max_rows=200, max_chars=20_000, timeout=2)
                except Exception:
                    pass
                times.append(time.monotonic() - started)
            print(grown, *times)
            """
        )
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
        grown, forever, printf = (float(x) for x in done.stdout.split())
    return {
        "peak memory growth (MB)": round(grown, 1),
        "endless query, 2 s limit (s)": round(forever, 2),
        "printf %.*c 2e9, 2 s limit (s)": round(printf, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(1)
    started = time.monotonic()
    results = {
        "approvals": approvals(args.n, rng),
        "symlink race": symlink_race(args.n),
        "split keys": split_keys(args.n, rng),
        "query_db": query_db(),
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for check, figures in results.items():
        print(f"{check:14} " + " · ".join(f"{k}: {v}" for k, v in figures.items()))
    print(f"({time.monotonic() - started:.0f} s, pid {os.getpid()})")


if __name__ == "__main__":
    main()
