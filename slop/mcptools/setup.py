"""Wiring MCP into a session: which servers, where their logs go, how tools register."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from slop.mcptools.config import McpServerConfig, load_mcp_file, servers_from_records
from slop.mcptools.info import McpToolInfo
from slop.mcptools.manager import McpManager, Notify
from slop.mcptools.naming import prefix
from slop.mcptools.tools import build_tools
from slop.records import ToolSpec
from slop.tools.registry import ToolRegistry


def configured_servers(mcp_config: str, in_config_files: Mapping[str, Any] | None = None) -> list[McpServerConfig]:
    """The `[mcp.servers.NAME]` tables of the config files (project over user, already
    merged), then the servers of `--mcp-config FILE` (or $SLOP_MCP_CONFIG): like every
    flag, the file named on the command line wins, here server by server."""
    servers = {s.name: s for s in servers_from_records(in_config_files or {})}
    servers.update((s.name, s) for s in (load_mcp_file(mcp_config) if mcp_config else []))
    return [servers[name] for name in sorted(servers)]


def start_mcp(
    configs: Sequence[McpServerConfig],
    registry: ToolRegistry,
    register_specs: Callable[[list[ToolSpec]], None],
    log_dir: Path,
    notify: Notify | None = None,
) -> McpManager:
    """A manager whose servers are already launching in the background (none: it stays idle,
    and the `mcp` SDK is never imported)."""
    manager: McpManager

    def install(config: McpServerConfig, infos: list[McpToolInfo]) -> list[str]:
        tools = build_tools(config, infos, manager.call)
        registry.replace_prefixed(prefix(config.name), tools)
        register_specs([tool.spec for tool in tools])
        return [tool.spec.name for tool in tools]

    manager = McpManager(configs, log_dir, install, notify)
    manager.start()
    return manager
