"""MessageParser: the one place that reads stored rows' provider-native JSON.

Pure functions keyed by a row's wire format (its `parsing_strategy` column), no SDK
imports: `parse(message)` -> ParsedMessage (answer text, tool calls, thoughts),
`parse_cached` (the same, memoised: rows never change once written), the call-id
lookups, and `stored_native` for the wire modules that send a stored row back. Building
requests and the native JSON a provider stores belongs to each wire module
(`slop.providers.openai_wire`, `slop.providers.google_wire`).

Stored native shapes:
  openai:  {"role": "assistant", "content": str|None, "tool_calls": [{"id", "type": "function",
            "function": {"name", "arguments"}}]}
  gemini / gemini_gca: a Gemini REST `Content` in camelCase: {"role": "model", "parts": [
            {"text"}, {"text", "thought": true}, {"functionCall": {"id", "name", "args"},
            "thoughtSignature": base64}]}

Nothing here raises on a malformed row: a row that is not valid JSON of its wire
reads back as its raw text with no tool calls. Rows without a wire (legacy) are
read by their shape; that is the only place the shape of stored JSON is guessed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from slop.records import Message, ParsedMessage, Role, Status, ToolCall, Wire
from slop.textsafe import has_surrogates, scrub

__all__ = [
    "calls_only",
    "decode_json",
    "function_call",
    "gemini_call_id",
    "is_gemini_wire",
    "parse",
    "parse_cached",
    "sendable_arguments",
    "stored_native",
    "tool_names_by_call_id",
    "with_call_ids",
]

GEMINI_WIRES = (Wire.GEMINI, Wire.GEMINI_GCA)
# Rows parsed per process: a long session's window is a few thousand rows at most.
PARSE_CACHE_SIZE = 4096


class UnreadableRow(ValueError):
    """A stored tool-call row that is not valid JSON of its wire."""


def is_gemini_wire(wire: str | None) -> bool:
    return wire in GEMINI_WIRES


def decode_json(text: str) -> Any:
    """`json.loads` for text a model wrote: every way it can be unreadable is a
    ValueError, including nesting deeper than Python's recursion limit ("[" * 50000
    raises RecursionError in the stdlib) and integers past the int-conversion limit.
    Strings come back without lone surrogates (a "\\ud800" escape is valid JSON, but
    no file name, SQLite row or HTTP body can carry what it decodes to)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply to read") from None
    return _scrubbed(value) if _SURROGATE_ESCAPE.search(text) or has_surrogates(text) else value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _scrubbed(value: Any) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [_scrubbed(v) for v in value]
    if isinstance(value, dict):
        return {scrub(k): _scrubbed(v) for k, v in value.items()}
    return value


def sendable_arguments(arguments: str) -> str:
    """A call's arguments as they may go back to a server: the model's own text when it
    is a JSON object, else the placeholder "{}". The ledger keeps what the model sent;
    servers that parse replayed arguments (vLLM, llama.cpp templates) reject anything
    else with a 400 on every later request, and the tool's error result already told
    the model what was wrong. Text with surrogate escapes is re-encoded without them
    (strict JSON parsers such as serde_json and nlohmann reject lone ones)."""
    try:
        value = decode_json(arguments)
    except ValueError:
        return "{}"
    if not isinstance(value, dict):
        return "{}"
    return json.dumps(value, ensure_ascii=False) if _SURROGATE_ESCAPE.search(arguments) else arguments


# ---- reading stored rows -----------------------------------------------------------
def parse(message: Message) -> ParsedMessage:
    """What a stored row says, whichever provider wrote it. Never raises: a mangled
    tool-call row comes back as its raw text with no calls."""
    if message.status != Status.TOOL_CALL or message.role != Role.ASSISTANT:
        return ParsedMessage(text=message.content or "", thoughts=message.reasoning or "")
    try:
        parsed = _parse_native(message.content, message.parsing_strategy)
    except UnreadableRow:
        return ParsedMessage(text=message.content or "", thoughts=message.reasoning or "")
    if message.reasoning and not parsed.thoughts:
        return ParsedMessage(parsed.text, parsed.tool_calls, message.reasoning)
    return parsed


# A stored row never changes (a Message is a frozen record of it), and the same window is
# read on every model call by assembly (pair integrity) and by the provider rendering it:
# both go through this one cache, so each tool-call row is decoded once.
parse_cached = lru_cache(maxsize=PARSE_CACHE_SIZE)(parse)


def stored_native(message: Message) -> tuple[str, dict[str, Any]] | None:
    """A row's native JSON object and the shape it has (Wire.OPENAI or Wire.GEMINI), or
    None when it is not readable JSON (a wire module then sends its text as it is)."""
    try:
        data = _load_object(message.content)
    except UnreadableRow:
        return None
    return _native_kind(data, message.parsing_strategy), data


