"""Plain value records shared by every layer. Stdlib only; no I/O.

Stored message formats (the `content` column), by role and status:

* ``user``: the user's text, then one ``<attachment path="..." kind="file|directory">``
  block per ``@path`` mention (and, in front, the output of any ``!!command``).
* ``assistant`` with status ``completed`` / ``interrupted`` / ``truncated``: the answer
  text (``truncated``: the reply hit the output limit; any tool calls cut with it were
  not run and are not stored).
* ``assistant`` with status ``tool_call``: the provider-native JSON of the reply
  (OpenAI: an assistant message dict with ``tool_calls``; Gemini: a ``Content``
  dict with ``parts``). Only :mod:`slop.parser` reads it.

The ``parsing_strategy`` column (std::slop's schema keeps the name) holds the row's
**wire** format: which provider-native JSON shape its tool rows have (:class:`Wire`).
It has nothing to do with the context *mode* (``/context mode``, ``slop.context``).
* ``tool``: the tool's result text; ``tool_call_id`` links it to its call and the
  status is ``completed``, ``error`` or ``cancelled``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal

# Opens each `@path` attachment in a user message (commands/mentions.py); assembly
# recognises attachment-bearing rows by it (context/assemble.py).
ATTACHMENT_OPEN = "<attachment "


# The stored values are plain strings; these Literal types make a typo a mypy error.
RoleName = Literal["system", "user", "assistant", "tool"]
StatusName = Literal[
    "completed",
    "tool_call",
    "error",
    "cancelled",
    "interrupted",
    "truncated",
    "dropped",
    "compacted",
    "archived",
    "failed",
]
WireName = Literal["openai", "gemini", "gemini_gca"]


class Role:
    SYSTEM: Final = "system"
    USER: Final = "user"
    ASSISTANT: Final = "assistant"
    TOOL: Final = "tool"
    ALL: Final[tuple[RoleName, ...]] = (SYSTEM, USER, ASSISTANT, TOOL)


class Status:
    COMPLETED: Final = "completed"
    TOOL_CALL: Final = "tool_call"
    ERROR: Final = "error"
    CANCELLED: Final = "cancelled"
    INTERRUPTED: Final = "interrupted"  # a reply the user stopped; the partial text is kept
    TRUNCATED: Final = "truncated"  # a reply that hit the output limit (finish_reason "length" / MAX_TOKENS)
    DROPPED: Final = "dropped"  # soft-deleted by /context drop: in the ledger, out of every context
    COMPACTED: Final = "compacted"  # replaced in context by a summary; still in the ledger
    ARCHIVED: Final = "archived"  # moved to cold storage by the relevance context mode
    FAILED: Final = "failed"  # a request whose model call failed: kept, never sent again; /retry resends it
    HIDDEN: Final[tuple[StatusName, ...]] = (DROPPED, COMPACTED, ARCHIVED, FAILED)


class Wire:
    """The wire formats: the provider-native JSON a tool row is stored in and a request
    is built in (``Provider.wire``, the ``parsing_strategy`` column). Code Assist speaks
    Gemini's format inside its own envelope, so its rows replay under Gemini and back."""

    OPENAI: Final = "openai"
    GEMINI: Final = "gemini"
    GEMINI_GCA: Final = "gemini_gca"
    ALL: Final[tuple[WireName, ...]] = (OPENAI, GEMINI, GEMINI_GCA)


_WIRE_FAMILY: Mapping[str, str] = MappingProxyType({Wire.GEMINI: "g", Wire.GEMINI_GCA: "g", Wire.OPENAI: "o"})


def wires_compatible(a: str | None, b: str | None) -> bool:
    """Whether tool rows written under wire `a` can be replayed under wire `b`."""
    if not a or not b or a == b:
        return True  # legacy rows without a wire are kept
    return _WIRE_FAMILY.get(a, a) == _WIRE_FAMILY.get(b, b)


