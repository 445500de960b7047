"""Settings: one frozen dataclass. Precedence: defaults < config files (user < project)
< SLOP_* / provider env vars < flags; `sources` says which one set each field.

SLOP_HOME relocates every user-level file (input history, memos, OAuth token), so a
test isolates all state with one environment variable."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
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
    paste_warn_share: float = 0.25  # ask before sending a message over this share of the budget; 0 = never
    approval: str = "ask"  # ask | yes | read-only
    allow_paths: tuple[str, ...] = ()
    pass_env: tuple[str, ...] = ()  # secret variables execute_bash children may still see
    prompt: str | None = None  # batch mode input
    output_format: str = "text"  # text | json | jsonl
    project_root: str = ""
    home: str = ""  # user-level data dir
    debug: bool = False
    no_color: bool = False
    editor: str = ""  # "" = $VISUAL / $EDITOR
    verbosity: str = "normal"  # quiet | normal | full: tool output shown in the terminal (SLOP_VERBOSE)
    # The user's prices, dollars per 1M tokens: model -> (input, cached input, output) or
    # (input, output); SLOP_PRICES. slop.providers.prices.price_table merges them.
    prices: tuple[tuple[str, tuple[float, ...]], ...] = ()
    mcp_config: str = ""  # --mcp-config FILE (else $SLOP_MCP_CONFIG): MCP servers to start
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
    "verbosity": "SLOP_VERBOSE",
    "mcp_config": "SLOP_MCP_CONFIG",
    "max_retries": "SLOP_MAX_RETRIES",
    "shell_timeout": "SLOP_SHELL_TIMEOUT",
    "step_limit": "SLOP_STEP_LIMIT",
    "request_timeout": "SLOP_REQUEST_TIMEOUT",
    "tool_output_cap": "SLOP_TOOL_OUTPUT_CAP",
    "paste_warn_share": "SLOP_PASTE_WARN_SHARE",
    "prices": "SLOP_PRICES",
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
            if name == "prices":  # SLOP_PRICES prices some models; the files' other models stay priced
                value = tuple({**dict(values.get("prices", ())), **dict(value)}.items())
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
    if env.get("SLOP_VERBOSE"):
        level = env["SLOP_VERBOSE"].strip().lower()
        if level not in ("quiet", "normal", "full"):
            raise ConfigError(f"SLOP_VERBOSE must be quiet, normal or full, got {env['SLOP_VERBOSE']!r}")
        values["verbosity"] = level
    if env.get("SLOP_MCP_CONFIG"):
        values["mcp_config"] = env["SLOP_MCP_CONFIG"]
    for key, name, kind in (
        ("max_retries", "SLOP_MAX_RETRIES", int),
        ("shell_timeout", "SLOP_SHELL_TIMEOUT", float),
        ("step_limit", "SLOP_STEP_LIMIT", int),
        ("request_timeout", "SLOP_REQUEST_TIMEOUT", float),
        ("tool_output_cap", "SLOP_TOOL_OUTPUT_CAP", int),
        ("paste_warn_share", "SLOP_PASTE_WARN_SHARE", float),
    ):
        if env.get(name):
            try:
                values[key] = kind(env[name])
            except ValueError as exc:
                raise ConfigError(f"{name} must be a number, got {env[name]!r}") from exc
    if env.get("SLOP_PRICES"):
        values["prices"] = tuple(parse_prices(env["SLOP_PRICES"]).items())
    if int(values.get("tool_output_cap", MIN_TOOL_OUTPUT_CAP)) < MIN_TOOL_OUTPUT_CAP:  # type: ignore[call-overload]
        raise ConfigError(
            f"SLOP_TOOL_OUTPUT_CAP must be at least {MIN_TOOL_OUTPUT_CAP} bytes (1 MiB), "
            f"got {values['tool_output_cap']}"
        )
    return values


MIN_TOOL_OUTPUT_CAP = 1 << 20


def parse_prices(text: str, source: str = "SLOP_PRICES") -> dict[str, tuple[float, ...]]:
    """`model=INPUT/CACHED/OUTPUT,...` (dollars per 1M tokens; CACHED may be left out:
    `model=INPUT/OUTPUT`). Raises ConfigError saying what is wrong."""
    out: dict[str, tuple[float, ...]] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        model, sep, numbers = item.partition("=")
        fields = numbers.split("/")
        if not sep or not model.strip() or len(fields) not in (2, 3):
            raise ConfigError(f"{source}: {item!r} is not model=INPUT/CACHED/OUTPUT (dollars per 1M tokens)")
        out[model.strip()] = price_numbers(source, model.strip(), fields)
    return out


def price_numbers(source: str, model: str, fields: Iterable[str]) -> tuple[float, ...]:
    """Dollars per 1M tokens as written by the user: numbers, none negative."""
    try:
        values = tuple(float(f) for f in fields)
    except ValueError:
        raise ConfigError(f"{source}: the prices of {model!r} must be numbers (dollars per 1M tokens)") from None
    if any(v < 0 for v in values):
        raise ConfigError(f"{source}: the prices of {model!r} cannot be negative")
    return values


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


PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def private_dir(path: Path) -> None:
    """Create one of slop's own folders (`.slop/`, `$SLOP_HOME`) readable only by the user,
    and take group and other access away from one that exists and is ours."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    tighten(path, PRIVATE_DIR_MODE)


