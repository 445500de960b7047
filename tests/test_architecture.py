"""Layering and start-up rules that keep slop fast and its modules honest."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("openai", "google.genai", "tiktoken", "mcp")


@pytest.mark.parametrize("module", ["slop.cli", "slop.app", "slop.ui.repl", "slop.runbatch"])
def test_importing_does_not_load_sdks(module: str) -> None:
    code = f"import sys, {module}\nloaded = [m for m in {HEAVY!r} if m in sys.modules]\nprint(','.join(loaded))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"{module} imported {out} at start-up"


def test_import_contracts_hold() -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is part of the test extras"
    result = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_import_time_output_or_files(tmp_path: Path) -> None:
    code = "import slop, slop.cli, slop.app, slop.store, slop.context.assemble"
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert result.stdout == "" and result.stderr == ""
    assert list(tmp_path.iterdir()) == []
