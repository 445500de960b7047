"""The one module that talks to the `mcp` SDK: connect, list tools, call a tool.

Everything here runs on the MCP manager's event loop thread. SDK types stay inside:
callers get `McpToolInfo` and `CallOutcome`. A stdio server's stderr goes to a log
file (never the terminal: it would tear the prompt), and its end of stdout is noticed
at once, so a server that dies while idle is reported without waiting for a call."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any, TextIO

import anyio
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import CONNECTION_CLOSED, Implementation

from slop import __version__
from slop.mcptools.config import McpServerConfig
from slop.mcptools.info import CallOutcome, ConnectionLost, McpToolInfo, ServerError

MAX_PAGES = 100  # a tools/list paginator that never ends cannot hang start-up


@dataclass
class Connection:
    client: Client
    closed: anyio.Event

    async def list_tools(self) -> list[McpToolInfo]:
        tools: list[McpToolInfo] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await _guard(self.client.list_tools(cursor=cursor))
            tools.extend(_tool_info(tool) for tool in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> CallOutcome:
        result = await _guard(self.client.call_tool(name, arguments))
        text = _result_text(result.content, result.structured_content)
        return CallOutcome(text, bool(result.is_error))


async def _guard(awaitable: Any) -> Any:
    try:
        return await awaitable
    except MCPError as exc:
        if exc.code == CONNECTION_CLOSED:
            raise ConnectionLost(exc.message) from None
        raise ServerError(f"{exc.message} (JSON-RPC error {exc.code})") from None
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
        raise ConnectionLost(type(exc).__name__) from None


@asynccontextmanager
async def connect(config: McpServerConfig, errlog: TextIO) -> AsyncIterator[Connection]:
    """Start (stdio) or reach (HTTP) the server and finish the MCP handshake."""
    closed = anyio.Event()
    info = Implementation(name="slop", version=__version__)
    async with AsyncExitStack() as stack:
        transport = await _transport(config, errlog, stack)
        async with Client(_Watched(transport, closed), client_info=info) as client:
            yield Connection(client, closed)


async def _transport(config: McpServerConfig, errlog: TextIO, stack: AsyncExitStack) -> Any:
    if config.url:
        http = None
        if config.headers:  # a client we make is ours to close; the SDK closes only its own
            http = await stack.enter_async_context(create_mcp_http_client(headers=dict(config.headers)))
        return streamable_http_client(config.url, http_client=http)
    params = StdioServerParameters(
        command=config.command[0], args=list(config.command[1:]), env=dict(config.env) or None, cwd=config.cwd or None
    )
    return stdio_client(params, errlog=errlog)


class _Watched:
    """A transport whose read stream sets `closed` when it ends (the server is gone)."""

    def __init__(self, inner: Any, closed: anyio.Event) -> None:
        self._inner = inner
        self._closed = closed

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self._inner.__aenter__()
        return _EofSignal(read, self._closed), write

    async def __aexit__(self, *exc: Any) -> bool | None:
        return bool(await self._inner.__aexit__(*exc))


class _EofSignal:
    def __init__(self, inner: Any, closed: anyio.Event) -> None:
        self._inner = inner
        self._closed = closed

    def __getattr__(self, name: str) -> Any:  # e.g. `last_context` of context-carrying streams
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._closed.set()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _EofSignal:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _EofSignal:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        self._closed.set()
        return bool(await self._inner.__aexit__(*exc))


def _tool_info(tool: Any) -> McpToolInfo:
    annotations = tool.annotations
    return McpToolInfo(
        name=tool.name,
        description=tool.description or "",
        input_schema=dict(tool.input_schema or {}),
        title=tool.title or (annotations.title if annotations and annotations.title else "") or "",
        read_only_hint=bool(annotations and annotations.read_only_hint),
    )


def _result_text(content: list[Any], structured: Any) -> str:
    """The model reads text: text blocks as they are, other blocks as a short note."""
    parts = [_block_text(block) for block in content]
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, indent=2))
    return "\n".join(parts) if parts else "(the tool returned no content)"


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        size = len(block.data) * 3 // 4
        return f"[{kind} {block.mime_type}, about {size} bytes: not shown to the model]"
    if kind == "resource":
        resource = block.resource
        if getattr(resource, "text", None) is not None:
            return f"[resource {resource.uri}]\n{resource.text}"
        mime = getattr(resource, "mime_type", None) or "binary"
        return f"[resource {resource.uri}: {mime} data, not shown to the model]"
    if kind == "resource_link":
        return f"[resource link {block.uri}{' ' + block.name if getattr(block, 'name', '') else ''}]"
    return f"[{kind or 'unknown'} content: not shown to the model]"
