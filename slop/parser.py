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

Nothing here raises on a malformed row: a row that is not valid JSON of its strategy
reads back as its raw text with no tool calls. Rows without a strategy (legacy) are
read by their shape; that is the only place the shape of stored JSON is guessed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from slop.records import HistoryEntry, Message, ParsedMessage, Prompt, Role, Status, Strategy, ToolCall
from slop.textsafe import has_surrogates, scrub

__all__ = [
    "decode_json",
    "gemini_args",
    "gemini_contents",
    "gemini_native",
    "is_gemini_family",
    "openai_messages",
    "openai_native",
    "parse",
    "sendable_arguments",
    "tool_names_by_call_id",
    "whole_pairs_gemini",
    "whole_pairs_openai",
]

GEMINI_FAMILY = (Strategy.GEMINI, Strategy.GEMINI_GCA)


class UnreadableRow(ValueError):
    """A stored tool-call row that is not valid JSON of its strategy."""


def is_gemini_family(strategy: str | None) -> bool:
    return strategy in GEMINI_FAMILY


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


def _load_object(content: str | None) -> dict[str, Any]:
    try:
        data = decode_json(content or "")
    except (TypeError, ValueError) as exc:
        raise UnreadableRow(str(exc)) from exc
    if not isinstance(data, dict):
        raise UnreadableRow("not an object")
    return data


def _native_kind(data: dict[str, Any], strategy: str | None) -> str:
    if strategy:
        return Strategy.GEMINI if is_gemini_family(strategy) else Strategy.OPENAI
    return Strategy.GEMINI if isinstance(data.get("parts"), list) else Strategy.OPENAI  # legacy row


def _parse_native(content: str, strategy: str | None) -> ParsedMessage:
    data = _load_object(content)
    if _native_kind(data, strategy) == Strategy.GEMINI:
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


def _function_call(part: dict[str, Any]) -> dict[str, Any] | None:
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
        fc = _function_call(part)
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
        },
        ensure_ascii=False,
    )


def gemini_native(parts: list[dict[str, Any]]) -> str:
    """`parts` in Gemini REST camelCase (thought signatures as base64 strings, kept
    exactly as the API sent them)."""
    return json.dumps({"role": "model", "parts": parts}, ensure_ascii=False)


def gemini_args(arguments: str) -> dict[str, Any]:
    """A call's JSON argument text as the object Gemini's functionCall.args wants
    (the placeholder {} when it is not a JSON object, as for OpenAI)."""
    value = json.loads(sendable_arguments(arguments or "{}"))
    return value if isinstance(value, dict) else {}


# ---- building a provider's history ---------------------------------------------------
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
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": sendable_arguments(c.arguments)},
                    }
                    for c in parsed.tool_calls
                ]
            elif not parsed.text:
                continue  # nothing left to send
            out.append(item)
        elif msg.role == Role.ASSISTANT and not entry.content:
            continue  # an empty reply (kept in the ledger for its reasoning) says nothing
        elif msg.role in (Role.USER, Role.ASSISTANT):
            out.append({"role": msg.role, "content": entry.content})
        elif msg.role == Role.SYSTEM and entry.content:
            out.append({"role": "system", "content": entry.content})
    return out


