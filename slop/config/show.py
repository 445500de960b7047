"""`slop config`: the merged configuration as TOML, each value with where it came from."""

from __future__ import annotations

import json
from collections.abc import Mapping

from slop.config.loader import ALL_KEYS
from slop.config.model import Config
from slop.config.schema import Key

_FROM_SETTING = {"color": ("no_color", lambda v: not v)}


def render_config(config: Config, values: Mapping[str, object], sources: Mapping[str, str]) -> str:
    """`values`/`sources`: the Settings fields after flags and environment (sources of the
    fields nobody set are missing: they show as defaults)."""
    files = ", ".join(config.files) or "none found"
    lines = [f"# slop configuration · files read (lowest precedence first): {files}"]
    rows: list[tuple[str, str, str]] = []
    for key in ALL_KEYS:
        if "*" in key.pattern:
            continue
        value, source = _effective(key, config, values, sources)
        if value is not None:
            rows.append((key.pattern, _toml(value), source))
    for path, entry in config.entries.items():  # the free-named tables: profiles, aliases, prices, approvals, mcp
        if "*" in entry.key.pattern:
            rows.append((".".join(_quote(p) for p in path), _toml(entry.value), entry.source))
    width = max(len(f"{k} = {v}") for k, v, _ in rows)
    lines += [f"{f'{k} = {v}':<{width}}  # {s}" for k, v, s in rows]
    return "\n".join(lines)


def _effective(
    key: Key, config: Config, values: Mapping[str, object], sources: Mapping[str, str]
) -> tuple[object, str]:
    if key.setting:
        name, convert = _FROM_SETTING.get(key.setting, (key.setting, lambda v: v))
        value = convert(values.get(name))
        if isinstance(value, tuple):
            value = list(value)
        if value in ("", None, []) and name not in sources:
            return None, ""
        return value, sources.get(name, "default")
    entry = config.entries.get(tuple(key.pattern.split(".")))
    if entry is not None:
        return entry.value, entry.source
    return key.default, "default"


def _quote(part: str) -> str:
    return part if part.replace("_", "").replace("-", "").isalnum() else json.dumps(part)


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)
