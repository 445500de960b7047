"""History filters that every strategy shares: tool-call isolation and pair integrity."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from slop.parser import parse
from slop.records import Message, ParsedMessage, Role, Status, strategies_compatible

Parse = Callable[[Message], ParsedMessage]


def isolate(messages: list[Message], strategy: str, parse: Parse = parse) -> list[Message]:
    """Keep text everywhere; keep tool calls and results only from a compatible strategy.

    A foreign tool-call row that carried assistant text is kept as plain text, so the
    new model still sees what was said."""
    out: list[Message] = []
    for msg in messages:
        if not msg.is_tool_related or strategies_compatible(msg.parsing_strategy, strategy):
            out.append(msg)
            continue
        if msg.role == Role.ASSISTANT:
            text = parse(msg).text
            if text.strip():
                out.append(replace(msg, content=text, status=Status.COMPLETED))
    return out


def enforce_pairs(messages: list[Message], parse: Parse = parse) -> list[Message]:
    """An assistant tool-call row and all of its results stay together or go together.

    Results whose call is missing are dropped; a call row with any result missing is
    reduced to its text (providers reject orphans with a 400)."""
    calls_by_row: dict[int, set[str]] = {}
    results: set[str] = set()
    for msg in messages:
        if msg.role == Role.ASSISTANT and msg.status == Status.TOOL_CALL:
            calls_by_row[msg.id] = (
                set(msg.call_ids.split("\n")) if msg.call_ids else {c.id for c in parse(msg).tool_calls}
            )
        elif msg.role == Role.TOOL and msg.tool_call_id:
            results.add(msg.tool_call_id)
    complete_calls: set[str] = set()
    for ids in calls_by_row.values():
        if ids and ids <= results:
            complete_calls |= ids
    out: list[Message] = []
    for msg in messages:
        if msg.role == Role.TOOL:
            if msg.tool_call_id in complete_calls:
                out.append(msg)
        elif msg.id in calls_by_row and not (calls_by_row[msg.id] and calls_by_row[msg.id] <= complete_calls):
            text = parse(msg).text
            if text.strip():
                out.append(replace(msg, content=text, status=Status.COMPLETED))
        else:
            out.append(msg)
    return out


def group_order(messages: list[Message]) -> list[str]:
    """Distinct group ids in order of first appearance."""
    seen: dict[str, None] = {}
    for msg in messages:
        if msg.group_id:
            seen.setdefault(msg.group_id, None)
    return list(seen)
