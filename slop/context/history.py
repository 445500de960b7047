"""History filters that every strategy shares: tool-call isolation and pair integrity."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from slop.pairs import pair_results
from slop.parser import parse
from slop.records import Message, ParsedMessage, Role, Status, wires_compatible

Parse = Callable[[Message], ParsedMessage]


def isolate(messages: list[Message], wire: str, parse: Parse = parse) -> list[Message]:
    """Keep text everywhere; keep tool calls and results only from a compatible wire.

    A foreign tool-call row that carried assistant text is kept as plain text, so the
    new model still sees what was said."""
    out: list[Message] = []
    for msg in messages:
        if not msg.is_tool_related or wires_compatible(msg.parsing_strategy, wire):
            out.append(msg)
            continue
        if msg.role == Role.ASSISTANT:
            text = parse(msg).text
            if text.strip():
                out.append(replace(msg, content=text, status=Status.COMPLETED))
    return out


def enforce_pairs(messages: list[Message], parse: Parse = parse) -> list[Message]:
    """An assistant tool-call row and all of its results stay together or go together,
    and its results follow it directly, in call order of storage.

    Results are matched to their call row by position (`slop.pairs`); results whose
    call is missing are dropped; a call row with any result missing is reduced to its
    text (providers reject orphans with a 400). Rows written between a call and its
    results (another process on the same session, a result closed after a crash) are
    moved after the results, so a request never separates a call from its results."""
    pairing = pair_results(messages, parse)
    out: list[Message] = []
    for index, msg in enumerate(messages):
        if msg.role == Role.TOOL:
            continue  # emitted right after the call row it answers
        if index not in pairing.call_ids:
            out.append(msg)
        elif pairing.complete(index):
            out.append(msg)
            out.extend(messages[i] for i in pairing.results[index])
        else:
            text = parse(msg).text
            if text.strip():
                out.append(replace(msg, content=text, status=Status.COMPLETED))
    return out


def group_order(messages: list[Message]) -> list[str]:
    """Distinct group ids in order of first appearance."""
    seen: dict[str, None] = {}
    for msg in messages:
        if msg.group_id:
            seen.setdefault(msg.group_id, None)
    return list(seen)
