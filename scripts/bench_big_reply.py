"""Time one turn whose reply is 10 MB without whitespace, against the fake server:
in batch mode (`python -m slop --prompt … --output-format jsonl`) and in the REPL (a
pexpect session in a 120x40 pty, until the next prompt answers).

    .venv/bin/python scripts/bench_big_reply.py [--src DIR] [--mb 10]

`--src` runs another checkout's `slop` package (PYTHONPATH) to compare before / after."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakellm import FakeLLM

CPR_REQUEST = "\x1b\\[6n"


def _env(fake: FakeLLM, home: str, src: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE", "SLOP_"))}
    env.update(
        OPENAI_API_KEY="k",
        OPENAI_BASE_URL=fake.openai_base_url,
        SLOP_HOME=home,
        SLOP_MAX_RETRIES="0",
        TERM="xterm-256color",
        PYTHONPATH=src,
    )
    return env


def batch(fake: FakeLLM, tmp: str, src: str, size: int) -> float:
    fake.enqueue_text("x" * size)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "slop", "--prompt", "big", "--output-format", "jsonl", "--db", f"{tmp}/b.db"],
        cwd=tmp,
        env=_env(fake, f"{tmp}/home", src),
        capture_output=True,
        timeout=900,
    )
    seconds = time.monotonic() - started
    assert done.stdout.splitlines()[-1].startswith(b'{"type": "done"'), done.stderr[-500:]
    return seconds


def _expect(child: pexpect.spawn, pattern: str) -> None:
    deadline = time.monotonic() + 900
    while child.expect([pattern, CPR_REQUEST], timeout=max(0.1, deadline - time.monotonic())) != 0:
        child.send("\x1b[1;1R")


def repl(fake: FakeLLM, tmp: str, src: str, size: int) -> float:
    fake.enqueue_text("x" * size)
    fake.enqueue_text("next works")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "slop", "--db", f"{tmp}/r.db", "--model", "fake-gpt"],
        cwd=tmp,
        env=_env(fake, f"{tmp}/home", src),
        dimensions=(40, 120),
        encoding="utf-8",
        timeout=900,
    )
    try:
        _expect(child, "slop <W:")
        started = time.monotonic()
        child.send("big\r")
        _expect(child, "slop <W:")
        child.send("again\r")
        _expect(child, "next works")
        return time.monotonic() - started
    finally:
        child.terminate(force=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--mb", type=float, default=10)
    args = parser.parse_args()
    size = int(args.mb * 1024 * 1024)
    with FakeLLM() as fake, tempfile.TemporaryDirectory() as tmp:
        print(f"src {args.src}, reply {args.mb:g} MB of one letter")
        print(f"batch turn (jsonl):              {batch(fake, tmp, args.src, size):6.1f} s")
        print(f"REPL turn until the next answer: {repl(fake, tmp, args.src, size):6.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