def private_file(path: Path) -> None:
    """Create `path` empty with mode 0600 unless it exists; tighten it if it is ours.

    The ledger, its WAL and SHM files (SQLite gives them the database's mode), the
    input history and the memos hold whole conversations and tool outputs."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, PRIVATE_FILE_MODE))
    except FileExistsError:
        pass
    tighten(path, PRIVATE_FILE_MODE)


def tighten(path: Path, mode: int) -> None:
    """Drop the permission bits outside `mode` from a file or folder the user owns
    (symlinks and other people's files are left alone)."""
    try:
        info = os.lstat(path)
    except OSError:
        return
    if stat.S_ISLNK(info.st_mode) or info.st_uid != os.getuid() or not info.st_mode & 0o777 & ~mode:
        return
    try:
        os.chmod(path, stat.S_IMODE(info.st_mode) & mode)
    except OSError:
        pass  # a read-only file system: nothing better to do


def prepare_db_dir(db_path: Path) -> None:
    """Create the ledger's folder; a `.slop/` folder gets a .gitignore so the user's repo stays clean."""
    folder = db_path.parent
    try:
        if folder.name == ".slop":
            private_dir(folder)
            ignore = folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# slop's ledger and state; not part of the project\n*\n")
        else:
            folder.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)  # the user's folder: only created
    except OSError as exc:
        raise ConfigError(
            f"cannot use {db_path} as the ledger: its folder {folder} cannot be created "
            f"({exc.strerror or exc}); pass --db with a path in a writable folder"
        ) from None


# Provider keys and slop's own secrets: kept out of the environment of commands slop
# runs and redacted from their output. Other credentials (GH_TOKEN, AWS_*) are the
# user's tools' business and stay.
_SECRET_SUFFIXES = ("_API_KEY", "_API_TOKEN")
_SECRET_NAMES = frozenset({"ANTHROPIC_AUTH_TOKEN", "AZURE_OPENAI_AD_TOKEN", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"})
_SLOP_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
MIN_SECRET_LEN = 8  # shorter values would redact ordinary words


def is_secret_name(name: str) -> bool:
    """Whether an environment variable holds a key slop's child processes must not see."""
    upper = name.upper()
    if upper.endswith(_SECRET_SUFFIXES) or upper in _SECRET_NAMES:
        return True
    return upper.startswith("SLOP_") and any(word in upper for word in _SLOP_SECRET_WORDS)


def secrets_of(settings: Settings, environ: dict[str, str] | None = None) -> tuple[str, ...]:
    """Values that must never reach the screen, the ledger or tool output: the keys in
    the settings and every secret-named variable of the environment (GOOGLE_API_KEY
    leaks when GEMINI_API_KEY is the one in use, so not only the active key counts)."""
    env = os.environ if environ is None else environ
    found = [settings.openai_api_key, settings.gemini_api_key]
    found += [value for name, value in env.items() if is_secret_name(name)]
    return tuple(dict.fromkeys(v for v in found if v and len(v) >= MIN_SECRET_LEN))