def whole_pairs_openai(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last line of defence for "a request never separates a call from its result",
    applied by the provider to what it sends: assembly keeps pairs whole, but a row
    edited by hand can say something else than its call_ids column. Each assistant
    message keeps only the calls answered by the tool messages right after it, and only
    those tool messages are kept. Costs one pass over dicts, no parsing."""
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(messages):
        item = messages[i]
        i += 1
        if item["role"] == "tool":
            continue  # a result whose call is not right before it
        if not item.get("tool_calls"):
            out.append(item)
            continue
        calls = {c["id"]: c for c in item["tool_calls"]}
        results: list[dict[str, Any]] = []
        while i < len(messages) and messages[i]["role"] == "tool":
            result = messages[i]
            i += 1
            if result["tool_call_id"] in calls and all(r["tool_call_id"] != result["tool_call_id"] for r in results):
                results.append(result)
        answered = {r["tool_call_id"] for r in results}
        kept = [c for c in item["tool_calls"] if c["id"] in answered and answered.discard(c["id"]) is None]
        if kept:
            out.append({**item, "tool_calls": kept})
            out += results
        elif item.get("content"):
            out.append({"role": "assistant", "content": item["content"]})
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


def whole_pairs_gemini(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """As `whole_pairs_openai` for Gemini: a functionCall stays only when the next
    content answers it, a functionResponse only when it answers the content before it."""
    for i, content in enumerate(contents):
        before = contents[i - 1] if i and content["role"] == "user" else None
        calls = {p["functionCall"].get("id") for p in before["parts"] if "functionCall" in p} if before else set()
        after = contents[i + 1] if i + 1 < len(contents) and content["role"] == "model" else None
        answers = (
            {p["functionResponse"].get("id") for p in after["parts"] if "functionResponse" in p} if after else set()
        )
        content["parts"] = [
            p
            for p in content["parts"]
            if ("functionCall" not in p or p["functionCall"].get("id") in answers)
            and ("functionResponse" not in p or p["functionResponse"].get("id") in calls)
        ]
    merged: list[dict[str, Any]] = []
    for content in contents:
        if not content["parts"]:
            continue
        if merged and merged[-1]["role"] == content["role"]:
            merged[-1]["parts"].extend(content["parts"])
        else:
            merged.append(content)
    return merged


def _gemini_parts(entry: HistoryEntry, names: dict[str, str]) -> tuple[str, list[dict[str, Any]]]:
    msg = entry.message
    if msg.role == Role.TOOL:
        call_id = msg.tool_call_id or ""
        key = "error" if msg.status in (Status.ERROR, Status.CANCELLED) else "output"
        response = {"id": call_id, "name": names.get(call_id, "tool"), "response": {key: entry.content}}
        return "user", [{"functionResponse": response}]
    if msg.role == Role.ASSISTANT and msg.status == Status.TOOL_CALL:
        return "model", _stored_model_parts(msg)
    if msg.role == Role.SYSTEM:
        return "user", [{"text": entry.content}] if entry.content else []
    role = "model" if msg.role == Role.ASSISTANT else "user"
    return role, [{"text": entry.content}] if entry.content else []


def _stored_model_parts(msg: Message) -> list[dict[str, Any]]:
    """A tool-call row as Gemini parts: a Gemini row's own parts, sent back unchanged
    (thought signatures included) except that every functionCall carries the id its
    result is linked by; a row of another shape is rebuilt from what it says."""
    try:
        data = _load_object(msg.content)
    except UnreadableRow:
        return [{"text": msg.content}] if msg.content else []
    if _native_kind(data, msg.parsing_strategy) != Strategy.GEMINI:
        parsed = _parse_openai(data)
        parts: list[dict[str, Any]] = [{"text": parsed.text}] if parsed.text else []
        parts += [
            {"functionCall": {"id": c.id, "name": c.name, "args": gemini_args(c.arguments)}} for c in parsed.tool_calls
        ]
        return parts
    out: list[dict[str, Any]] = []
    raw_parts = data.get("parts")
    for i, part in enumerate(raw_parts if isinstance(raw_parts, list) else []):
        if not isinstance(part, dict):
            continue
        signed = "thoughtSignature" in part
        fc = _function_call(part)
        if fc is not None:
            part = dict(part)
            part.pop("function_call", None)
            part["functionCall"] = {**fc, "id": gemini_call_id(fc, i)}
        elif part.get("thought") and not signed:
            continue  # unsigned thoughts are not replayed
        elif part.get("text") == "" and not signed:
            continue
        out.append(part)
    return out
