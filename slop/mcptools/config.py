"""MCP server settings: one typed record per `[mcp.servers.NAME]` table.

The config file loader hands the tables over as plain data; `servers_from_mapping`
checks them and says in one line what is wrong and where. `--mcp-config FILE` (or
SLOP_MCP_CONFIG) reads a file of its own: TOML with `[mcp.servers.NAME]` tables, or the
JSON `{"mcpServers": {...}}` that Claude Desktop, Cursor and Gemini CLI use."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from slop.errors import ConfigError

DEFAULT_STARTUP_TIMEOUT = 30.0  # seconds for the process to start and list its tools (npx may download first)
DEFAULT_TOOL_TIMEOUT = 600.0  # seconds one tool call may take; Esc stops it sooner
# Start with a letter, then letters, digits, '-' or single '_': the name becomes the
# `NAME__` prefix of wire function names, which OpenAI and Gemini both accept.
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]*(_[A-Za-z0-9-]+)*$")
_MAX_NAME = 24
_KEYS = {
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "read_only",
    "read_only_tools",
    "enabled",
    "startup_timeout",
    "tool_timeout",
    "type",  # the JSON files' "stdio" / "http" marker; the other keys decide
}


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """One MCP server: a stdio `command` or a streamable HTTP `url` (exactly one)."""

    name: str
    command: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)  # may carry tokens
    read_only: bool = False  # true: every tool runs without approval, whatever the server says
    read_only_tools: tuple[str, ...] = ()  # these tools run without approval
    enabled: bool = True  # false: listed by /mcp, not started
    source: str = ""  # where it was configured, for messages
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    tool_timeout: float = DEFAULT_TOOL_TIMEOUT

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"

    @property
    def target(self) -> str:
        """What /mcp shows: the command line or the URL."""
        return self.url or " ".join(self.command)


_SECRET_ENV = re.compile(r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)


def secret_values(configs: Sequence[McpServerConfig]) -> tuple[str, ...]:
    """Values to redact from every tool output: HTTP header values, and env values whose
    name says they are secret (GITHUB_TOKEN, API_KEY, ...). Not other env values: a path
    in NOTES_FILE must stay readable."""
    values: list[str] = []
    for config in configs:
        values += config.headers.values()
        values += [v for k, v in config.env.items() if _SECRET_ENV.search(k)]
        values += [v.split(" ", 1)[1] for v in config.headers.values() if v.lower().startswith("bearer ")]
    return tuple(v for v in values if v)


def servers_from_mapping(servers: Mapping[str, Any], source: str = "config") -> list[McpServerConfig]:
    """`{NAME: {command = [...], ...}}` (a `[mcp.servers]` table) -> checked configs, in name order."""
    if not isinstance(servers, Mapping):
        raise ConfigError(f"{source}: mcp.servers must be a table of servers, got {type(servers).__name__}")
    return [_server(str(name), table, source) for name, table in sorted(servers.items())]


def servers_from_records(records: Mapping[str, Any], source: str = "config") -> list[McpServerConfig]:
    """Records with the same field names (the config file loader's `McpServer`s) -> checked
    configs: wiring that loader in is `servers_from_records(config.mcp_servers())`."""
    tables = {
        name: {key: value for key in _KEYS if (value := getattr(record, key, None)) not in (None, "", (), {})}
        for name, record in records.items()
    }
    return [
        replace(config, source=getattr(records[config.name], "source", "") or source)
        for config in servers_from_mapping(tables, source)
    ]


def _server(name: str, table: Any, source: str) -> McpServerConfig:
    where = f"{source}: [mcp.servers.{name}]"
    if not _NAME.match(name) or len(name) > _MAX_NAME:
        raise ConfigError(
            f"{where}: a server name is a letter then letters, digits, '-' or single '_' "
            f"(at most {_MAX_NAME} characters), e.g. 'github' or 'my-notes'"
        )
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where} must be a table, got {type(table).__name__}")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS - {'type'}))})")
    command = _command(table, where)
    url = _text(table, "url", where)
    if bool(command) == bool(url):
        raise ConfigError(
            f'{where} needs either command = ["program", "arg", ...] (stdio) or url = "https://..." (HTTP)'
        )
    if table.get("type") == "sse":
        raise ConfigError(f"{where}: SSE servers are not supported; give the server's streamable HTTP URL")
    if url and not url.startswith(("http://", "https://")):
        raise ConfigError(f"{where}: url must start with http:// or https://, got {url!r}")
    return McpServerConfig(
        name=name,
        command=command,
        env=_strings(table, "env", where),
        cwd=_text(table, "cwd", where),
        url=url,
        headers=_strings(table, "headers", where),
        read_only=_flag(table, "read_only", False, where),
        read_only_tools=_names(table, "read_only_tools", where),
        enabled=_flag(table, "enabled", True, where),
        source=source,
        startup_timeout=_seconds(table, "startup_timeout", DEFAULT_STARTUP_TIMEOUT, where),
        tool_timeout=_seconds(table, "tool_timeout", DEFAULT_TOOL_TIMEOUT, where),
    )


def _command(table: Mapping[str, Any], where: str) -> tuple[str, ...]:
    """`command = ["npx", "-y", "pkg"]`; the JSON form `"command": "npx", "args": [...]` too."""
    command, args = table.get("command"), table.get("args", [])
    if isinstance(command, str):
        command = [command]
    if command is None:
        if args:
            raise ConfigError(f"{where}: args without a command")
        return ()
    if not _is_str_list(command) or not command or not _is_str_list(args):
        raise ConfigError(f'{where}: command must be a non-empty list of strings, e.g. ["python", "server.py"]')
    return (*command, *args)


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)


def _text(table: Mapping[str, Any], key: str, where: str) -> str:
    value = table.get(key, "")
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {key} must be a string, got {type(value).__name__}")
    return value


def _strings(table: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = table.get(key, {})
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f'{where}: {key} must be a table of strings, e.g. {key} = {{ NAME = "value" }}')
    return {str(k): v for k, v in value.items()}


def _flag(table: Mapping[str, Any], key: str, default: bool, where: str) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: {key} must be true or false, got {value!r}")
    return value


def _names(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not _is_str_list(value):
        raise ConfigError(f'{where}: {key} must be a list of tool names, e.g. ["search", "read"]')
    return tuple(value)


def _seconds(table: Mapping[str, Any], key: str, default: float, where: str) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"{where}: {key} must be a positive number of seconds, got {value!r}")
    return float(value)


def load_mcp_file(path: str | Path) -> list[McpServerConfig]:
    """Servers from a `--mcp-config` file: TOML (`[mcp.servers.NAME]`) or JSON (`mcpServers`)."""
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the MCP config {file}: {exc.strerror or exc}") from exc
    data = _parse_json(text, file) if file.suffix.lower() == ".json" else _parse_toml(text, file)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{file}: expected a table of MCP servers")
    if "mcpServers" in data:
        return servers_from_mapping(data["mcpServers"], str(file))
    servers = data.get("mcp", {}).get("servers") if isinstance(data.get("mcp"), Mapping) else None
    if servers is None:
        raise ConfigError(f'{file}: no MCP servers in it (expected [mcp.servers.NAME] tables or a "mcpServers" object)')
    return servers_from_mapping(servers, str(file))


def _parse_json(text: str, file: Path) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{file} line {exc.lineno}: not valid JSON ({exc.msg})") from exc


def _parse_toml(text: str, file: Path) -> Any:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: tomli is a dependency there
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise ConfigError(f"{file}: reading TOML needs Python 3.11 or tomli; or use a .json file") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML ({exc})") from exc
