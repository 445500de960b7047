"""The small interface the orchestrator talks to, whatever the wire protocol."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from slop.records import Prompt, ToolCall, Usage, WireName


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """Reasoning / thought text: shown dimmed, stored apart from the answer."""

    text: str


StreamEvent = TextDelta | ReasoningDelta
EventCallback = Callable[[StreamEvent], None]


@dataclass(frozen=True, slots=True)
class ProviderReply:
    """One complete model reply.

    `native` is the provider-native JSON of the reply when it holds tool calls (what
    the ledger stores for a `tool_call` row, read back only by `slop.parser`)."""

    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    native: str = ""
    usage: Usage | None = None
    finish_reason: str = "stop"  # stop | tool_calls | length | cancelled
    model: str = ""
    text_tool_problem: str = ""  # the text holds a tool call that could not be run (see text_tools)

    @property
    def cancelled(self) -> bool:
        return self.finish_reason == "cancelled"

    @property
    def truncated(self) -> bool:
        """The reply hit the output limit (OpenAI "length", Gemini MAX_TOKENS)."""
        return self.finish_reason == "length"


class Provider(Protocol):
    """A model endpoint. `wire` is the wire format it speaks (its rows are tagged with it)."""

    wire: WireName
    model: str

    def stream(self, prompt: Prompt, cancel: threading.Event, on_event: EventCallback) -> ProviderReply:
        """Send `prompt`, report deltas through `on_event`, return the whole reply.

        When `cancel` is set the stream is closed and the partial reply is returned
        with finish_reason "cancelled". Failures raise `slop.errors.ProviderError`."""
        ...

    def wire_body(self, prompt: Prompt) -> dict[str, Any]:
        """The JSON body the server receives when `prompt` is sent, without streaming-only
        fields and auth (for /context show --raw). Built by the same function `stream` uses."""
        ...

    def list_models(self) -> list[str]: ...
