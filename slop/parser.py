"""MessageParser: the one place that reads provider-native JSON.

Pure functions keyed by `parsing_strategy`, no SDK imports:

* `parse(message)` -> ParsedMessage (answer text, tool calls, thoughts) of a stored row;
* `openai_messages(prompt)` / `gemini_contents(prompt)` build a provider's request
  history from the neutral Prompt;
* `openai_native(...)` / `gemini_native(...)` build what a provider stores for a
  tool-call reply, so writers and readers of that JSON live side by side.

Stored native shapes:
  openai:  {"role": "assistant", "content": str|None, "tool_calls": [{"id", "type": "function",
            "function": {"name", "arguments"}}]}
  gemini / gemini_gca: a Gemini REST `Content` in camelCase: {"role": "model", "parts": [
            {"text"}, {"text", "thought": true}, {"functionCall": {"id", "name", "args"},
            "thoughtSignature": base64}]}
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from slop.records import HistoryEntry, Message, ParsedMessage, Prompt, Role, Status, Strategy, ToolCall

__all__ = [
    "parse",
    "openai_native",
    "gemini_native",
    "openai_messages",
    "gemini_contents",
    "display_text",
    "tool_names_by_call_id",
]


class UnreadableRow(ValueError):
    """A stored tool-call row that is not valid JSON of its strategy."""


# ---- reading stored rows -----------------------------------------------------------
def parse(message: Message) -> ParsedMessage:
    """What a stored row says, whichever provider wrote it. Never raises: a mangled
    tool-call row comes back as its raw text with no calls."""
    if message.status != Status.TOOL_CALL or message.role != Role.ASSISTANT:
        return ParsedMessage(text=message.content, thoughts=message.reasoning or "")
    try:
        parsed = _parse_native(message.content, message.parsing_strategy or Strategy.OPENAI)
    except UnreadableRow:
        return ParsedMessage(text=message.content, thoughts=message.reasoning or "")
    if message.reasoning and not parsed.thoughts:
        return ParsedMessage(parsed.text, parsed.tool_calls, message.reasoning)
    return parsed


def _parse_native(content: str, strategy: str) -> ParsedMessage:
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise UnreadableRow(str(exc)) from exc
    if not isinstance(data, dict):
        raise UnreadableRow("not an object")
    if strategy in (Strategy.GEMINI, Strategy.GEMINI_GCA):
        return _parse_gemini(data)
    return _parse_openai(data)


def _parse_openai(data: dict[str, Any]) -> ParsedMessage:
    calls = []
    for i, raw in enumerate(data.get("tool_calls") or []):
        fn = raw.get("function") or {}
        args = fn.get("arguments")
        if not isinstance(args, str):
            args = json.dumps(args if args is not None else {})
        calls.append(ToolCall(str(raw.get("id") or f"call_{i}"), str(fn.get("name") or ""), args))
    text = data.get("content") or ""
    return ParsedMessage(text=text if isinstance(text, str) else json.dumps(text), tool_calls=tuple(calls))


def _parse_gemini(data: dict[str, Any]) -> ParsedMessage:
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[ToolCall] = []
    for i, part in enumerate(data.get("parts") or []):
        if "functionCall" in part:
            fc = part["functionCall"] or {}
            calls.append(
                ToolCall(str(fc.get("id") or f"{fc.get('name', 'call')}_{i}"), str(fc.get("name") or ""),
                         json.dumps(fc.get("args") or {}))
            )
        elif part.get("thought") and "text" in part:
            thoughts.append(part["text"])
        elif "text" in part:
            texts.append(part["text"])
    return ParsedMessage(text="".join(texts), tool_calls=tuple(calls), thoughts="".join(thoughts))


def tool_names_by_call_id(messages: Iterable[Message]) -> dict[str, str]:
    names: dict[str, str] = {}
    for message in messages:
        for call in parse(message).tool_calls:
            names[call.id] = call.name
    return names


# ---- building what a provider stores -----------------------------------------------
def openai_native(text: str, calls: Iterable[ToolCall]) -> str:
    return json.dumps(
        {
            "role": "assistant",
            "content": text or None,
            "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
            ],
        }
    )


def gemini_native(parts: list[dict[str, Any]]) -> str:
    """`parts` in Gemini REST camelCase (thought signatures as base64 strings)."""
    return json.dumps({"role": "model", "parts": parts})


# ---- building a provider's history ---------------------------------------------------
def display_text(entry: HistoryEntry) -> str:
    """The text of a plain (non tool-call) history entry as sent."""
    return entry.content


def openai_messages(prompt: Prompt) -> list[dict[str, Any]]:
    """Chat Completions `messages` for the prompt."""
    out: list[dict[str, Any]] = [{"role": "system", "content": prompt.system_text}]
    for entry in prompt.history:
        msg = entry.message
        if msg.role == Role.TOOL:
            out.append({"role": "tool", "tool_call_id": msg.tool_call_id or "", "content": entry.content})
        elif msg.role == Role.ASSISTANT and msg.status == Status.TOOL_CALL:
            parsed = parse(msg)
            item: dict[str, Any] = {"role": "assistant", "content": parsed.text or None}
            if parsed.tool_calls:
                item["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in parsed.tool_calls
                ]
            out.append(item)
        elif msg.role in (Role.USER, Role.ASSISTANT):
            out.append({"role": msg.role, "content": entry.content})
        elif msg.role == Role.SYSTEM and entry.content:
            out.append({"role": "system", "content": entry.content})
    return out


def gemini_contents(prompt: Prompt) -> list[dict[str, Any]]:
    """Gemini `contents` (REST camelCase dicts) for the prompt; the system text goes
    in `systemInstruction`, which the provider sets from prompt.system_text."""
    names = tool_names_by_call_id(e.message for e in prompt.history)
    contents: list[dict[str, Any]] = []
    for entry in prompt.history:
        role, parts = _gemini_parts(entry, names)
        if not parts:
            continue
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)  # Gemini wants user/model turns to alternate
        else:
            contents.append({"role": role, "parts": parts})
    return contents


def _gemini_parts(entry: HistoryEntry, names: dict[str, str]) -> tuple[str, list[dict[str, Any]]]:
    msg = entry.message
    if msg.role == Role.TOOL:
        call_id = msg.tool_call_id or ""
        key = "error" if msg.status in (Status.ERROR, Status.CANCELLED) else "output"
        response = {"id": call_id, "name": names.get(call_id, "tool"), "response": {key: entry.content}}
        return "user", [{"functionResponse": response}]
    if msg.role == Role.ASSISTANT and msg.status == Status.TOOL_CALL:
        try:
            data = json.loads(msg.content)
            parts = [p for p in data.get("parts", []) if not (p.get("thought") and "thoughtSignature" not in p)]
        except (json.JSONDecodeError, AttributeError):
            parts = [{"text": msg.content}]
        return "model", parts
    if msg.role == Role.SYSTEM:
        return "user", [{"text": entry.content}] if entry.content else []
    role = "model" if msg.role == Role.ASSISTANT else "user"
    return role, [{"text": entry.content}] if entry.content else []
