"""`slop --prompt "/context show --raw TEXT"` in one process, `slop --prompt TEXT` in the next:
stdout is the body alone, and the server receives exactly it, even with different hash
seeds (ranked selection must not depend on Python's per-process set order)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from slop.records import NewMessage, Role
from slop.store import Store
from tests.fakellm import FakeLLM

TIMEOUT = 60
TIE_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def _slop(fake: FakeLLM, tmp_path: Path, project: Path, seed: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLOP_", "OPENAI_", "GEMINI_", "GOOGLE_"))}
    env.update(
        OPENAI_API_KEY="test-key-123456",
        OPENAI_BASE_URL=fake.openai_base_url,
        SLOP_HOME=str(tmp_path / "home"),
        SLOP_MAX_RETRIES="0",
        NO_COLOR="1",
        PYTHONHASHSEED=seed,
    )
    command = [sys.executable, "-m", "slop", *args, "--model", "fake-gpt", "--db", str(tmp_path / "ledger.db")]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=TIMEOUT)


def _ranked_ledger_with_ties(path: Path) -> None:
    """Two hits for "zulu" share eight words equally often (a tie for query expansion);
    each word also has a group of its own, so which words expansion takes decides which
    of those groups the ranked window of 4 picks."""
    store = Store.open(str(path))
    try:
        store.sessions.update_settings("default", context_mode="ranked", options={"ranked_expansion_terms": 3})
        store.sessions.set_context_size("default", 4)

        def group(user: str, answer: str) -> None:
            gid = store.messages.new_group_id()
            store.messages.append("default", gid, NewMessage(Role.USER, user, parsing_strategy="openai"))
            store.messages.append("default", gid, NewMessage(Role.ASSISTANT, answer, parsing_strategy="openai"))

        group("zulu notes " + " ".join(TIE_WORDS), "noted")
        group("zulu again " + " ".join(reversed(TIE_WORDS)), "noted again")
        for word in TIE_WORDS:
            group(f"a note about {word} only", f"{word} is recorded")
        group("unrelated weather talk", "sunny")
        group("more unrelated talk", "cloudy")
    finally:
        store.close()


def test_raw_preview_in_one_process_equals_the_send_in_the_next(
    fake_llm: FakeLLM, tmp_path: Path, project: Path
) -> None:
    _ranked_ledger_with_ties(tmp_path / "ledger.db")
    text = "what about zulu"
    previews = []
    for seed in ("1", "2", "3"):
        shown = _slop(fake_llm, tmp_path, project, seed, "--prompt", f"/context show --raw {text}")
        assert shown.returncode == 0, shown.stderr
        previews.append(json.loads(shown.stdout))  # stdout is exactly one JSON object, nothing else
    assert previews[0] == previews[1] == previews[2]
    fake_llm.enqueue_text("zulu is covered")
    sent = _slop(fake_llm, tmp_path, project, "4", "--prompt", text)
    assert sent.returncode == 0, sent.stderr
    body = fake_llm.last_request("chat").json
    assert {k: v for k, v in body.items() if k not in ("stream", "stream_options")} == previews[0]
    assert body["messages"][-1]["content"].endswith("### CURRENT REQUEST\nwhat about zulu")


def test_raw_preview_in_json_mode_is_one_request_event(fake_llm: FakeLLM, tmp_path: Path, project: Path) -> None:
    shown = _slop(fake_llm, tmp_path, project, "0", "--prompt", "/context show --raw hi", "--output-format", "jsonl")
    assert shown.returncode == 0, shown.stderr
    events = [json.loads(line) for line in shown.stdout.splitlines()]
    assert [e["type"] for e in events] == ["request", "done"]
    assert events[0]["body"]["messages"][-1] == {"role": "user", "content": "## Begin Conversation History\nhi"}


def test_raw_preview_without_a_provider_is_a_clear_error(tmp_path: Path, project: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLOP_", "OPENAI_", "GEMINI_", "GOOGLE_"))}
    env.update(SLOP_HOME=str(tmp_path / "home"), NO_COLOR="1")
    command = [sys.executable, "-m", "slop", "--prompt", "/context show --raw hi", "--db", str(tmp_path / "l.db")]
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 1
    assert "no model provider is configured" in done.stdout + done.stderr
