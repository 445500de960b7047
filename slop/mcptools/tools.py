"""An MCP server's tools as slop `Tool`s: wire name, schema, approval, and a runner.

They then go through everything the built-in tools do: argument validation against
the server's schema, approval (mutating unless the server marks the tool read-only
with `annotations.readOnlyHint` or the config says so), parallel dispatch,
cancellation, redaction, the store cap, truncation and provider isolation."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from slop.mcptools.config import McpServerConfig
from slop.mcptools.info import CallOutcome, McpToolInfo
from slop.mcptools.naming import display_name, wire_names
from slop.records import ToolSpec
from slop.tools.base import ErrorCode, Tool, ToolContext, ToolOutput, error_text
from slop.tools.sinks import HeadTailSink

Call = Callable[[str, str, dict[str, Any], threading.Event], CallOutcome]  # server, tool, args, cancel
PREVIEW_CHARS = 2000
_COMBINATORS = ("anyOf", "oneOf", "allOf")


def build_tools(config: McpServerConfig, infos: Sequence[McpToolInfo], call: Call) -> list[Tool]:
    wires = wire_names(config.name, [info.name for info in infos])
    return [_tool(config, info, wires[info.name], call) for info in infos]


def is_read_only(config: McpServerConfig, info: McpToolInfo) -> bool:
    return config.read_only or info.name in config.read_only_tools or info.read_only_hint


def _tool(config: McpServerConfig, info: McpToolInfo, wire: str, call: Call) -> Tool:
    shown = display_name(config.name, info.name)
    description = info.description or info.title or f"{shown} (a tool of the MCP server '{config.name}')"
    spec = ToolSpec(wire, description, normalize_schema(info.input_schema), mutating=not is_read_only(config, info))

    def run(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        outcome = call(config.name, info.name, args, ctx.cancel)
        text = _capped(outcome.text, ctx.output_cap)
        if outcome.is_error:
            return ToolOutput(error_text(ErrorCode.FAILED_PRECONDITION, f"{shown} reported an error: {text}"), True)
        return ToolOutput(text)

    def preview(args: dict[str, Any], ctx: ToolContext) -> str:
        body = json.dumps(args, ensure_ascii=False, indent=2)
        if len(body) > PREVIEW_CHARS:
            body = body[:PREVIEW_CHARS] + f"\n… ({len(body) - PREVIEW_CHARS} more characters)"
        title = f" — {info.title}" if info.title else ""
        return f"MCP tool {shown}{title} (server '{config.name}': {config.target})\n{body}"

    return Tool(spec=spec, run=run, preview=preview)


def _capped(text: str, cap: int) -> str:
    """The same store cap as command output: head and tail kept, the cut said exactly."""
    data = text.encode("utf-8", "replace")
    if len(data) <= cap:
        return text
    sink = HeadTailSink(cap)
    sink.feed(data)
    return sink.text()


def normalize_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The server's input schema as the model and the validator get it.

    Kept as the server wrote it except: a top-level object with `properties` (OpenAI
    wants them, even empty), no `$schema`/`title` noise, and `additionalProperties: true`
    made explicit on objects that list no properties (free-form maps: JSON Schema allows
    any key there, and slop's validator treats a missing `additionalProperties` as
    false). Objects that do list properties keep rejecting unknown fields, so a model's
    typo is caught with a clear message before the server sees the call."""
    top = {k: v for k, v in (schema or {}).items() if k not in ("$schema", "title")}
    top["type"] = "object"
    top.setdefault("properties", {})
    shaped: dict[str, Any] = _free_form(top, top_level=True)
    return shaped


def _free_form(node: Any, top_level: bool = False) -> Any:
    if isinstance(node, list):
        return [_free_form(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _walk(key, value) for key, value in node.items()}
    is_object = out.get("type") == "object" or (isinstance(out.get("type"), list) and "object" in out["type"])
    if is_object and not top_level and not out.get("properties") and "additionalProperties" not in out:
        out["additionalProperties"] = True
    return out


def _walk(key: str, value: Any) -> Any:
    if key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, dict):
        return {name: _free_form(sub) for name, sub in value.items()}
    if key in ("items", "additionalProperties", "not", *_COMBINATORS):
        return _free_form(value)
    return value
