"""Fixtures for the concurrency and crash tests: real `slop` processes on one ledger,
talking to the fake LLM server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakellm import FakeLLM
from tests.providers import conftest as provider_fixtures

# In-process apps on the fake server, both protocols (tests/providers/conftest.py).
make_app = provider_fixtures.make_app
project = provider_fixtures.project

SLOP = shutil.which("slop", path=str(Path(sys.executable).parent)) or "slop"


@dataclass
class SlopRunner:
    """Starts `slop` (batch mode) on one ledger the way a user's second terminal would."""

    db: Path
    project: Path
    env: dict[str, str]

    def popen(self, *args: str, **kwargs: object) -> subprocess.Popen[str]:
        return subprocess.Popen(  # type: ignore[call-overload,no-any-return]
            [SLOP, "--db", str(self.db), *args],
            cwd=self.project,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            **kwargs,
        )

    def run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [SLOP, "--db", str(self.db), *args],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def slop_env(fake: FakeLLM, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE", "SLOP_"))}
    env.update(
        OPENAI_API_KEY="sk-test-reliability-1",
        OPENAI_BASE_URL=fake.openai_base_url,
        SLOP_MAX_RETRIES="0",
        SLOP_HOME=str(home),
        NO_COLOR="1",
    )
    return env


@pytest.fixture
def slop(tmp_path: Path, project: Path, fake_llm: FakeLLM) -> Iterator[SlopRunner]:
    """`project` (from tests/providers/conftest.py) holds hello.py and notes.txt."""
    yield SlopRunner(tmp_path / "ledger.db", project, slop_env(fake_llm, tmp_path / "home"))
