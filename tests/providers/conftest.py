"""Fixtures for the provider tests: an App wired to the fake LLM, a Code Assist token."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from slop.app import App, build
from slop.approval import ApprovalPolicy
from slop.settings import Settings
from tests.fakellm import FakeLLM
from tests.recording import Recorder

AppFactory = Callable[..., tuple[App, Recorder]]
OPENAI_KEY = "sk-test-openai-123456"
GEMINI_KEY = "gm-test-gemini-123456"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "hello.py").write_text("print('hello')\n")
    (root / "notes.txt").write_text("alpha\nbeta\n")
    return root


@pytest.fixture
def make_app(tmp_path: Path, project: Path, fake_llm: FakeLLM) -> Iterator[AppFactory]:
    """build() with a real Store, the real providers and tools, and a recording sink/IO.

    `provider="openai"` (default) configures both keys, so OpenAI is picked at start
    and /model gemini:NAME can switch; `provider="gemini"` configures only Gemini."""
    apps: list[App] = []

    def factory(provider: str = "openai", *, force: str = "", **overrides: object) -> tuple[App, Recorder]:
        values: dict[str, object] = dict(
            db_path=str(tmp_path / "ledger.db"),
            home=str(tmp_path / "home"),
            project_root=str(project),
            max_retries=0,
            approval="yes",
            gemini_api_key=GEMINI_KEY,
            gemini_base_url=fake_llm.gemini_base_url,
        )
        if provider == "openai":
            values.update(openai_api_key=OPENAI_KEY, openai_base_url=fake_llm.openai_base_url, model="fake-gpt")
        else:
            values.update(model="fake-gemini")
        if force:
            values["provider"] = force  # --provider
        values.update(overrides)
        recorder = Recorder()
        app = build(Settings(**values), recorder, recorder, ApprovalPolicy(str(values["approval"])))  # type: ignore[arg-type]
        apps.append(app)
        return app, recorder

    yield factory
    for app in apps:
        app.close()


def write_token(path: Path, *, expires_in: float = 3600, access: str = "valid-access", **extra: object) -> Path:
    data: dict[str, object] = {
        "access_token": access,
        "refresh_token": "refresh-1",
        "expiry": time.time() + expires_in,
        "client_id": "client-1",
        "client_secret": "secret-1",
    }
    data.update(extra)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    path.chmod(0o600)
    return path


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    return write_token(tmp_path / "home" / "oauth_token.json")


@pytest.fixture
def gca_env(fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> FakeLLM:
    """Point Code Assist and the OAuth token endpoint at the fake."""
    monkeypatch.setenv("SLOP_GCA_BASE_URL", fake_llm.gca_base_url)
    monkeypatch.setenv("SLOP_GCA_TOKEN_URL", fake_llm.token_url)
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT_ID", raising=False)
    return fake_llm
