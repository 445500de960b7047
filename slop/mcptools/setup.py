"""Wiring MCP into a session: which servers, where their logs go, how tools register."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from slop.mcptools.config import McpServerConfig, load_mcp_file
from slop.mcptools.info import McpToolInfo
from slop.mcptools.manager import McpManager, Notify
from slop.mcptools.naming import prefix
from slop.mcptools.tools import build_tools
from slop.records import ToolSpec
from slop.tools.registry import ToolRegistry


def configured_servers(mcp_config: str) -> list[McpServerConfig]:
    """Servers from `--mcp-config FILE` (or $SLOP_MCP_CONFIG, see settings); none when unset."""
    return load_mcp_file(mcp_config) if mcp_config else []


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
