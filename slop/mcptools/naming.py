"""Wire names of MCP tools: `SERVER__tool`.

The issue asks for `SERVER.tool`, but OpenAI function names must match
`^[a-zA-Z0-9_-]{1,64}$` and Gemini's must start with a letter or '_' and stay within
64 characters, so the dot cannot go on the wire. `__` is valid for both and is what
Claude Code and Codex use too. Characters a tool name may have beyond that (MCP allows
'.') become '_'; a name that would be too long or collide keeps a short hash of the
original so it stays unique and stable across restarts."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

SEPARATOR = "__"
MAX_WIRE_NAME = 64
_INVALID = re.compile(r"[^A-Za-z0-9_-]")


def prefix(server: str) -> str:
    return server + SEPARATOR


def display_name(server: str, tool: str) -> str:
    """How people talk about it: `server.tool` (the MCP convention)."""
    return f"{server}.{tool}"


def wire_names(server: str, tools: Iterable[str]) -> dict[str, str]:
    """Original tool name -> unique wire name, for one server's tool list."""
    names: dict[str, str] = {}
    used: set[str] = set()
    for tool in tools:
        wire = _wire(server, tool)
        if wire in used:  # two originals that sanitise alike ("a.b" and "a_b")
            wire = _hashed(server, tool)
        used.add(wire)
        names[tool] = wire
    return names


def _wire(server: str, tool: str) -> str:
    clean = _INVALID.sub("_", tool)
    wire = prefix(server) + clean
    return wire if clean == tool and len(wire) <= MAX_WIRE_NAME else _hashed(server, tool)


def _hashed(server: str, tool: str) -> str:
    digest = hashlib.sha256(tool.encode()).hexdigest()[:6]
    room = MAX_WIRE_NAME - len(prefix(server)) - len(digest) - 1
    return f"{prefix(server)}{_INVALID.sub('_', tool)[:room]}_{digest}"
