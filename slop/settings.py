"""Settings: one frozen dataclass. Precedence: defaults < config files (user < project)
< SLOP_* / provider env vars < flags; `sources` says which one set each field.

SLOP_HOME relocates every user-level file (input history, memos, OAuth token), so a
test isolates all state with one environment variable."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from slop.config import Config
from slop.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Settings:
    db_path: str = ""  # "" = <project root>/.slop/slop.db
    session: str = "default"
    provider: str = ""  # "" = detect: openai, then gemini, then gemini_gca
    model: str = ""
    openai_api_key: str = field(default="", repr=False)
    openai_base_url: str = ""
    gemini_api_key: str = field(default="", repr=False)
    gemini_base_url: str = ""
    strip_reasoning: bool = False
    max_retries: int = 2
    request_timeout: float = 600.0
    max_parallel_tools: int = 4
    step_limit: int = 50
    shell_timeout: float = 120.0
    tool_output_cap: int = 1 << 20  # bytes of a command's stream stored whole (SLOP_TOOL_OUTPUT_CAP)
    approval: str = "ask"  # ask | yes | read-only
    allow_paths: tuple[str, ...] = ()
    prompt: str | None = None  # batch mode input
    output_format: str = "text"  # text | json | jsonl
    project_root: str = ""
    home: str = ""  # user-level data dir
    debug: bool = False
    no_color: bool = False
    editor: str = ""  # "" = $VISUAL / $EDITOR
    config: Config = field(default_factory=Config, repr=False)  # the rest of the config files
    sources: Mapping[str, str] = field(default_factory=dict, repr=False)  # field -> "flag --x", "env X", file


ENV_NAMES: dict[str, str] = {
    "openai_api_key": "OPENAI_API_KEY",
    "openai_base_url": "OPENAI_BASE_URL",
    "gemini_api_key": "GEMINI_API_KEY/GOOGLE_API_KEY",
    "gemini_base_url": "GOOGLE_GEMINI_BASE_URL",
    "no_color": "NO_COLOR",
    "model": "SLOP_MODEL",
    "provider": "SLOP_PROVIDER",
    "db_path": "SLOP_DB",
    "editor": "SLOP_EDITOR",
    "max_retries": "SLOP_MAX_RETRIES",
    "shell_timeout": "SLOP_SHELL_TIMEOUT",
    "step_limit": "SLOP_STEP_LIMIT",
    "request_timeout": "SLOP_REQUEST_TIMEOUT",
    "tool_output_cap": "SLOP_TOOL_OUTPUT_CAP",
}


def merged_settings(config: Config, env: Mapping[str, Any], flags: Mapping[str, tuple[Any, str]]) -> Settings:
    """defaults < config < environment < flags. `env` is `env_settings()`; an empty
    environment value does not hide a configured one. `flags` maps field -> (value, flag)."""
    known = {f.name for f in fields(Settings)}
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, (value, where) in config.settings_values().items():
        values[name], sources[name] = value, where
    for name, value in env.items():
        if value not in ("", False, None):
            values[name], sources[name] = value, f"env {ENV_NAMES.get(name, name)}"
    for name, (value, flag) in flags.items():
        if value is not None:
            values[name] = value
            if flag:
                sources[name] = f"flag {flag}"
    unknown = set(values) - known
    if unknown:  # a programming error, not a user one: keep it loud
        raise ConfigError(f"internal: no setting named {', '.join(sorted(unknown))}")
    return Settings(**values, config=config, sources=sources)


def env_settings(environ: dict[str, str] | None = None) -> dict[str, object]:
    """Values taken from the environment (flags override them)."""
    env = os.environ if environ is None else environ
    values: dict[str, object] = {
        "openai_api_key": env.get("OPENAI_API_KEY", ""),
        "openai_base_url": env.get("OPENAI_BASE_URL", ""),
        "gemini_api_key": env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY", ""),
        "gemini_base_url": env.get("GOOGLE_GEMINI_BASE_URL", ""),
        "no_color": bool(env.get("NO_COLOR")),
    }
    if env.get("SLOP_MODEL"):
        values["model"] = env["SLOP_MODEL"]
    if env.get("SLOP_PROVIDER"):
        values["provider"] = env["SLOP_PROVIDER"]
    if env.get("SLOP_DB"):
        values["db_path"] = env["SLOP_DB"]
    if env.get("SLOP_EDITOR"):
        values["editor"] = env["SLOP_EDITOR"]
    for key, name, kind in (
        ("max_retries", "SLOP_MAX_RETRIES", int),
        ("shell_timeout", "SLOP_SHELL_TIMEOUT", float),
        ("step_limit", "SLOP_STEP_LIMIT", int),
        ("request_timeout", "SLOP_REQUEST_TIMEOUT", float),
        ("tool_output_cap", "SLOP_TOOL_OUTPUT_CAP", int),
    ):
        if env.get(name):
            try:
                values[key] = kind(env[name])
            except ValueError as exc:
                raise ConfigError(f"{name} must be a number, got {env[name]!r}") from exc
    if int(values.get("tool_output_cap", MIN_TOOL_OUTPUT_CAP)) < MIN_TOOL_OUTPUT_CAP:  # type: ignore[call-overload]
        raise ConfigError(
            f"SLOP_TOOL_OUTPUT_CAP must be at least {MIN_TOOL_OUTPUT_CAP} bytes (1 MiB), "
            f"got {values['tool_output_cap']}"
        )
    return values


MIN_TOOL_OUTPUT_CAP = 1 << 20


def user_home(environ: dict[str, str] | None = None) -> Path:
    """Where user-level files live: $SLOP_HOME, else the platform data dir."""
    env = os.environ if environ is None else environ
    if env.get("SLOP_HOME"):
        return Path(env["SLOP_HOME"])
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "slop"


def project_root(start: Path | None = None) -> Path:
    """The git top level above `start` (no subprocess: walks up looking for .git), else `start`."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here


def default_db_path(root: Path) -> Path:
    return root / ".slop" / "slop.db"


def prepare_db_dir(db_path: Path) -> None:
    """Create the ledger's folder; a `.slop/` folder gets a .gitignore so the user's repo stays clean."""
    folder = db_path.parent
    folder.mkdir(parents=True, exist_ok=True)
    if folder.name == ".slop":
        ignore = folder / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# slop's ledger and state; not part of the project\n*\n")


def secrets_of(settings: Settings) -> tuple[str, ...]:
    """Values that must never reach the screen, the ledger or tool output."""
    return tuple(v for v in (settings.openai_api_key, settings.gemini_api_key) if v and len(v) >= 8)
