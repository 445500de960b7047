"""The tools slop offers the model, looked up by name in a stable order.

The order is the order the model sees them in, so it is fixed here (file
tools first) rather than left to dict or import order. MCP servers add and
replace their tools from a background thread while turns read the registry, so
every change builds a new dict (copy-on-write): a reader always sees one
consistent set, without taking a lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any

from slop.records import ToolSpec
from slop.tools.base import ErrorCode, Tool, ToolContext, ToolFailure, ToolOutput
from slop.tools.db import DESCRIBE_DB, QUERY_DB
from slop.tools.files import READ_FILE, WRITE_FILE
from slop.tools.history import RECOVER_CONTEXT, SEARCH_HISTORY
from slop.tools.listing import LIST_DIRECTORY
from slop.tools.memory import MANAGE_SCRATCHPAD, RETRIEVE_MEMOS, SAVE_MEMO, USE_SKILL
from slop.tools.patch import APPLY_PATCH
from slop.tools.search import GIT_GREP_TOOL, GREP_TOOL
from slop.tools.shell import EXECUTE_BASH


def default_tools() -> list[Tool]:
    """Every built-in tool, in the order they are advertised."""
    return [
        READ_FILE,
        WRITE_FILE,
        APPLY_PATCH,
        LIST_DIRECTORY,
        GREP_TOOL,
        GIT_GREP_TOOL,
        EXECUTE_BASH,
        QUERY_DB,
        DESCRIBE_DB,
        MANAGE_SCRATCHPAD,
        SAVE_MEMO,
        RETRIEVE_MEMOS,
        USE_SKILL,
        SEARCH_HISTORY,
        RECOVER_CONTEXT,
    ]


class ToolRegistry:
    """Tools by name. Iteration and specs() follow registration order."""

    def __init__(self, tools: Iterable[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._write = threading.Lock()  # writers only; readers use whichever dict is current
        for tool in default_tools() if tools is None else tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        with self._write:
            name = tool.spec.name
            if name in self._tools:
                raise ValueError(f"a tool named {name!r} is already registered")
            self._tools = {**self._tools, name: tool}

    def replace_prefixed(self, prefix: str, tools: Iterable[Tool]) -> None:
        """Swap every tool whose name starts with `prefix` for `tools` (an MCP server's
        set after it (re)connects); the new ones go last, in the given order."""
        new = list(tools)
        with self._write:
            kept = {n: t for n, t in self._tools.items() if not n.startswith(prefix)}
            for tool in new:
                if not tool.spec.name.startswith(prefix) or tool.spec.name in kept:
                    raise ValueError(f"cannot register {tool.spec.name!r} under {prefix!r}")
                kept[tool.spec.name] = tool
            self._tools = kept

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [tool.spec for tool in self._tools.values()]

    def with_disabled(self, disabled: Iterable[str]) -> ToolRegistry:
        """A view where each disabled tool is replaced by a refusal: a call to it (the
        model may still try one it saw earlier) runs nothing and says how to enable it."""
        off = set(disabled)
        return ToolRegistry([_refusal(t.spec.name) if t.spec.name in off else t for t in self._tools.values()])

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)


def _refusal(name: str) -> Tool:
    def refuse(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        raise ToolFailure(
            ErrorCode.FAILED_PRECONDITION, f"the tool '{name}' is disabled in this project (/tool enable {name})"
        )

    # Any arguments pass (nothing runs), and no approval is asked for a call that does nothing.
    return Tool(spec=ToolSpec(name, "disabled", {"type": "object", "additionalProperties": True}), run=refuse)
