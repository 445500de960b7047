"""`slop logs` as a user runs it: a real process over a ledger that real turns wrote."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.e2e.conftest import AppFactory
from tests.e2e.wires import both_wires  # noqa: F401  (the `wire` fixture, both wires)
from tests.fakellm import FakeLLM

SLOP = shutil.which("slop", path=str(Path(sys.executable).parent)) or "slop"


def run_logs(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE", "SLOP_"))}
    env.update(SLOP_HOME=str(home), COLUMNS="200")
    return subprocess.run([SLOP, *args, "logs"], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def test_logs_lists_sessions_newest_first_with_first_prompt_size_and_usage(
    make_app: AppFactory, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    app, _rec = make_app()
    fake_llm.enqueue_text("one")
    assert app.engine.handle("first prompt of the default session\nwith a second line").ok
    fake_llm.enqueue_text("two")
    assert app.engine.handle("a later prompt").ok
    assert app.engine.handle("/session switch bugfix").ok
    fake_llm.enqueue_text("three")
    assert app.engine.handle("fix the flaky websocket test").ok
    app.close()
    done = run_logs("--db", str(tmp_path / "ledger.db"), cwd=tmp_path, home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("2 most recent session(s) in ")
    assert "bugfix" in lines[1] and "fix the flaky websocket test" in lines[1]  # newest first
    assert "default" in lines[2] and "first prompt of the default session with a second line" in lines[2]
    assert " 4 msg " in lines[2] and " 2 msg " in lines[1]
    assert "billed tok" in lines[1]  # the fake server reports usage, stored in the usage table


def test_logs_without_a_ledger_says_so_and_creates_nothing(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    done = run_logs(cwd=tmp_path, home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert "nothing logged yet" in done.stdout
    assert not (tmp_path / ".slop").exists()
