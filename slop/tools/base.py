"""Tool contract: a spec, a function, and the context it runs in."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from slop.errors import ToolError
from slop.records import Memo, SearchHit, Skill, ToolCall, ToolSpec


@dataclass(frozen=True, slots=True)
class RecoveredItem:
    """One group recover_context brought back from cold storage."""

    group_id: str
    overlap: float
    prompt_at_drop: str
    preview: str


class ToolStore(Protocol):
    """The part of the ledger tools may touch."""

    def get_scratchpad(self, session_id: str) -> str: ...
    def set_scratchpad(self, session_id: str, text: str) -> None: ...
    def append_scratchpad(self, session_id: str, text: str) -> str:
        """Append on a new line, atomically; returns the new scratchpad."""
        ...

    def save_memo(self, content: str, tags: list[str]) -> int: ...
    def find_memos(self, tags: list[str], limit: int = 20) -> list[Memo]: ...
    def list_skills(self) -> list[Skill]: ...
    def set_skill_active(self, session_id: str, name: str, active: bool) -> None:
        """Raises KeyError when no skill has that name."""
        ...

    def query_readonly(self, sql: str, max_rows: int, max_chars: int) -> str:
        """Run one read-only statement; raises ToolError when refused or failing."""
        ...

    def describe(self) -> str: ...
    def search_history(self, session_id: str, query: str, limit: int) -> list[SearchHit]:
        """BM25 search over the session's messages, any status; ValueError when nothing to search for."""
        ...

    def recover_context(self, session_id: str, query: str, limit: int) -> list[RecoveredItem]:
        """Bring matching cold-storage groups back into context; ValueError on an empty query."""
        ...


class Approver(Protocol):
    """Decides whether a mutating tool call may run (asks the user, or a policy)."""

    def approve(self, call: ToolCall, preview: str) -> str | None:
        """None: the call may run. Otherwise why not, as the model is told it (after
        `Error: PERMISSION_DENIED: `), so it neither blames the user for a rule nor retries
        what cannot pass."""
        ...


@dataclass(frozen=True, slots=True)
class ToolOutput:
    text: str
    is_error: bool = False


@dataclass
class ToolContext:
    """Everything a tool may use while it runs."""

    root: Path
    session_id: str
    store: ToolStore
    cancel: threading.Event = field(default_factory=threading.Event)
    allowed_paths: tuple[Path, ...] = ()
    shell_timeout: float = 120.0
    output_cap: int = 1 << 20  # bytes of a command's stream kept whole; beyond, the middle is cut
    secrets: tuple[str, ...] = ()  # values redacted from every tool output
    on_file_read: Callable[[str], None] | None = None  # tracks "files already read"
    on_output: Callable[[str], None] | None = None  # output of the running call, as it arrives (live view)
    read_only: bool = False  # --read-only: also refuse what persists beyond the session (memos)
    pass_env: tuple[str, ...] = ()  # key variables execute_bash may still see (--pass-env)


ToolFn = Callable[[dict[str, Any], ToolContext], ToolOutput]


@dataclass(frozen=True, slots=True)
class Tool:
    spec: ToolSpec
    run: ToolFn
    # A one-line description of what a call will do, shown when asking for approval.
    preview: Callable[[dict[str, Any], ToolContext], str] | None = None


# --- Added by the tool layer: error codes and the coded ToolError tools raise. ---

CANCELLED_TEXT = "[Cancelled]"


class ErrorCode:
    """The code names a failed tool result carries (`Error: <CODE>: <message>`)."""

    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    NOT_FOUND = "NOT_FOUND"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    UNAVAILABLE = "UNAVAILABLE"  # an MCP server that is not running
    INTERNAL = "INTERNAL"


def error_text(code: str, message: str) -> str:
    """The one format every failed tool result uses, so the model can spot failures."""
    return f"Error: {code}: {message}"


class ToolFailure(ToolError):
    """A ToolError with a code; dispatch turns it into `Error: <code>: <message>`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def text(self) -> str:
        return error_text(self.code, str(self))
