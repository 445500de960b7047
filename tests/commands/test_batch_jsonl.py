"""Batch mode end to end: `slop --prompt … --output-format jsonl` as a subprocess against the fake LLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from slop.records import NewMessage, Role
from slop.store import Store
from tests.fakellm import FakeLLM

TIMEOUT = 60


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("remember the milk\n")
    return root


def _env(fake: FakeLLM, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLOP_", "OPENAI_", "GEMINI_", "GOOGLE_"))}
    env.update(
        OPENAI_API_KEY="test-key-123456",
        OPENAI_BASE_URL=fake.openai_base_url,
        SLOP_HOME=str(tmp_path / "home"),
        SLOP_MAX_RETRIES="0",
        NO_COLOR="1",
    )
    return env


def _slop(fake: FakeLLM, tmp_path: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "slop", *args, "--db", str(tmp_path / "ledger.db")]
    return subprocess.run(
        command, cwd=project, env=_env(fake, tmp_path), capture_output=True, text=True, timeout=TIMEOUT
    )


def _events(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    lines = done.stdout.splitlines()
    assert lines, f"no output; stderr:\n{done.stderr}"
    events = []
    for line in lines:
        event = json.loads(line)  # every line is one JSON object
        assert isinstance(event, dict) and isinstance(event.get("type"), str), line
        events.append(event)
    assert events[-1]["type"] == "done", "the last event is always done"
    return events


def test_turn_with_a_tool_call(fake_llm: FakeLLM, tmp_path: Path, project: Path) -> None:
    fake_llm.enqueue_tool_calls([("read_file", {"path": "notes.txt"})], text="Let me read it.")
    fake_llm.enqueue_text("It says: remember the milk.")
    done = _slop(fake_llm, tmp_path, project, "--prompt", "what is in notes.txt?", "--output-format", "jsonl")
    assert done.returncode == 0, done.stderr
    events = _events(done)
    assert [e["type"] for e in events] == [
        "user",
        "assistant",
        "usage",
        "tool_call",
        "tool_result",
        "assistant",
        "usage",
        "done",
    ]
    user, first, usage, call, result, answer, _, end = events
    assert user["text"] == "what is in notes.txt?" and user["group_id"]
    assert first == {"type": "assistant", "text": "Let me read it.", "interrupted": False}
    assert isinstance(usage["total_tokens"], int) and usage["total_tokens"] > 0
    assert call["name"] == "read_file" and json.loads(call["arguments"]) == {"path": "notes.txt"}
    assert result["name"] == "read_file" and result["status"] == "completed"
    assert isinstance(result["duration"], float | int) and isinstance(result["summary"], str)
    assert answer["text"] == "It says: remember the milk."
    assert end == {"type": "done", "ok": True, "session": "default", "group_id": user["group_id"], "error": None}
    # the tool result went back to the model
    tool_messages = [m for m in fake_llm.last_request().json["messages"] if m["role"] == "tool"]
    assert "remember the milk" in tool_messages[0]["content"]


def test_slash_command_in_batch_mode(fake_llm: FakeLLM, tmp_path: Path, project: Path) -> None:
    store = Store.open(str(tmp_path / "ledger.db"))  # a ledger with one finished turn
    try:
        store.messages.append_many(
            "default",
            store.messages.new_group_id(),
            [
                NewMessage(Role.USER, "hi"),
                NewMessage(Role.ASSISTANT, "Hello!"),
            ],
        )
    finally:
        store.close()
    done = _slop(fake_llm, tmp_path, project, "--prompt", "/message list", "--output-format", "jsonl")
    assert done.returncode == 0, done.stderr
    events = _events(done)
    assert [e["type"] for e in events] == ["table", "done"]
    table = events[0]
    assert table["columns"][:2] == ["GID", "Prompt"] and table["rows"][0][1] == "hi"
    assert events[-1]["ok"] is True and events[-1]["group_id"] is None
    assert not fake_llm.requests, "a slash command does not call the model"


def test_misused_command_exits_2(fake_llm: FakeLLM, tmp_path: Path, project: Path) -> None:
    done = _slop(fake_llm, tmp_path, project, "--prompt", "/throttle abc", "--output-format", "jsonl")
    assert done.returncode == 2
    events = _events(done)
    assert [e["type"] for e in events] == ["error", "done"]
    assert "usage: /throttle" in events[0]["text"]


def test_bad_flag_exits_2(fake_llm: FakeLLM, tmp_path: Path, project: Path) -> None:
    done = _slop(fake_llm, tmp_path, project, "--prompt", "hi", "--output-format", "xml")
    assert done.returncode == 2
    assert "--output-format" in done.stderr
    done = _slop(fake_llm, tmp_path, project, "--no-such-flag")
    assert done.returncode == 2
    assert not fake_llm.requests


def test_provider_401_exits_1(fake_llm: FakeLLM, tmp_path: Path, project: Path) -> None:
    fake_llm.enqueue_error(401)
    done = _slop(fake_llm, tmp_path, project, "--prompt", "hi", "--output-format", "jsonl")
    assert done.returncode == 1
    events = _events(done)
    assert [e["type"] for e in events] == ["user", "error", "info", "done"]
    assert "/retry" in events[2]["text"]  # the message is kept, marked failed
    assert "401" in events[1]["text"]
    assert events[-1]["ok"] is False and events[-1]["error"]


def test_every_call_the_model_made_is_a_tool_call_event(fake_llm: FakeLLM, tmp_path: Path, project: Path) -> None:
    """Unknown tools, invalid arguments and refused approvals too: their arguments show."""
    fake_llm.enqueue_tool_calls(
        [
            ("teleport", {"where": "mars"}),
            ("read_file", '{"path": '),
            ("write_file", {"path": "x.txt", "content": "hi"}),
            ("read_file", {"path": "notes.txt"}),
        ]
    )
    fake_llm.enqueue_text("done")
    done = _slop(fake_llm, tmp_path, project, "--prompt", "go", "--output-format", "jsonl", "--read-only")
    events = _events(done)
    calls = [e for e in events if e["type"] == "tool_call"]
    results = [e for e in events if e["type"] == "tool_result"]
    assert [c["name"] for c in calls] == ["teleport", "read_file", "write_file", "read_file"]
    assert json.loads(calls[0]["arguments"]) == {"where": "mars"} and calls[1]["arguments"] == '{"path": '
    assert json.loads(calls[2]["arguments"]) == {"path": "x.txt", "content": "hi"}
    assert sorted(r["name"] for r in results) == sorted(c["name"] for c in calls)
    assert [r["status"] for r in results].count("error") == 3
    assert not (project / "x.txt").exists()
