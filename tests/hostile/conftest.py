"""Batch runs of the real engine against the fake server, and checks that every request
slop sends afterwards is one a strict OpenAI-compatible or Gemini server accepts."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from slop.cli import main
from tests.fakellm import FakeLLM, RecordedRequest
from tests.providers.conftest import write_token

TIMEOUT = 120
LONE_SURROGATE = re.compile(r"\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}", re.I)


@dataclass
class Run:
    code: int
    events: list[dict[str, Any]]
    stderr: str

    @property
    def done(self) -> dict[str, Any]:
        return self.events[-1]

    def texts(self, kind: str) -> list[str]:
        return [str(e.get("text", "")) for e in self.events if e["type"] == kind]


def parse_events(stdout: str, stderr: str, code: int) -> Run:
    lines = stdout.splitlines()
    assert lines, f"no output (exit {code}); stderr:\n{stderr}"
    events = [json.loads(line) for line in lines]  # every line is one JSON object
    assert events[-1]["type"] == "done", f"the last line is not `done`: {lines[-1][:300]}"
    assert "Traceback" not in stderr, stderr
    for event in events:
        if event["type"] in ("error", "warning"):
            assert "\n" not in event["text"], f"an error must be one line: {event['text']!r}"
    return Run(code, events, stderr)


@dataclass
class Batch:
    """`slop --prompt TEXT --output-format jsonl` for one protocol, in this process (the
    same main() the console script runs) or as a real child process."""

    fake: FakeLLM
    home: Path
    db: Path
    project: Path
    protocol: str
    monkeypatch: pytest.MonkeyPatch
    capsys: pytest.CaptureFixture[str]

    def env(self) -> dict[str, str]:
        values = {"SLOP_HOME": str(self.home), "SLOP_MAX_RETRIES": "0", "NO_COLOR": "1"}
        if self.protocol == "openai":
            values.update(OPENAI_API_KEY="sk-hostile-123456", OPENAI_BASE_URL=self.fake.openai_base_url)
        elif self.protocol == "gemini":
            values.update(GEMINI_API_KEY="hostile-key", GOOGLE_GEMINI_BASE_URL=self.fake.gemini_base_url)
        else:  # Code Assist: a saved sign-in, both endpoints on the fake
            write_token(self.home / "oauth_token.json")
            values.update(
                SLOP_PROVIDER="gemini_gca",
                SLOP_GCA_BASE_URL=self.fake.gca_base_url,
                SLOP_GCA_TOKEN_URL=self.fake.token_url,
            )
        return values

    def argv(self, prompt: str) -> list[str]:
        return ["--prompt", prompt, "--output-format", "jsonl", "--db", str(self.db), "--yes"]

    def __call__(self, prompt: str) -> Run:
        for key, value in self.env().items():
            self.monkeypatch.setenv(key, value)
        self.monkeypatch.chdir(self.project)
        self.capsys.readouterr()
        code = main(self.argv(prompt))
        out, err = self.capsys.readouterr()
        return parse_events(out, err, code)

    def process(self, prompt: str) -> Run:
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("SLOP_", "OPENAI_", "GEMINI_", "GOOGLE_"))}
        environ.update(self.env())
        done = subprocess.run(
            [sys.executable, "-m", "slop", *self.argv(prompt)],
            cwd=self.project,
            env=environ,
            capture_output=True,
            timeout=TIMEOUT,
        )
        # stdout is read as bytes: it must be valid UTF-8 whatever the model sent
        return parse_events(done.stdout.decode("utf-8"), done.stderr.decode("utf-8", "replace"), done.returncode)

    def crash_logs(self) -> list[Path]:
        return sorted((self.home / "logs").glob("*.log")) if (self.home / "logs").exists() else []


@pytest.fixture
def batch_for(
    fake_llm: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[Callable[[str], Batch]]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("remember the milk\n")
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
        "GOOGLE_CLOUD_PROJECT",
    ):
        monkeypatch.delenv(name, raising=False)

    def make(protocol: str) -> Batch:
        return Batch(fake_llm, tmp_path / "home", tmp_path / "ledger.db", project, protocol, monkeypatch, capsys)

    yield make


# ---- what a strict server accepts ------------------------------------------------------------
def assert_valid_request(request: RecordedRequest) -> None:
    assert not LONE_SURROGATE.search(request.body.decode("utf-8")), "a lone surrogate went out in a request"
    body = request.json
    assert isinstance(body, dict), "the request body is JSON"
    if request.protocol == "openai":
        assert_valid_openai(body)
    elif request.protocol == "gca":
        assert_valid_gemini(body["request"])  # the Code Assist envelope around a GenerateContentRequest
    else:
        assert_valid_gemini(body)


def assert_valid_openai(body: dict[str, Any]) -> None:
    assert isinstance(body.get("max_tokens"), int) and body["max_tokens"] > 0, "an explicit output limit"
    open_calls: list[str] = []
    for message in body["messages"]:
        role = message["role"]
        if open_calls:
            assert role == "tool", f"tool calls {open_calls} are not followed by their results"
        if role == "tool":
            assert message["tool_call_id"] in open_calls, f"a result without its call: {message['tool_call_id']}"
            open_calls.remove(message["tool_call_id"])
        elif role == "assistant":
            assert message.get("content") or message.get("tool_calls"), "an empty assistant message"
            for call in message.get("tool_calls") or []:
                args = json.loads(call["function"]["arguments"])
                assert isinstance(args, dict), "replayed arguments are a JSON object"
                open_calls.append(call["id"])
        else:
            assert isinstance(message.get("content"), str)
    assert not open_calls, f"unanswered calls {open_calls}"


def assert_valid_gemini(body: dict[str, Any]) -> None:
    config = body.get("generationConfig") or {}
    assert isinstance(config.get("maxOutputTokens"), int) and config["maxOutputTokens"] > 0
    contents = body["contents"]
    assert contents and contents[0]["role"] == "user"
    for before, after in itertools.pairwise(contents):
        assert before["role"] != after["role"], "roles alternate"
    for i, content in enumerate(contents):
        calls = [p["functionCall"] for p in content["parts"] if "functionCall" in p]
        for call in calls:
            assert isinstance(call.get("args", {}), dict)
        if calls:
            answers = [p["functionResponse"]["id"] for p in contents[i + 1]["parts"] if "functionResponse" in p]
            assert sorted(answers) == sorted(c.get("id") for c in calls), "every call has its response next"
        responses = [p["functionResponse"] for p in content["parts"] if "functionResponse" in p]
        if responses:
            before = [p["functionCall"].get("id") for p in contents[i - 1]["parts"] if "functionCall" in p] if i else []
            assert all(r.get("id") in before for r in responses), "a response without its call right before"


# ---- the real engine in this process -------------------------------------------------------
@dataclass
class EngineUnderTest:
    """A built app whose output goes through JsonEvents into a strict UTF-8 stream, as
    batch mode's does; `run` returns the outcome and the events that line produced."""

    app: Any
    events: Any
    home: Path

    def run(self, line: str) -> tuple[Any, list[dict[str, Any]]]:
        start = len(self.events.events)
        outcome = self.app.engine.handle(line)
        return outcome, self.events.events[start:]

    def crash_logs(self) -> list[Path]:
        logs = self.home / "logs"
        return sorted(logs.glob("*.log")) if logs.exists() else []


@pytest.fixture
def engine(tmp_path: Path, fake_llm: FakeLLM) -> Iterator[EngineUnderTest]:
    import io

    from slop.app import build
    from slop.approval import ApprovalPolicy
    from slop.batch import JsonEvents
    from slop.settings import Settings

    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "notes.txt").write_text("remember the milk\n")
    settings = Settings(
        db_path=str(tmp_path / "ledger.db"),
        home=str(tmp_path / "home"),
        project_root=str(project),
        openai_api_key="sk-fuzz-123456",
        openai_base_url=fake_llm.openai_base_url,
        model="fake-gpt",
        max_retries=0,
        approval="read-only",
    )
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)  # strict, like stdout
    events = JsonEvents("jsonl", out=out)
    app = build(settings, events, events, ApprovalPolicy("read-only", None, events.warning))
    yield EngineUnderTest(app, events, tmp_path / "home")
    app.close()
