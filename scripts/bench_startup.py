#!/usr/bin/env python3
"""Start-up time: medians of `slop --version`, of time-to-prompt and of the first reply, in a real pty.

    python scripts/bench_startup.py [--runs 15] [--json]

Time-to-prompt = spawn of `slop` in a pseudo-terminal (fresh temp project, no provider)
until the modeline of the first prompt is on screen.

First reply = `hi` typed the moment the prompt is on screen (OpenAI provider pointed at
the fake server of tests/fakellm, which answers instantly) until the reply's text is on
screen. Measured side by side with its floor: a bare interpreter importing the `openai`
SDK and building its client (what no code of ours can avoid before the first request)."""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakellm import FakeLLM

REPLY = "first reply from the fake"
CPU_SPANS: list[tuple[float, float, float]] = []  # (after the prompt, from spawn, SDK floor) CPU seconds
SDK_FLOOR = "import openai\nopenai.OpenAI(api_key='x', base_url='http://127.0.0.1:9/v1')\n"


def slop_command() -> str:
    found = shutil.which("slop", path=str(Path(sys.executable).parent)) or shutil.which("slop")
    if not found:
        raise SystemExit("slop is not installed in this environment")
    return found


def time_version(cmd: str, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([cmd, "--version"], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


FLOORS = {
    # the same harness on programs that do (almost) nothing: what no code of ours can beat
    "bare python, print one line": "import sys, os\nprint('slop <W: floor', flush=True)\nos.read(0, 1)\n",
    "bare prompt_toolkit prompt with a toolbar": (
        "from prompt_toolkit import PromptSession\nimport sqlite3\n"
        "try:\n    PromptSession(bottom_toolbar='slop <W: floor').prompt('> ')\nexcept EOFError:\n    pass\n"
    ),
}


def time_floors(runs: int) -> dict[str, float]:
    medians = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, code in FLOORS.items():
            script = Path(tmp) / "floor.py"
            script.write_text(code)
            times = time_to_prompt(sys.executable, runs, [str(script)])
            medians[name] = round(statistics.median(times), 4)
    return medians


def time_to_prompt(cmd: str, runs: int, args: list[str] | None = None) -> list[float]:
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE"))}
        env.update(SLOP_HOME=str(Path(tmp) / "home"), TERM="xterm-256color")
        for i in range(runs + 1):
            project = Path(tmp) / f"p{i}"
            project.mkdir()
            start = time.perf_counter()
            child = pexpect.spawn(cmd, args or [], cwd=str(project), env=env, dimensions=(40, 120), encoding="utf-8")
            # answer prompt_toolkit's cursor-position request as a terminal does, then wait for the modeline
            while child.expect(["slop <W:", "\x1b\\[6n"], timeout=20) == 1:
                child.send("\x1b[1;1R")
            elapsed = time.perf_counter() - start
            child.sendcontrol("d")
            child.expect(pexpect.EOF, timeout=10)
            if i:  # the first run warms the OS caches
                times.append(elapsed)
    return times


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, all threads) a live process has used so far: unlike wall
    time, it does not grow when other programs load the machine."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_first_reply(cmd: str, runs: int) -> tuple[list[float], list[float], list[float]]:
    """(after the prompt appeared, from spawn, SDK floor) per run, interleaved; the CPU
    seconds of the same spans are kept in CPU_SPANS."""
    after_prompt, from_spawn, floor = [], [], []
    CPU_SPANS.clear()
    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE"))}
        env.update(
            SLOP_HOME=str(Path(tmp) / "home"),
            TERM="xterm-256color",
            OPENAI_API_KEY="sk-bench",
            OPENAI_BASE_URL=fake.openai_base_url,
        )
        for i in range(runs + 1):
            project = Path(tmp) / f"p{i}"
            project.mkdir()
            fake.enqueue_text(REPLY)
            start = time.perf_counter()
            child = pexpect.spawn(cmd, [], cwd=str(project), env=env, dimensions=(40, 120), encoding="utf-8")
            while child.expect(["slop <W:", "\x1b\\[6n"], timeout=30) == 1:
                child.send("\x1b[1;1R")
            shown = time.perf_counter()
            cpu_shown = cpu_seconds(child.pid)
            child.send("hi\r")
            while child.expect([REPLY, "\x1b\\[6n"], timeout=30) == 1:
                child.send("\x1b[1;1R")
            done = time.perf_counter()
            cpu_done = cpu_seconds(child.pid)
            while child.expect(["slop <W:", "\x1b\\[6n"], timeout=30) == 1:
                child.send("\x1b[1;1R")
            child.sendcontrol("d")
            child.expect(pexpect.EOF, timeout=15)
            sdk_start, sdk_cpu_start = time.perf_counter(), children_cpu()
            subprocess.run([sys.executable, "-c", SDK_FLOOR], check=True)
            sdk = time.perf_counter() - sdk_start
            if i:  # the first run warms the OS caches
                after_prompt.append(done - shown)
                from_spawn.append(done - start)
                floor.append(sdk)
                CPU_SPANS.append((cpu_done - cpu_shown, cpu_done, children_cpu() - sdk_cpu_start))
    return after_prompt, from_spawn, floor


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cmd = slop_command()
    time_version(cmd, 2)
    version = time_version(cmd, args.runs)
    prompt = time_to_prompt(cmd, args.runs)
    result = {
        "runs": args.runs,
        "version_median_s": round(statistics.median(version), 4),
        "prompt_median_s": round(statistics.median(prompt), 4),
        "version_targets_s": 0.10,
        "prompt_target_s": 0.35,
        "floors_s": time_floors(args.runs),
    }
    after_prompt, from_spawn, sdk_floor = time_first_reply(cmd, args.runs)
    result.update(
        first_reply_after_prompt_median_s=round(statistics.median(after_prompt), 4),
        first_reply_from_spawn_median_s=round(statistics.median(from_spawn), 4),
        sdk_import_floor_median_s=round(statistics.median(sdk_floor), 4),
        first_reply_target_s=1.0,
        first_reply_cpu_after_prompt_median_s=round(statistics.median(c[0] for c in CPU_SPANS), 4),
        first_reply_cpu_from_spawn_median_s=round(statistics.median(c[1] for c in CPU_SPANS), 4),
        sdk_import_floor_cpu_median_s=round(statistics.median(c[2] for c in CPU_SPANS), 4),
        prompt_with_provider_median_s=round(
            statistics.median([s - a for s, a in zip(from_spawn, after_prompt, strict=True)]), 4
        ),
    )
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"slop --version   median {result['version_median_s'] * 1000:.0f} ms  (target <= 100 ms, {args.runs} runs)"
        )
        print(
            f"time to prompt   median {result['prompt_median_s'] * 1000:.0f} ms  (target <= 350 ms, {args.runs} runs)"
        )
        for name, value in result["floors_s"].items():
            print(f"  floor, same harness: {name:<42} median {value * 1000:.0f} ms")
        print(
            f"first reply      median {result['first_reply_after_prompt_median_s'] * 1000:.0f} ms after the prompt"
            f" appeared, {result['first_reply_from_spawn_median_s'] * 1000:.0f} ms from spawn (target <= 1000 ms)"
        )
        print(
            f"  floor, side by side: bare interpreter importing openai + client"
            f"       median {result['sdk_import_floor_median_s'] * 1000:.0f} ms (target: first reply <= floor + 300 ms)"
        )
        print(
            f"  CPU seconds (load-independent): first reply {result['first_reply_cpu_after_prompt_median_s']:.2f} s"
            f" after the prompt, {result['first_reply_cpu_from_spawn_median_s']:.2f} s from spawn;"
            f" SDK floor {result['sdk_import_floor_cpu_median_s']:.2f} s"
        )
        print(
            f"  time to prompt in those runs (provider set, SDK importing alongside)"
            f" median {result['prompt_with_provider_median_s'] * 1000:.0f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
