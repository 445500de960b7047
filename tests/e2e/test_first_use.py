"""What a new user meets first, in a real terminal: the banner without a provider, a
narrow modeline, the /resume picker, a bad --db path."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pexpect

from tests.e2e.test_pty import SLOP, Term, term  # noqa: F401 - the pty fixture
from tests.fakellm import FakeLLM


def _spawn(tmp_path: Path, columns: int, **env: str) -> Term:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE"))}
    environ.update(TERM="xterm-256color", SLOP_HOME=str(tmp_path / "home"), **env)
    db = tmp_path / "ledger.db"
    child = pexpect.spawn(
        SLOP, ["--db", str(db)], cwd=str(project), env=environ, dimensions=(30, columns), encoding="utf-8"
    )
    return Term(child, db)


def test_banner_without_a_provider_says_what_to_set(tmp_path: Path) -> None:
    t = _spawn(tmp_path, 120)
    try:
        t.expect("· no provider · ledger")  # not "no provider:none"
        t.expect("no provider — set OPENAI_API_KEY")
        t.prompt()
        t.child.sendcontrol("d")
        t.child.expect(pexpect.EOF, timeout=30)
    finally:
        t.child.terminate(force=True)


def test_modeline_at_60_columns_keeps_the_context_fill(tmp_path: Path) -> None:
    t = _spawn(tmp_path, 60, OPENAI_API_KEY="sk-narrow-123456", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    try:
        t.expect("slop <W:[^\\r\\n]*ctx \\d")
        t.child.sendcontrol("d")
        t.child.expect(pexpect.EOF, timeout=30)
    finally:
        t.child.terminate(force=True)


def test_resume_picker_switches_with_one_key(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_text("parser answer")
    fake_llm.enqueue_text("docs answer")
    t = term()
    t.prompt()
    t.enter("/session switch parser")
    t.prompt()
    t.enter("fix the parser bug")
    t.expect("parser answer")
    t.prompt()
    t.enter("/session switch docs")
    t.prompt()
    t.enter("write the docs")
    t.expect("docs answer")
    t.prompt()
    t.enter("/resume")
    t.expect("fix the parser bug")
    t.expect("Resume which\\?")
    t.type("2")  # the list is most recent first: docs, then parser
    t.expect("switched to session 'parser'")
    t.prompt()


def test_a_bad_db_path_is_one_line(tmp_path: Path) -> None:
    not_a_ledger = tmp_path / "notes.txt"
    not_a_ledger.write_text("just text, not a database\n" * 200)
    for path in (not_a_ledger, not_a_ledger / "inside.db"):
        run = subprocess.run(
            [SLOP, "--db", str(path), "--prompt", "/help"], capture_output=True, text=True, timeout=60, check=False
        )
        assert run.returncode == 1
        assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
        assert run.stderr.startswith("slop: cannot use") and "--db" in run.stderr


def test_batch_mode_under_yes_shows_the_diff(fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.enqueue_tool_calls([("write_file", {"path": "made.txt", "content": "hello batch\n"})])
    fake_llm.enqueue_text("written")
    project = tmp_path / "project"
    project.mkdir()
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE"))}
    environ.update(OPENAI_API_KEY="sk-batch-123456", OPENAI_BASE_URL=fake_llm.openai_base_url, SLOP_MAX_RETRIES="0")
    run = subprocess.run(
        [SLOP, "--db", str(tmp_path / "l.db"), "--yes", "--prompt", "write it"],
        cwd=project, env=environ, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "+hello batch" in run.stdout and "(new file)" in run.stdout
    assert (project / "made.txt").read_text() == "hello batch\n"
