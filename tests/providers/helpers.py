"""Small builders shared by the provider tests."""

from __future__ import annotations

import threading
from typing import Any

from slop.providers.base import ProviderReply, StreamEvent
from slop.records import HistoryEntry, Layer, Message, Prompt, Role, Status, ToolSpec

READ_FILE = ToolSpec(
    "read_file",
    "Read a file",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def msg(
    i: int,
    role: str,
    content: str,
    status: str = Status.COMPLETED,
    *,
    wire: str | None = None,
    call_id: str | None = None,
    group: str = "g1",
    reasoning: str | None = None,
) -> Message:
    return Message(i, "s", role, content, status, group, call_id, wire, reasoning=reasoning)


def prompt_of(
    *messages: Message,
    system: str = "You are a test assistant.",
    tools: tuple[ToolSpec, ...] = (READ_FILE,),
    wire: str = "gemini",
) -> Prompt:
    return Prompt(
        layers=(Layer("system prompt", system, 5),),
        history=tuple(HistoryEntry(m, m.content, 1) for m in messages),
        tools=tools,
        wire=wire,
    )


def user_prompt(text: str = "hello", **kwargs: Any) -> Prompt:
    return prompt_of(msg(1, Role.USER, text), **kwargs)


def run(
    provider: Any, prompt: Prompt, cancel: threading.Event | None = None
) -> tuple[ProviderReply, list[StreamEvent]]:
    events: list[StreamEvent] = []
    reply = provider.stream(prompt, cancel or threading.Event(), events.append)
    return reply, events
