"""McpManager: the MCP servers of a session, on one event loop thread.

slop is threads plus a cancel Event; the SDK is asyncio (anyio). The manager runs one
asyncio loop on a background thread (an anyio blocking portal: a loop thread whose
tasks can be started and cancelled from other threads with proper cancel scopes).
Each server is one long task that connects, lists the tools, publishes them and then
waits for the connection to end. A tool call from a tool worker thread becomes a task
on that loop; the worker polls it every 50 ms so Esc (the turn's cancel Event) and the
server's tool timeout stop it. Nothing here raises into a turn or the prompt: a server
that fails or dies becomes a state, an error text and one warning line."""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slop.errors import Cancelled
from slop.mcptools.config import McpServerConfig
from slop.mcptools.info import CallOutcome, ConnectionLost, McpToolInfo, ServerError, ServerState, ServerStatus
from slop.mcptools.naming import display_name
from slop.tools.base import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from anyio import CancelScope
    from anyio.from_thread import BlockingPortal

    from slop.mcptools.connection import Connection

log = logging.getLogger(__name__)

POLL_SECONDS = 0.05
SHUTDOWN_SECONDS = 8.0  # the SDK closes stdin, then SIGTERM after 2 s, SIGKILL after 2 more
STOP_SECONDS = 10.0
MAX_REASON = 240

OnTools = Callable[[McpServerConfig, list[McpToolInfo]], list[str]]  # -> the wire names registered
Notify = Callable[[str], None]


@dataclass
class _Run:
    """One server's life: from launch to failure, restart or shutdown."""

    config: McpServerConfig
    log_path: Path
    state: str = ServerState.STARTING
    error: str = ""
    tools: tuple[str, ...] = ()
    connection: Connection | None = None
    future: concurrent.futures.Future[None] | None = None
    done: threading.Event = field(default_factory=threading.Event)
    timed_out: bool = False
    stopping: bool = False


