from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from slop.app import App, build
from slop.approval import ApprovalPolicy
from slop.context.strategies.base import ContextStrategy
from slop.settings import Settings
from tests.e2e.wires import OPENAI, Wire
from tests.fakellm import FakeLLM
from tests.recording import Recorder

AppFactory = Callable[..., tuple[App, Recorder]]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "hello.py").write_text("print('hello')\n")
    return root


@pytest.fixture
def wire() -> Wire:
    """The wire format make_app's provider speaks; test modules that run against both
    import `both_wires` from tests/e2e/wires.py."""
    return OPENAI


@pytest.fixture
def make_app(tmp_path: Path, project: Path, fake_llm: FakeLLM, wire: Wire) -> Iterator[AppFactory]:
    apps: list[App] = []

    def factory(
        *, provider: bool = True, strategies: Mapping[str, ContextStrategy] | None = None, **overrides: object
    ) -> tuple[App, Recorder]:
        values: dict[str, object] = dict(
            db_path=str(tmp_path / "ledger.db"),
            home=str(tmp_path / "home"),
            project_root=str(project),
            max_retries=0,
            approval="yes",
        )
        if provider:
            values.update(wire.settings(fake_llm))
        values.update(overrides)
        recorder = Recorder()
        policy = ApprovalPolicy(str(values["approval"]))
        app = build(Settings(**values), recorder, recorder, policy, strategies=strategies)  # type: ignore[arg-type]
        apps.append(app)
        return app, recorder

    yield factory
    for app in apps:
        app.close()
