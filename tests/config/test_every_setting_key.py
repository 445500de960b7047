"""Every config key that fills a setting reaches it: set in the project file, the started
slop uses the value, `slop config` prints it with the file and line, and the matching
flag or environment variable still wins over it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from slop.cli import main, parser, settings_from
from slop.config.schema import KEYS, Key

# A value for each settings key, different from the default, as TOML and as Settings hold it.
VALUES: dict[str, tuple[str, Any]] = {
    "provider": ('"gemini"', "gemini"),
    "model": ('"gpt-4.1-mini"', "gpt-4.1-mini"),
    "base_url": ('"http://127.0.0.1:8080/v1"', "http://127.0.0.1:8080/v1"),
    "db": ('"var/ledger.db"', "{root}/var/ledger.db"),
    "approvals.default": ('"read-only"', "read-only"),
    "tools.allow_paths": ('["/srv/shared"]', ("/srv/shared",)),
    "tools.shell_timeout": ("300", 300),
    "tools.max_parallel": ("2", 2),
    "tools.step_limit": ("7", 7),
    "tools.output_cap": ("2097152", 2097152),
    "ui.editor": ('"code --wait"', "code --wait"),
    "ui.color": ("false", True),  # Settings.no_color
    "ui.paste_warn_share": ("0.5", 0.5),
    "ui.verbosity": ('"full"', "full"),
    "ui.debug": ("true", True),
}
SETTING_KEYS = [k for k in KEYS if k.setting]


def field_of(key: Key) -> str:
    return "no_color" if key.setting == "color" else key.setting


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def test_the_table_covers_every_settings_key() -> None:
    assert sorted(VALUES) == sorted(k.pattern for k in SETTING_KEYS)


@pytest.mark.parametrize("key", SETTING_KEYS, ids=lambda k: k.pattern)
def test_a_settings_key_in_the_project_file_reaches_the_setting(
    key: Key, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toml, expected = VALUES[key.pattern]
    table, _, name = key.pattern.rpartition(".")
    text = f"# project settings\n[{table}]\n{name} = {toml}\n" if table else f"# project settings\n\n{name} = {toml}\n"
    path = project / ".slop" / "config.toml"
    path.parent.mkdir()
    path.write_text(text)
    settings = settings_from(parser().parse_args([]))
    if isinstance(expected, str):
        expected = expected.format(root=project)
    assert getattr(settings, field_of(key)) == expected
    assert settings.sources[field_of(key)] == f"project {path}:3"
    assert main(["config"]) == 0
    [line] = [line for line in capsys.readouterr().out.splitlines() if line.startswith(f"{key.pattern} = ")]
    assert line.endswith(f"# project {path}:3")


FLAG_WINS = [
    ("model", ["--model", "from-flag"], "model", "from-flag", "flag --model"),
    ("db", ["--db", "flag.db"], "db_path", "flag.db", "flag --db"),
    ("tools.step_limit", ["--step-limit", "9"], "step_limit", 9, "flag --step-limit"),
    ("tools.shell_timeout", ["--shell-timeout", "5"], "shell_timeout", 5.0, "flag --shell-timeout"),
    ("tools.max_parallel", ["--max-parallel-tools", "8"], "max_parallel_tools", 8, "flag --max-parallel-tools"),
    ("approvals.default", ["--yes"], "approval", "yes", "flag --yes/--read-only"),
    ("ui.debug", ["--debug"], "debug", True, "flag --debug"),
    ("tools.allow_paths", ["--allow-path", "/flag"], "allow_paths", ("/flag",), "flag --allow-path"),
]


@pytest.mark.parametrize(("pattern", "flags", "field", "value", "source"), FLAG_WINS, ids=lambda v: str(v))
def test_the_flag_wins_over_the_file(
    pattern: str, flags: list[str], field: str, value: Any, source: str, project: Path
) -> None:
    table, _, name = pattern.rpartition(".")
    toml = VALUES[pattern][0] if pattern != "ui.debug" else "false"
    path = project / ".slop" / "config.toml"
    path.parent.mkdir()
    path.write_text(f"[{table}]\n{name} = {toml}\n" if table else f"{name} = {toml}\n")
    settings = settings_from(parser().parse_args(flags))
    assert getattr(settings, field) == value
    assert settings.sources[field] == source


ENV_WINS = [
    ("model", "SLOP_MODEL", "env-model", "model", "env-model"),
    ("provider", "SLOP_PROVIDER", "openai", "provider", "openai"),
    ("base_url", "OPENAI_BASE_URL", "http://env/v1", "openai_base_url", "http://env/v1"),
    ("tools.step_limit", "SLOP_STEP_LIMIT", "11", "step_limit", 11),
    ("tools.output_cap", "SLOP_TOOL_OUTPUT_CAP", "3145728", "tool_output_cap", 3145728),
    ("ui.editor", "SLOP_EDITOR", "vim", "editor", "vim"),
    ("ui.verbosity", "SLOP_VERBOSE", "quiet", "verbosity", "quiet"),
    ("ui.paste_warn_share", "SLOP_PASTE_WARN_SHARE", "0.1", "paste_warn_share", 0.1),
]


@pytest.mark.parametrize(("pattern", "variable", "raw", "field", "value"), ENV_WINS, ids=lambda v: str(v))
def test_the_environment_wins_over_the_file(
    pattern: str, variable: str, raw: str, field: str, value: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, _, name = pattern.rpartition(".")
    path = project / ".slop" / "config.toml"
    path.parent.mkdir()
    toml = VALUES[pattern][0]
    path.write_text(f"[{table}]\n{name} = {toml}\n" if table else f"{name} = {toml}\n")
    monkeypatch.setenv(variable, raw)
    settings = settings_from(parser().parse_args([]))
    assert getattr(settings, field) == value
    assert settings.sources[field] == f"env {variable}"  # what `slop config` names as the source
