"""Read config files: user level, then project level (project wins), each validated.

    user     $SLOP_HOME/config.toml, or without SLOP_HOME ~/.local/share/slop/config.toml
             then $XDG_CONFIG_HOME/slop/config.toml (default ~/.config/slop/config.toml)
    project  <project root>/.slop/config.toml

Every problem is one ConfigError naming the file and the line. Only the standard
library is used (tomllib; tomli on Python 3.10): start-up stays fast."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from slop.config.locate import key_line
from slop.config.mcp import MCP_KEYS
from slop.config.model import Config, Entry
from slop.config.schema import BUILT_IN_PROVIDERS, KEYS, TOP_LEVEL, Key, find_key
from slop.errors import ConfigError

ALL_KEYS: tuple[Key, ...] = KEYS + MCP_KEYS
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)")


def user_config_paths(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Lowest precedence first."""
    env = os.environ if environ is None else environ
    if env.get("SLOP_HOME"):  # SLOP_HOME relocates every user-level file, the config too
        return [Path(env["SLOP_HOME"]) / "config.toml"]
    data = Path(env.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "slop" / "config.toml"
    xdg = Path(env.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "slop" / "config.toml"
    return [data, xdg]


def project_config_path(root: Path) -> Path:
    return root / ".slop" / "config.toml"


def load_config(root: Path, environ: Mapping[str, str] | None = None) -> Config:
    """The merged configuration of the user's and the project's files (missing files are fine)."""
    layers: list[tuple[Path, str, Path]] = [(p, "user", p.parent) for p in user_config_paths(environ)]
    layers.append((project_config_path(root), "project", root))
    merged: dict[tuple[str, ...], Entry] = {}
    files: list[str] = []
    for path, scope, base in layers:
        entries = load_file(path, scope, base)
        if entries is None:
            continue
        files.append(str(path))
        # a table of free names (a profile, an MCP server) is replaced whole by the higher file,
        # so a project's profile never inherits half of the user's
        for owner in {_owner(k) for k in entries} - {None}:
            merged = {k: v for k, v in merged.items() if _owner(k) != owner}
        merged.update(entries)
    config = Config(merged, tuple(files))
    config.mcp_servers()  # a server with neither or both of command/url fails now, not mid-session
    return config


def _owner(path: tuple[str, ...]) -> tuple[str, ...] | None:
    if path[0] in ("providers", "prices") and len(path) > 2:
        return path[:2]
    if path[:2] == ("mcp", "servers") and len(path) > 3:
        return path[:3]
    return None


def load_file(path: Path, scope: str = "project", base: Path | None = None) -> dict[tuple[str, ...], Entry] | None:
    """One file's validated leaves, or None when it does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}; fix or remove it") from exc
    tomllib = _toml()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        position = _TOML_POSITION.search(message)
        line = f" line {position.group(1)}" if position else ""
        raise ConfigError(f"{path}{line}: {_TOML_POSITION.sub('', message)} (not valid TOML)") from exc
    entries: dict[tuple[str, ...], Entry] = {}
    for key_path, value in _leaves(data):
        line_no = key_line(text, key_path)
        where = f"{path} line {line_no}" if line_no else str(path)
        key = _validate(key_path, value, where)
        if key.path:
            value = _resolve_paths(value, base or path.parent)
        entries[key_path] = Entry(value, f"{scope} {path}" + (f":{line_no}" if line_no else ""), key, where)
    return entries


def _toml() -> Any:
    """tomllib, imported only when a file exists (most start-ups have none to read)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib


def _leaves(data: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out: list[tuple[tuple[str, ...], Any]] = []
    for name, value in data.items():
        path = (*prefix, name)
        if isinstance(value, dict) and find_key(path, ALL_KEYS) is None:
            out += _leaves(value, path)  # an empty table adds nothing
        else:
            out.append((path, value))
    return out


def _validate(path: tuple[str, ...], value: object, where: str) -> Key:
    dotted = ".".join(path)
    if path[0] not in TOP_LEVEL:
        raise ConfigError(f"{where}: unknown key or table {path[0]!r}; known: {', '.join(TOP_LEVEL)}")
    key = find_key(path, ALL_KEYS)
    if key is None:
        raise ConfigError(f"{where}: unknown key {dotted!r}{_suggest(path)}")
    problem = key.check(value)
    if problem:
        raise ConfigError(f"{where}: {dotted} {problem} ({key.help})")
    if path[0] == "providers" and path[1] in BUILT_IN_PROVIDERS:
        raise ConfigError(
            f"{where}: [providers.{path[1]}] would be ignored: {path[1]!r} is a built-in provider; "
            f"give the profile a name of its own, e.g. [providers.{path[1]}-proxy]"
        )
    return key


def _suggest(path: tuple[str, ...]) -> str:
    siblings = sorted(
        {
            k.pattern.split(".")[len(path) - 1]
            for k in ALL_KEYS
            if len(k.pattern.split(".")) == len(path)
            and all(p in ("*", q) for p, q in zip(k.pattern.split(".")[:-1], path[:-1], strict=True))
        }
    )
    return f"; known here: {', '.join(siblings)}" if siblings else ""


def _resolve_paths(value: Any, base: Path) -> Any:
    if isinstance(value, list):
        return [_resolve_paths(v, base) for v in value]
    path = Path(os.path.expanduser(str(value)))
    return str(path if path.is_absolute() else (base / path))
