"""Project instruction files on disk in a temp git repo, sent through the real SDKs to the
fake LLM server: what the request carries, in which order, an edit seen on the next call,
the size cap, and /context show listing the layer with its tokens."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from slop.instructions import MAX_FILE_BYTES, InstructionFiles
from tests.fakellm import FakeLLM
from tests.providers.conftest import AppFactory
from tests.recording import Recorder

STATE = "\n\n### STATE\nGoal: g\nContext: -\nResolved: -\nTechnical Anchors: -"


@pytest.fixture
def repo(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repo with instruction files at several levels; the user works in src/api."""
    (project / ".git").mkdir()
    (project / "AGENTS.md").write_text("ROOT-AGENTS: run make test before a commit\n")
    (project / ".github").mkdir()
    (project / ".github" / "copilot-instructions.md").write_text("ROOT-COPILOT: prefer dataclasses\n")
    work = project / "src" / "api"
    work.mkdir(parents=True)
    (project / "src" / "GEMINI.md").write_text("SRC-GEMINI: src uses tabs\n")
    (work / "CLAUDE.md").write_text("API-CLAUDE: every handler is async\n")
    home = tmp_path / "home"
    home.mkdir()
    (home / "AGENTS.md").write_text("USER-AGENTS: answer in British English\n")
    monkeypatch.chdir(work)
    return project


def sent_text(fake: FakeLLM, index: int = -1) -> str:
    return json.dumps(fake.requests[index].json, ensure_ascii=False)


def turn(app_rec: tuple[object, Recorder], fake: FakeLLM, text: str) -> None:
    app, rec = app_rec
    fake.enqueue_text("ok" + STATE)
    outcome = app.engine.handle(text)  # type: ignore[attr-defined]
    assert outcome.ok, rec.kinds("error")


@pytest.mark.parametrize("wire", ["openai", "gemini"])
def test_the_request_carries_every_file_user_first_nearest_last(
    repo: Path, make_app: AppFactory, fake_llm: FakeLLM, wire: str
) -> None:
    pair = make_app(wire)
    turn(pair, fake_llm, "hello")
    body = sent_text(fake_llm)
    order = ["USER-AGENTS", "ROOT-AGENTS", "ROOT-COPILOT", "SRC-GEMINI", "API-CLAUDE"]
    positions = [body.find(marker) for marker in order]
    assert all(p >= 0 for p in positions), dict(zip(order, positions, strict=True))
    assert positions == sorted(positions)
    # A stable layer: right after the system prompt, before the history guidelines.
    assert body.find("## Project Instructions") < body.find("## Conversation History Guidelines")


def test_an_edit_is_picked_up_on_the_next_call_without_restart(
    repo: Path, make_app: AppFactory, fake_llm: FakeLLM
) -> None:
    pair = make_app()
    turn(pair, fake_llm, "first")
    assert "run make test before a commit" in sent_text(fake_llm)
    (repo / "AGENTS.md").write_text("ROOT-AGENTS: never push to main\n")
    (repo / "src" / "GEMINI.md").unlink()
    turn(pair, fake_llm, "second")
    body = sent_text(fake_llm)
    assert "never push to main" in body
    assert "run make test before a commit" not in body
    assert "SRC-GEMINI" not in body


def test_context_show_lists_the_layer_with_its_tokens(repo: Path, make_app: AppFactory) -> None:
    app, rec = make_app()
    assert app.engine.handle("/context show").ok
    shown = rec.viewed[-1]
    header = next(line for line in shown.splitlines() if line.startswith("--- layer: project instructions"))
    assert int(header.split("(")[1].split()[0]) > 20
    assert "API-CLAUDE: every handler is async" in shown


def test_a_huge_file_is_cut_with_a_note_saying_how_to_read_the_rest(
    repo: Path, make_app: AppFactory, fake_llm: FakeLLM
) -> None:
    (repo / "AGENTS.md").write_text("HEAD-LINE\n" + "x" * (MAX_FILE_BYTES * 2) + "\nTAIL-LINE\n")
    pair = make_app()
    turn(pair, fake_llm, "hi")
    body = sent_text(fake_llm)
    assert "HEAD-LINE" in body and "TAIL-LINE" not in body
    assert f"AGENTS.md: only the first {MAX_FILE_BYTES} of" in body and "read_file" in body
    assert "API-CLAUDE" in body  # one big file does not hide the others


def test_unchanged_files_are_not_read_again_and_changes_are(repo: Path, tmp_path: Path) -> None:
    files = InstructionFiles(repo, repo / "src" / "api", tmp_path / "home")
    first = {f.label: f for f in files.load()}
    again = {f.label: f for f in files.load()}
    assert all(again[label] is first[label] for label in first)  # served from the stat cache
    target = repo / "AGENTS.md"
    stamp = target.stat().st_mtime_ns
    target.write_text("ROOT-AGENTS: same size but new words!!\n"[: len(target.read_text())])
    os.utime(target, ns=(stamp + 1_000_000_000, stamp + 1_000_000_000))
    changed = {f.label: f for f in files.load()}
    assert changed["AGENTS.md"] is not first["AGENTS.md"]
    assert changed["AGENTS.md"].text.startswith("ROOT-AGENTS: same size")


def test_a_working_directory_outside_the_root_reads_only_the_root(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "AGENTS.md").write_text("OUTSIDE\n")
    labels = [f.label for f in InstructionFiles(repo, outside, None).load()]
    assert labels == ["AGENTS.md", ".github/copilot-instructions.md"]
