"""The merged configuration: validated leaves with where each came from, and typed views."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from slop.config.mcp import McpServer, parse_mcp
from slop.config.schema import Key


@dataclass(frozen=True, slots=True)
class Entry:
    value: Any
    source: str  # "user /home/me/.config/slop/config.toml:3"
    key: Key
    where: str = ""  # "/home/me/.config/slop/config.toml line 3", for error messages


@dataclass(frozen=True, slots=True)
class Profile:
    """A named provider profile: `[providers.local] base_url = ...` makes `/model local:NAME` work."""

    name: str
    wire: str = "openai"
    base_url: str = ""
    api_key_env: str = ""
    model: str = ""


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cached_input: float | None = None


@dataclass(frozen=True, slots=True)
class Config:
    entries: Mapping[tuple[str, ...], Entry] = field(default_factory=dict)
    files: tuple[str, ...] = ()  # the files read, lowest precedence first

    def get(self, dotted: str, default: Any = None) -> Any:
        entry = self.entries.get(tuple(dotted.split(".")))
        return default if entry is None else entry.value

    def source(self, dotted: str) -> str:
        entry = self.entries.get(tuple(dotted.split(".")))
        return entry.source if entry else ""

    def settings_values(self) -> dict[str, tuple[Any, str]]:
        """Settings field -> (value, source) for the keys that fill a Settings field."""
        out: dict[str, tuple[Any, str]] = {}
        for entry in self.entries.values():
            field_name = entry.key.setting
            if not field_name:
                continue
            value = entry.value
            if field_name == "color":
                field_name, value = "no_color", not value
            elif field_name == "allow_paths":
                value = tuple(value)
            out[field_name] = (value, entry.source)
        prices = self.prices()
        if prices:  # [prices."MODEL"] tables: Settings.prices rows, (input, cached, output) or (input, output)
            rows = tuple((model, _price_row(p)) for model, p in sorted(prices.items()))
            found = (self.entries.get(("prices", m, "input")) for m in prices)
            out["prices"] = (rows, ", ".join(sorted({e.source for e in found if e})))
        return out

    def _table(self, *prefix: str) -> dict[str, dict[str, Any]]:
        n = len(prefix)
        grouped: dict[str, dict[str, Any]] = {}
        for path, entry in self.entries.items():
            if path[:n] == prefix and len(path) == n + 2:
                grouped.setdefault(path[n], {})[path[n + 1]] = entry.value
        return grouped

    def profiles(self) -> dict[str, Profile]:
        return {name: Profile(name=name, **values) for name, values in self._table("providers").items()}

    def aliases(self) -> dict[str, str]:
        return {path[1]: e.value for path, e in self.entries.items() if path[0] == "models" and len(path) == 2}

    def prices(self) -> dict[str, Price]:
        return {name: Price(**values) for name, values in self._table("prices").items()}

    def tool_approvals(self) -> dict[str, str]:
        return {
            path[1]: e.value
            for path, e in self.entries.items()
            if path[0] == "approvals" and len(path) == 2 and path[1] != "default"
        }

    def mcp_servers(self) -> dict[str, McpServer]:
        values = {p: e.value for p, e in self.entries.items() if p[0] == "mcp"}
        where = {p: e.where for p, e in self.entries.items() if p[0] == "mcp"}
        return parse_mcp(values, where)


def _price_row(price: Price) -> tuple[float, ...]:
    if price.cached_input is None:
        return (price.input, price.output)  # no cache discount known: cached input at the input price
    return (price.input, price.cached_input, price.output)