class McpManager:
    def __init__(
        self, configs: Sequence[McpServerConfig], log_dir: Path, on_tools: OnTools, notify: Notify | None = None
    ) -> None:
        self._configs = {c.name: c for c in configs}
        self._log_dir = log_dir
        self._on_tools = on_tools
        self.notify: Notify = notify or (lambda text: log.warning("%s", text))
        self._runs: dict[str, _Run] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._portal: BlockingPortal | None = None
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = None
        self._closed = False

    # ---- what /mcp and the tools ask ------------------------------------------------
    @property
    def names(self) -> list[str]:
        return list(self._configs)

    def config(self, name: str) -> McpServerConfig:
        return self._configs[name]

    def statuses(self) -> list[ServerStatus]:
        with self._lock:
            return [self._status(name) for name in self._configs]

    def _status(self, name: str) -> ServerStatus:
        config, run = self._configs[name], self._runs.get(name)
        state = run.state if run else (ServerState.DISABLED if not config.enabled else ServerState.STOPPED)
        return ServerStatus(
            name=name,
            transport=config.transport,
            target=config.target,
            state=state,
            tools=run.tools if run else (),
            error=run.error if run else "",
            log_path=str(run.log_path) if run and not config.url else "",
        )

    def starting(self) -> list[str]:
        with self._lock:
            return [n for n, r in self._runs.items() if r.state == ServerState.STARTING]

    def wait_started(self, timeout: float, cancel: threading.Event) -> list[str]:
        """Wait until no server is starting (or `timeout`, or `cancel`); the ones still starting."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not cancel.is_set():
                pending = [n for n, r in self._runs.items() if r.state == ServerState.STARTING]
                left = deadline - time.monotonic()
                if not pending or left <= 0:
                    return pending
                self._changed.wait(min(left, POLL_SECONDS * 2))
            return [n for n, r in self._runs.items() if r.state == ServerState.STARTING]

    # ---- life cycle -----------------------------------------------------------------
    def start(self) -> None:
        """Launch every enabled server in the background; returns at once."""
        for config in self._configs.values():
            if config.enabled:
                self._launch(config.name)

    def restart(self, name: str) -> None:
        """Stop the server (if running) and launch it again; its tools are re-listed."""
        if name not in self._configs:
            raise KeyError(name)
        self._stop(name)
        self._configs[name] = replace(self._configs[name], enabled=True)
        self._launch(name)

    def close(self) -> None:
        """Stop every server and the loop thread, within SHUTDOWN_SECONDS."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for run in self._runs.values():
                run.stopping = True
            portal, portal_cm = self._portal, self._portal_cm
        if portal is None or portal_cm is None:
            return

        def stop() -> None:
            try:
                portal.call(portal.stop, True)  # cancel every server task; the SDK cleans up shielded
            except Exception:
                log.debug("MCP loop stop failed", exc_info=True)
            try:
                portal_cm.__exit__(None, None, None)
            except Exception:
                log.debug("MCP loop exit failed", exc_info=True)

        stopper = threading.Thread(target=stop, name="slop-mcp-stop", daemon=True)
        stopper.start()
        stopper.join(SHUTDOWN_SECONDS)
        with self._lock:
            for run in self._runs.values():
                run.state = ServerState.STOPPED

    def _portal_now(self) -> BlockingPortal:
        if self._portal is None:
            from anyio.from_thread import start_blocking_portal

            self._portal_cm = start_blocking_portal("asyncio", name="slop-mcp")
            self._portal = self._portal_cm.__enter__()
        return self._portal

    def _launch(self, name: str) -> None:
        config = self._configs[name]
        self._log_dir.mkdir(parents=True, exist_ok=True)
        run = _Run(config, self._log_dir / f"{name}.log")
        with self._changed:
            if self._closed:
                return
            self._runs[name] = run
            self._changed.notify_all()
            portal = self._portal_now()
        run.future = portal.start_task_soon(self._serve, run, name=f"mcp-{name}")

    def _stop(self, name: str) -> None:
        with self._lock:
            run = self._runs.get(name)
            if run is None:
                return
            run.stopping = True
        if run.future is not None:
            run.future.cancel()
        run.done.wait(STOP_SECONDS)

    # ---- on the loop thread ---------------------------------------------------------
    async def _serve(self, run: _Run) -> None:
        import anyio

        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._watch_startup, run, group.cancel_scope)
                await self._connected(run)
                group.cancel_scope.cancel()
            if run.stopping:
                return
            if run.timed_out:
                self._failed(run, f"did not start within {run.config.startup_timeout:g} s", None)
            else:  # the connection ended on its own: the server is gone
                ready = run.state == ServerState.READY
                self._failed(run, "stopped" if ready else "exited before it finished starting", None)
        except Exception as exc:  # a server's end is a state and a warning, never a crash
            if not run.stopping:
                self._failed(run, "failed to start" if run.state == ServerState.STARTING else "stopped", exc)
        finally:
            run.connection = None
            run.done.set()

    async def _watch_startup(self, run: _Run, scope: CancelScope) -> None:
        import anyio

        await anyio.sleep(run.config.startup_timeout)
        if run.state == ServerState.STARTING:
            run.timed_out = True
            scope.cancel()

    async def _connected(self, run: _Run) -> None:
        from slop.mcptools.connection import connect

        with run.log_path.open("a", encoding="utf-8") as errlog:
            errlog.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting {run.config.target}\n")
            errlog.flush()
            async with connect(run.config, errlog) as connection:
                infos = await connection.list_tools()
                registered = self._on_tools(run.config, infos)
                with self._changed:
                    run.connection, run.tools, run.state = connection, tuple(registered), ServerState.READY
                    self._changed.notify_all()
                await connection.closed.wait()

    def _failed(self, run: _Run, what: str, exc: BaseException | None) -> None:
        reason = _reason(exc, run.log_path if not run.config.url else None)
        text = f"{what}: {reason}" if reason else what
        with self._changed:
            run.state, run.error = ServerState.FAILED, text
            self._changed.notify_all()
        where = f"; log {run.log_path}" if not run.config.url else ""
        self._notify(f"MCP server '{run.config.name}' {text} (/mcp restart {run.config.name}{where})")

    def _notify(self, text: str) -> None:
        try:
            self.notify(text)
        except Exception:
            log.exception("MCP notice failed: %s", text)

    # ---- tool calls (any thread) ----------------------------------------------------
    def call(self, server: str, tool: str, arguments: dict[str, Any], cancel: threading.Event) -> CallOutcome:
        """Run one tool call; raises ToolFailure (server down, timeout, protocol error) or Cancelled."""
        run = self._runs.get(server)
        name = display_name(server, tool)
        connection = run.connection if run else None
        # closed: the server is gone and its end is being recorded
        if run is None or connection is None or connection.closed.is_set() or run.state != ServerState.READY:
            raise ToolFailure(ErrorCode.UNAVAILABLE, _unavailable(server, run))
        if self._portal is None:
            raise ToolFailure(ErrorCode.UNAVAILABLE, _unavailable(server, run))
        future = self._portal.start_task_soon(self._call, connection, tool, arguments)
        deadline = time.monotonic() + run.config.tool_timeout
        while True:
            try:
                outcome: CallOutcome = future.result(timeout=POLL_SECONDS)
                return outcome
            except concurrent.futures.TimeoutError:
                if cancel.is_set():
                    future.cancel()  # cancels the request on the loop (the SDK tells the server)
                    raise Cancelled(f"{name} cancelled") from None
                if time.monotonic() > deadline:
                    future.cancel()
                    raise ToolFailure(
                        ErrorCode.DEADLINE_EXCEEDED,
                        f"{name} did not answer within {run.config.tool_timeout:g} s "
                        f"(tool_timeout of [mcp.servers.{server}])",
                    ) from None
            except concurrent.futures.CancelledError:
                raise Cancelled(f"{name} cancelled") from None
            except ToolFailure:
                raise
            except Exception as exc:
                raise ToolFailure(*_call_error(server, name, exc, run)) from None

    @staticmethod
    async def _call(connection: Connection, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        return await connection.call_tool(tool, arguments)


def _unavailable(server: str, run: _Run | None) -> str:
    if run is None:
        return f"the MCP server '{server}' is not running (/mcp restart {server} starts it)"
    if run.state == ServerState.STARTING:
        return f"the MCP server '{server}' is still starting; try again in a moment"
    why = f" ({run.error})" if run.error else ""
    return f"the MCP server '{server}' is not running{why}; the user can start it again with /mcp restart {server}"


def _call_error(server: str, name: str, exc: Exception, run: _Run) -> tuple[str, str]:
    kind = type(exc).__name__
    if isinstance(exc, ConnectionLost):
        reason = _reason(None, run.log_path if not run.config.url else None)
        tail = f": {reason}" if reason else ""
        return (
            ErrorCode.UNAVAILABLE,
            f"the MCP server '{server}' went away during {name}{tail}; the user can start it again with "
            f"/mcp restart {server}",
        )
    if isinstance(exc, ServerError):
        return ErrorCode.FAILED_PRECONDITION, f"the MCP server '{server}' refused {name}: {exc}"
    log.exception("MCP call %s failed", name)
    return ErrorCode.INTERNAL, f"{name} failed: {kind}: {exc}"


def _reason(exc: BaseException | None, log_path: Path | None) -> str:
    """One line: the innermost error (task groups wrap them), else the server's last stderr line."""
    parts: list[str] = []
    leaf = _leaf(exc) if exc is not None else None
    closed = isinstance(leaf, ConnectionLost) or "connection closed" in str(leaf).lower()
    if leaf is not None and not (closed and log_path is not None):  # the server's stderr says more
        parts.append(f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__)
    last = _last_line(log_path) if log_path is not None else ""
    if last:
        parts.append(last)
    text = " — ".join(parts)
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


def _leaf(exc: BaseException) -> BaseException:
    """anyio task groups wrap errors in (Base)ExceptionGroup (a backport on Python 3.10)."""
    while getattr(exc, "exceptions", None):
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    return exc


def _last_line(path: Path) -> str:
    """The server's last words on stderr (skipping our own start marker)."""
    try:
        with path.open("rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 4096))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    for line in reversed(lines):
        text = line.strip()
        if text and not text.startswith("--- "):
            return text
    return ""
