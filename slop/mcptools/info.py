"""Plain records about MCP servers and their tools (no SDK types cross this line)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class McpToolInfo:
    """One tool as the server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    read_only_hint: bool = False


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """A finished tools/call: its text for the model and whether the tool reported an error."""

    text: str
    is_error: bool = False


class ServerState:
    DISABLED = "disabled"  # enabled = false in the config
    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"  # did not start, or died; `error` says why
    STOPPED = "stopped"  # slop is shutting down


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """What /mcp shows about one server."""

    name: str
    transport: str  # stdio | http
    target: str  # command line or URL
    state: str
    tools: tuple[str, ...] = ()  # wire names of its registered tools
    error: str = ""  # the last error (kept after a restart succeeds, until the next failure)
    log_path: str = ""  # the server's stderr (stdio)


class ConnectionLost(Exception):
    """The server went away (its process exited, or the HTTP session ended)."""


class ServerError(Exception):
    """The server answered a request with a JSON-RPC error."""
