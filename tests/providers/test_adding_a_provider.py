"""docs/architecture.md "Adding a provider", proven: a provider defined only here (one
class speaking the OpenAI wire through `openai_wire`, against the fake server under
the name "acme") and one ProviderSpec row registered on a ProviderRegistry instance.
Nothing else of slop knows it, yet detection, `/model acme:MODEL`, a tool turn through
the orchestrator, its stored rows and their replay all work."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from slop.app import App, build
from slop.approval import ApprovalPolicy
from slop.cli import BUILTIN_PROVIDERS
from slop.errors import ConfigError
from slop.providers.base import EventCallback, ProviderReply
from slop.providers.openai_wire import OpenAIAccumulator, map_openai_error, request_body, wire_form
from slop.providers.registry import ProviderConfig, ProviderRegistry, ProviderSpec, detect_kind
from slop.providers.specs import BUILTIN_NAMES
from slop.records import Prompt, Role, Status, Wire, WireName
from slop.settings import Settings
from tests.fakellm import FakeLLM
from tests.recording import Recorder

ACME_KEY = "acme-test-key-123456"


class AcmeProvider:
    """The whole of a new provider on an existing wire: the SDK call and a streaming loop."""

    wire: WireName = Wire.OPENAI

    def __init__(self, model: str, base_url: str, api_key: str) -> None:
        self.model, self.base_url, self._api_key = model, base_url, api_key

    @classmethod
    def from_config(cls, model: str, config: ProviderConfig) -> AcmeProvider:
        spec = config.providers.get("acme")
        assert spec is not None
        return cls(model, os.environ["ACME_BASE_URL"], spec.key_of(config))

    def _body(self, prompt: Prompt) -> dict[str, Any]:
        return request_body(prompt, model=self.model, base_url=self.base_url)

    def wire_body(self, prompt: Prompt) -> dict[str, Any]:
        return wire_form(self._body(prompt))

    def stream(self, prompt: Prompt, cancel: threading.Event, on_event: EventCallback) -> ProviderReply:
        import openai

        client = openai.OpenAI(api_key=self._api_key, base_url=self.base_url, max_retries=0)
        acc = OpenAIAccumulator(self.model)
        try:
            for chunk in client.chat.completions.create(**self._body(prompt)):
                for event in acc.add(chunk):
                    on_event(event)
        except Exception as exc:
            raise map_openai_error(exc, self.base_url) from exc
        return acc.reply(cancelled=cancel.is_set())

    def list_models(self) -> list[str]:
        return ["acme-small", "acme-large"]


ACME = ProviderSpec(
    name="acme",
    wire=Wire.OPENAI,
    build=f"{__name__}:AcmeProvider",
    default_model="acme-small",
    key_env=("ACME_API_KEY",),
)


@pytest.fixture
def acme_env(monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM) -> None:
    monkeypatch.setenv("ACME_API_KEY", ACME_KEY)
    monkeypatch.setenv("ACME_BASE_URL", fake_llm.openai_base_url)


def make(tmp_path: Path, table: ProviderRegistry, **keys: str) -> tuple[App, Recorder]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "hello.py").write_text("print('hello')\n")
    settings = Settings(
        db_path=str(tmp_path / "ledger.db"),
        home=str(tmp_path / "home"),
        project_root=str(project),
        max_retries=0,
        approval="yes",
        **keys,  # type: ignore[arg-type]
    )
    recorder = Recorder()
    return build(settings, recorder, recorder, ApprovalPolicy("yes"), provider_table=table), recorder


def generation_requests(fake: FakeLLM) -> list[Any]:
    return [r for r in fake.requests if r.protocol == "openai" and r.method == "POST"]


def test_a_registered_provider_is_detected_runs_a_tool_turn_and_replays_its_rows(
    acme_env: None, tmp_path: Path, fake_llm: FakeLLM
) -> None:
    table = ProviderRegistry()
    table.register(ACME)
    app, _ = make(tmp_path, table)
    assert app.providers.kind == "acme"  # no OpenAI or Gemini key: the acme key decides

    fake_llm.enqueue_tool_calls([("read_file", {"path": "hello.py"}, "id-read")], text="Looking.")
    fake_llm.enqueue_text("It prints hello.")
    outcome = app.engine.handle("what does hello.py do?")
    assert outcome.ok and outcome.turn is not None and outcome.turn.text == "Looking.It prints hello."

    stored = app.store.messages.recent(app.ctx.session, 10)
    assert [(m.role, m.status) for m in stored] == [
        (Role.USER, Status.COMPLETED),
        (Role.ASSISTANT, Status.TOOL_CALL),
        (Role.TOOL, Status.COMPLETED),
        (Role.ASSISTANT, Status.COMPLETED),
    ]
    assert {m.parsing_strategy for m in stored} == {Wire.OPENAI}  # the spec's wire tags the rows
    first, second = generation_requests(fake_llm)
    assert {first.headers["authorization"], second.headers["authorization"]} == {f"Bearer {ACME_KEY}"}
    assert first.json["model"] == second.json["model"] == "acme-small"  # the row's default model
    replayed = second.json["messages"]
    assert [c["id"] for m in replayed for c in m.get("tool_calls") or []] == ["id-read"]
    assert any(m["role"] == "tool" and "print('hello')" in m["content"] for m in replayed)

    fake_llm.enqueue_text("Still hello.")
    assert app.engine.handle("and now?").ok
    again = generation_requests(fake_llm)[-1].json["messages"]
    assert [c["id"] for m in again for c in m.get("tool_calls") or []] == ["id-read"]  # read back from the ledger


def test_model_switches_to_a_registered_provider_and_keeps_tool_rows_of_its_wire(
    acme_env: None, tmp_path: Path, fake_llm: FakeLLM
) -> None:
    table = ProviderRegistry([ACME])
    app, rec = make(tmp_path, table, openai_api_key="sk-openai", openai_base_url=fake_llm.openai_base_url)
    assert app.providers.kind == "openai"  # detection tries the table in order: built-ins first
    fake_llm.enqueue_tool_calls([("read_file", {"path": "hello.py"}, "id-openai")], text="Reading.")
    fake_llm.enqueue_text("It prints hello.")
    assert app.engine.handle("explain hello.py").ok

    assert app.engine.handle("/model acme:acme-large").ok
    message = rec.kinds("success")[-1]
    assert "now using acme · acme-large" in message and "stay out" not in message  # same wire: rows carry over
    assert app.store.sessions.get(app.ctx.session).provider == "acme"
    fake_llm.enqueue_text("ACME-ANSWER")
    assert app.engine.handle("in one word?").ok
    request = generation_requests(fake_llm)[-1]
    assert request.headers["authorization"] == f"Bearer {ACME_KEY}" and request.json["model"] == "acme-large"
    assert [c["id"] for m in request.json["messages"] for c in m.get("tool_calls") or []] == ["id-openai"]

    assert app.engine.handle("/models").ok  # /models lists what the registered class lists
    assert rec.kinds("table")[-1].endswith("  acme-small\n* acme-large")


def test_the_table_is_per_instance_and_names_are_checked() -> None:
    mine = ProviderRegistry()
    mine.register(ACME)
    assert "acme" in mine and "acme" not in ProviderRegistry()  # nothing global was changed
    assert ProviderConfig().kinds() == BUILTIN_NAMES == BUILTIN_PROVIDERS  # the CLI's --provider help agrees
    with pytest.raises(ConfigError):
        mine.register(ProviderSpec(name="bad:name", wire=Wire.OPENAI, build="x:Y", default_model=""))
    with pytest.raises(ConfigError, match="acme"):
        detect_kind(ProviderConfig(), forced="acme")  # an unregistered name is unknown
    assert detect_kind(ProviderConfig(providers=mine), forced="acme") == "acme"


def test_a_registered_provider_without_its_key_says_which_variable_to_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_llm: FakeLLM
) -> None:
    monkeypatch.delenv("ACME_API_KEY", raising=False)
    app, rec = make(
        tmp_path, ProviderRegistry([ACME]), openai_api_key="sk-openai", openai_base_url=fake_llm.openai_base_url
    )
    app.engine.handle("/model acme:acme-large")
    assert "cannot switch to acme: $ACME_API_KEY" in rec.kinds("error")[-1]
    assert app.providers.kind == "openai"