@dataclass(frozen=True, slots=True)
class Message:
    """One row of the `messages` table."""

    id: int
    session_id: str
    role: RoleName
    content: str
    status: StatusName = Status.COMPLETED
    group_id: str | None = None
    tool_call_id: str | None = None
    parsing_strategy: str | None = None  # the wire format (column name from std::slop); None: legacy row
    tokens: int = 0
    created_at: str = ""
    reasoning: str | None = None
    content_tokens: int = 0
    call_ids: str | None = None  # tool-call rows: the ids of their calls, newline-separated

    @property
    def is_tool_related(self) -> bool:
        return self.role == Role.TOOL or self.status == Status.TOOL_CALL

    @property
    def wire(self) -> str | None:
        """The wire format the row was written under (its `parsing_strategy` column)."""
        return self.parsing_strategy


@dataclass(frozen=True, slots=True)
class NewMessage:
    """A message about to be appended (no id yet)."""

    role: RoleName
    content: str
    status: StatusName = Status.COMPLETED
    tool_call_id: str | None = None
    parsing_strategy: str | None = None  # the wire format the row is written under
    tokens: int | None = None  # None: count with the tokenizer on insert
    reasoning: str | None = None
    call_ids: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call the model asked for. `arguments` is the raw JSON text the model sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolResult:
    call_id: str
    name: str
    content: str
    status: StatusName = Status.COMPLETED  # completed | error | cancelled
    duration: float = 0.0


@dataclass(frozen=True, slots=True)
class ParsedMessage:
    """What the parser reads out of a stored row, whatever its wire format."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    thoughts: str = ""


@dataclass(frozen=True, slots=True)
class Usage:
    """What a provider reported for one call. `completion_tokens` is every billed output
    token, reasoning included; `cached_tokens` is the part of `prompt_tokens` served from
    the provider's prompt cache (billed at the cached-input price)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    model: str = ""
    cached_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model sees it: name, description and JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]
    mutating: bool = False


@dataclass(frozen=True, slots=True)
class Memo:
    id: int
    content: str
    tags: tuple[str, ...]
    created_at: str = ""
    source: str = "user"  # "user" (/memo add) or "model" (the save_memo tool)
    project: str = ""  # the project root the memo was saved in


@dataclass(frozen=True, slots=True)
class Skill:
    id: int
    name: str
    description: str
    patch: str
    activation_count: int = 0


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """Per-session settings and working memory (the `sessions` row)."""

    name: str
    context_size: int = 5
    scratchpad: str = ""
    active_skills: tuple[str, ...] = ()
    provider: str = ""
    model: str = ""
    context_mode: str = "window"
    budget: int = 0  # 0: the model's default budget
    throttle: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SessionDefaults:
    """What a session uses for a setting it never set itself (from the config files)."""

    context_size: int = 5
    context_mode: str = "window"
    budget: int = 0
    options: tuple[tuple[str, object], ...] = ()  # context options a session has not set (e.g. layout)


@dataclass(frozen=True, slots=True)
class GroupSummary:
    """One line of /message list."""

    group_id: str
    prompt: str
    tokens: int
    messages: int
    status: str
    created_at: str


@dataclass(frozen=True, slots=True)
class Layer:
    """One named block of the system instruction (system prompt, tools, STATE, ...)."""

    name: str
    text: str
    tokens: int


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One message the history search found (the store finds it, search_history shows it)."""

    message_id: int
    group_id: str | None
    role: str
    status: str
    created_at: str
    snippet: str
    score: float  # FTS5 bm25 rank: more negative = better


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """A message as it goes into the request: `content` may be truncated or prefixed."""

    message: Message
    content: str
    tokens: int
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class Prompt:
    """The exact request content: built by `slop.context.assemble`, sent by a provider,
    and shown by /context show. Providers render it into their wire format through
    its wire module (`slop.providers.openai_wire` / `google_wire`)."""

    layers: tuple[Layer, ...]
    history: tuple[HistoryEntry, ...]
    tools: tuple[ToolSpec, ...]
    wire: str  # the wire format the provider renders this prompt in
    budget: int = 0
    notes: tuple[str, ...] = ()
    token_estimate_exact: bool = True
    output_limit: int = 0  # max tokens of the reply, stated in the request; 0 = the server's default
    tool_tokens: int = 0  # the tool definitions the request carries

    @property
    def history_tokens(self) -> int:
        return sum(e.tokens for e in self.history)

    @property
    def system_text(self) -> str:
        return "\n".join(layer.text for layer in self.layers if layer.text)

    @property
    def total_tokens(self) -> int:
        return sum(layer.tokens for layer in self.layers) + self.tool_tokens + self.history_tokens
