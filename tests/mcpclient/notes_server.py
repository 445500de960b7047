"""A real stdio MCP server for the tests, written with the official SDK (MCPServer, the
SDK's FastMCP successor). Started by slop as a subprocess: `python notes_server.py [MODE]`.

MODE (argv[1] or NOTES_MODE): "ok" (default); "crash" exits before speaking MCP, with a
reason on stderr; "slow-start" sleeps NOTES_START_DELAY s first; "http" serves streamable
HTTP on 127.0.0.1:$NOTES_PORT, with a `token` tool echoing the X-Notes-Token header. Tools:
- add_note (mutating): appends a line to $NOTES_FILE
- list_notes (readOnlyHint): the file's lines
- slow (readOnlyHint): sleeps; writes NOTES_FILE.slow-started / .slow-done markers (a test sees it stopped)
- die (readOnlyHint): the server process exits mid-call
- fail (readOnlyHint): a tool-reported error (isError)
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(readOnlyHint=True)


def notes_file() -> Path:
    return Path(os.environ.get("NOTES_FILE", "notes.txt"))


def build() -> MCPServer:
    server = MCPServer("notes")

    @server.tool(description="Add one note to the notes file")
    def add_note(text: str, tags: list[str] | None = None) -> str:
        line = text if not tags else f"{text} [{', '.join(tags)}]"
        with notes_file().open("a") as out:
            out.write(line + "\n")
        return f"noted: {line}"

    @server.tool(description="List the notes", annotations=READ_ONLY)
    def list_notes() -> str:
        path = notes_file()
        return path.read_text() if path.exists() else "(no notes)"

    @server.tool(description="Wait some seconds, then say done", annotations=READ_ONLY)
    async def slow(seconds: float) -> str:
        import anyio

        Path(str(notes_file()) + ".slow-started").write_text("started")
        await anyio.sleep(seconds)
        Path(str(notes_file()) + ".slow-done").write_text("done")
        return "slept"

    @server.tool(description="Exit the server process", annotations=READ_ONLY)
    def die() -> str:
        print("notes server: dying on request", file=sys.stderr, flush=True)
        os._exit(3)

    @server.tool(description="Always fails", annotations=READ_ONLY)
    def fail(reason: str) -> str:
        raise ValueError(f"cannot do that: {reason}")

    return server


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("NOTES_MODE", "ok")
    if mode == "crash":
        print("notes server: missing NOTES_TOKEN, giving up", file=sys.stderr, flush=True)
        sys.exit(2)
    Path(str(notes_file()) + ".pid").write_text(str(os.getpid()))
    if mode == "slow-start":
        time.sleep(float(os.environ.get("NOTES_START_DELAY", "1")))
    if mode == "http":
        server = build()

        @server.tool(description="The X-Notes-Token header of this request", annotations=READ_ONLY)
        def token(ctx: Context) -> str:
            request = ctx.request_context.request
            return request.headers.get("x-notes-token", "(none)") if request is not None else "(no request)"

        server.run("streamable-http", host="127.0.0.1", port=int(os.environ["NOTES_PORT"]))
        return
    build().run("stdio")


if __name__ == "__main__":
    main()