def calls_only(message: Message) -> str | None:
    """A tool-call row's native content with its text and thoughts left out and its calls
    kept (Gemini: the functionCall parts, with their thought signatures), or None when
    the row has no text to leave out or cannot be read. Used to shorten old steps of a
    turn that is over the budget."""
    if message.status != Status.TOOL_CALL or message.role != Role.ASSISTANT:
        return None
    try:
        data = _load_object(message.content)
    except UnreadableRow:
        return None
    if _native_kind(data, message.parsing_strategy) == Wire.GEMINI:
        raw = data.get("parts")
        parts: list[Any] = raw if isinstance(raw, list) else []
        kept = [p for p in parts if isinstance(p, dict) and function_call(p) is not None]
        return None if len(kept) == len(parts) else json.dumps({"role": "model", "parts": kept}, ensure_ascii=False)
    stripped = {k: v for k, v in data.items() if k not in ("reasoning_content", "reasoning")}
    if not _text_of(data.get("content")) and stripped == data:
        return None
    stripped["content"] = None
    return json.dumps(stripped, ensure_ascii=False)


def _load_object(content: str | None) -> dict[str, Any]:
    try:
        data = decode_json(content or "")
    except (TypeError, ValueError) as exc:
        raise UnreadableRow(str(exc)) from exc
    if not isinstance(data, dict):
        raise UnreadableRow("not an object")
    return data


def _native_kind(data: dict[str, Any], wire: str | None) -> str:
    if wire:
        return Wire.GEMINI if is_gemini_wire(wire) else Wire.OPENAI
    return Wire.GEMINI if isinstance(data.get("parts"), list) else Wire.OPENAI  # legacy row


def _parse_native(content: str, wire: str | None) -> ParsedMessage:
    data = _load_object(content)
    if _native_kind(data, wire) == Wire.GEMINI:
        return _parse_gemini(data)
    return _parse_openai(data)


def _text_of(value: Any) -> str:
    """OpenAI content: a string, null, or a list of content parts."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(
            str(p.get("text") or "") if isinstance(p, dict) else (p if isinstance(p, str) else "") for p in value
        )
    return json.dumps(value, ensure_ascii=False)


def _args_text(args: Any) -> str:
    if isinstance(args, str):
        return args or "{}"
    return json.dumps(args if args is not None else {}, ensure_ascii=False)


def _parse_openai(data: dict[str, Any]) -> ParsedMessage:
    raw_calls = data.get("tool_calls")
    calls = []
    for i, raw in enumerate(raw_calls if isinstance(raw_calls, list) else []):
        if not isinstance(raw, dict):
            continue
        fn = raw.get("function")
        fn = fn if isinstance(fn, dict) else {}
        call_id = str(raw.get("id") or f"call_{i}")
        calls.append(ToolCall(call_id, str(fn.get("name") or ""), _args_text(fn.get("arguments"))))
    thoughts = data.get("reasoning_content") or data.get("reasoning") or ""
    return ParsedMessage(
        text=_text_of(data.get("content")),
        tool_calls=tuple(calls),
        thoughts=thoughts if isinstance(thoughts, str) else "",
    )


def function_call(part: dict[str, Any]) -> dict[str, Any] | None:
    fc = part.get("functionCall", part.get("function_call"))
    if fc is None:
        return None
    return fc if isinstance(fc, dict) else {}


def gemini_call_id(fc: dict[str, Any], index: int) -> str:
    """The id of a stored functionCall: the API's (or the one slop gave it), else a
    fallback derived from its position (legacy rows)."""
    return str(fc.get("id") or f"{fc.get('name') or 'call'}_{index}")


def _parse_gemini(data: dict[str, Any]) -> ParsedMessage:
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[ToolCall] = []
    parts = data.get("parts")
    for i, part in enumerate(parts if isinstance(parts, list) else []):
        if not isinstance(part, dict):
            continue
        fc = function_call(part)
        if fc is not None:
            calls.append(ToolCall(gemini_call_id(fc, i), str(fc.get("name") or ""), _args_text(fc.get("args"))))
            continue
        text = part.get("text")
        if not isinstance(text, str):
            continue
        (thoughts if part.get("thought") else texts).append(text)
    return ParsedMessage(text="".join(texts), tool_calls=tuple(calls), thoughts="".join(thoughts))


def tool_names_by_call_id(messages: Iterable[Message]) -> dict[str, str]:
    names: dict[str, str] = {}
    for message in messages:
        if message.status != Status.TOOL_CALL:
            continue  # only tool-call rows hold calls; skip the cache lookup for the rest
        for call in parse_cached(message).tool_calls:
            names[call.id] = call.name
    return names


# ---- rewriting a stored row ---------------------------------------------------------
def with_call_ids(content: str, wire: str | None, ids: Sequence[str]) -> str:
    """A stored tool-call row with its calls' ids replaced, in the order `parse` reads
    them (the ids slop reserved so they are unique in the ledger). A row that is not
    valid JSON of its wire comes back unchanged."""
    try:
        data = _load_object(content)
    except UnreadableRow:
        return content
    fresh = iter(ids)
    if _native_kind(data, wire) == Wire.GEMINI:
        parts = data.get("parts")
        for part in parts if isinstance(parts, list) else []:
            fc = function_call(part) if isinstance(part, dict) else None
            if fc is not None:
                part.pop("function_call", None)
                part["functionCall"] = {**fc, "id": next(fresh, fc.get("id"))}
    else:
        calls = data.get("tool_calls")
        for raw in calls if isinstance(calls, list) else []:
            if isinstance(raw, dict):
                raw["id"] = next(fresh, raw.get("id"))
    return json.dumps(data, ensure_ascii=False)
