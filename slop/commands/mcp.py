"""/mcp: the session's MCP servers — state, tools, last error — and restarting one."""

from __future__ import annotations

from pathlib import Path

from slop.commands.base import CommandContext, Sub, every_word, grouped, usage_error
from slop.commands.helpers import snippet
from slop.errors import CommandError
from slop.mcptools.info import ServerState
from slop.mcptools.manager import McpManager

MCP_USAGE = "/mcp [list] | /mcp restart NAME|all | /mcp log NAME"
LOG_TAIL_BYTES = 64 * 1024
NO_SERVERS = (
    'no MCP servers configured: add [mcp.servers.NAME] tables (command = [...] or url = "...") '
    "to a file and start slop with --mcp-config FILE (or SLOP_MCP_CONFIG); see docs/mcp.md"
)


def _servers(ctx: CommandContext) -> McpManager:
    """The MCP manager, when servers are configured (else what to do about it)."""
    if ctx.mcp is None or not ctx.mcp.names:
        raise CommandError(NO_SERVERS)
    return ctx.mcp


def _list(ctx: CommandContext, rest: str) -> None:
    if rest:
        raise usage_error(MCP_USAGE, "/mcp list takes no arguments")
    manager = ctx.mcp
    if manager is None or not manager.names:
        ctx.io.info(NO_SERVERS)
        return
    rows = [
        [s.name, f"{s.transport}: {snippet(s.target, 40)}", s.state, str(len(s.tools)), snippet(s.error, 70) or "-"]
        for s in manager.statuses()
    ]
    ctx.io.table(
        f"MCP servers ({len(rows)}; their tools are NAME__tool in /tool list)",
        ["Server", "Transport", "State", "Tools", "Last error"],
        rows,
    )


def _names(manager: McpManager, arg: str, usage: str) -> list[str]:
    if not arg:
        raise usage_error(usage, f"which server? ({', '.join(manager.names)})")
    if arg == "all":
        return manager.names
    if arg not in manager.names:
        raise CommandError(f"no MCP server {arg!r}; configured: {', '.join(manager.names)}")
    return [arg]


def _restart(ctx: CommandContext, arg: str) -> None:
    manager = _servers(ctx)
    for name in _names(manager, arg, "/mcp restart NAME|all"):
        manager.restart(name)
        pending = manager.wait_started(_startup_timeout(manager, name), ctx.cancel)
        status = next(s for s in manager.statuses() if s.name == name)
        if status.state == ServerState.READY:
            ctx.io.success(f"MCP server '{name}' running: {len(status.tools)} tool(s)")
        elif name in pending:
            ctx.io.info(f"MCP server '{name}' is still starting; /mcp shows when it is ready")
        # a failure was already reported by the manager's one-line warning


def _startup_timeout(manager: McpManager, name: str) -> float:
    return manager.config(name).startup_timeout + 1.0


def _log(ctx: CommandContext, arg: str) -> None:
    manager = _servers(ctx)
    (name,) = _names(manager, arg, "/mcp log NAME")[:1]
    status = next(s for s in manager.statuses() if s.name == name)
    if not status.log_path:
        raise CommandError(f"MCP server {name!r} is an HTTP server: it has no local log")
    path = Path(status.log_path)
    if not path.exists():
        ctx.io.info(f"MCP server '{name}' has written nothing to {path} yet")
        return
    with path.open("rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - LOG_TAIL_BYTES))
        text = f.read().decode("utf-8", "replace")
    head = f"{path} (last {LOG_TAIL_BYTES // 1024} KiB)\n\n" if size > LOG_TAIL_BYTES else f"{path}\n\n"
    ctx.io.view(head + text, ".log")


def _server_names(ctx: CommandContext) -> list[str]:
    return list(ctx.mcp.names) if ctx.mcp is not None else []


SUBS = (
    Sub("list", "", "Each server's transport, state, tool count and last error (also /mcp alone)", _list),
    Sub(
        "restart",
        "NAME|all",
        "Stop a server (or all of them) and start it again",
        _restart,
        complete=every_word(lambda ctx: [*_server_names(ctx), "all"]),
    ),
    Sub("log", "NAME", "The end of a local server's stderr log", _log, complete=every_word(_server_names)),
)
COMMANDS = (
    grouped(
        "/mcp",
        "MCP servers: state, tool count and last error; restart one, or read its log",
        "Agent Capabilities",
        SUBS,
        default="list",
        usage=MCP_USAGE,
    ),
)
