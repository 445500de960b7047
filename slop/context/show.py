"""Human-readable renderings of an assembled Prompt, for /context show: the full view
(every layer and message as sent) and the brief one (one line per layer and group)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from slop.context.layout import is_context_message
from slop.parser import parse
from slop.records import HistoryEntry, Prompt, Role, Status

WIRES = {
    "openai": "OpenAI chat-completions",
    "gemini": "Gemini generateContent",
    "gemini_gca": "Gemini Code Assist generateContent",
}


@dataclass(frozen=True, slots=True)
class ShowContext:
    """What the header says besides the prompt itself."""

    provider: str = "none"  # e.g. "openai:gpt-4o-mini"
    wire: str = "openai"  # the wire format (the rows' parsing_strategy column)
    mode: str = "window"
    window: int | None = None
    placeholder: str = ""  # set when the next message is a stand-in
    reason: str = "selected"  # why a group is in the request (the mode's `ContextStrategy.kept_because`)
    depends: str = "the memos and the request's own size"  # what the real message may change
    layout: str = "seed"  # where the volatile layers go (slop.context.layout)


def header(prompt: Prompt, where: ShowContext) -> list[str]:
    window = f" | window: {'all' if where.window == 0 else where.window}" if where.window is not None else ""
    lines = [
        "=== Next request ===",
        f"provider: {where.provider} | wire: {WIRES.get(where.wire, where.wire)} | context mode: {where.mode}{window}"
        f" | layout: {where.layout}",
        f"total: {prompt.total_tokens} tokens"
        + (
            f" of a {prompt.budget} token budget ({100 * prompt.total_tokens // max(1, prompt.budget)}%)"
            if prompt.budget
            else ""
        )
        + f" (system {sum(layer.tokens for layer in prompt.layers)}, tool definitions {prompt.tool_tokens},"
        f" history {prompt.history_tokens})"
        + ("" if prompt.token_estimate_exact else " (estimated: no tokenizer encoding available, counts are chars/4)"),
    ]
    if where.placeholder:
        lines.append(
            f"next message: {where.placeholder} stands in for it; with your real text {where.depends} may differ "
            "(/context show TEXT previews exactly that message)"
        )
    return lines + [f"note: {note}" for note in prompt.notes]


def format_prompt(prompt: Prompt, where: ShowContext | None = None) -> str:
    """The full view: every layer and message as it goes into the request."""
    where = where or ShowContext()
    lines = [*header(prompt, where), ""]
    for layer in prompt.layers:
        lines += [f"--- layer: {layer.name} ({layer.tokens} tokens) ---", layer.text, ""]
    if prompt.tools:
        lines += [
            f"--- tool definitions ({prompt.tool_tokens} tokens): {', '.join(t.name for t in prompt.tools)} ---",
            "",
        ]
    groups = {e.message.group_id for e in prompt.history}
    lines.append(
        f"--- history: {len(prompt.history)} messages in {len(groups)} group(s), {prompt.history_tokens} tokens ---"
    )
    for entry in prompt.history:
        lines += [*_entry_lines(entry), ""]
    return "\n".join(lines)


def _entry_lines(entry: HistoryEntry) -> list[str]:
    msg = entry.message
    if is_context_message(entry):
        return [
            f"[context message (layout cache: STATE, scratchpad, memos, files read) {entry.tokens} tokens]",
            entry.content,
        ]
    flags = " truncated" if entry.truncated else ""
    gid = msg.group_id or "-"
    lines = [f"[{msg.role} #{msg.id or 'next'} gid={gid} {entry.tokens} tokens{flags}]"]
    if msg.role == Role.ASSISTANT and msg.status == Status.TOOL_CALL:
        parsed = parse(msg)
        if parsed.text:
            lines.append(parsed.text)
        lines += [f"-> tool call {c.name}({c.arguments}) id={c.id}" for c in parsed.tool_calls]
    elif msg.role == Role.TOOL:
        lines += [f"<- result for {msg.tool_call_id} ({msg.status}):", entry.content]
    else:
        lines.append(entry.content)
    return lines


def format_brief(prompt: Prompt, where: ShowContext, *, width: int = 100, max_lines: int = 0) -> str:
    """One line per layer and per group: GID, first words, tokens, truncated or not, why it
    is in. With `max_lines`, the oldest group lines give way so the whole fits."""
    lines = [part for line in header(prompt, where) for part in textwrap.wrap(line, width) or [""]]
    lines.append("layers:")
    for layer in prompt.layers:
        lines.append(_fit(f"  {layer.name:<20} {layer.tokens:>7} tok  {_words(layer.text)}", width))
    if prompt.tools:
        lines.append(_fit(f"  {'tool definitions':<20} {prompt.tool_tokens:>7} tok  {len(prompt.tools)} tools", width))
    order: list[str] = []
    by_group: dict[str, list[HistoryEntry]] = {}
    for entry in prompt.history:
        gid = entry.message.group_id or "-"
        if gid not in by_group:
            order.append(gid)
        by_group.setdefault(gid, []).append(entry)
    lines.append(f"history: {len(order)} group(s), {len(prompt.history)} messages, {prompt.history_tokens} tokens")
    room = max_lines - len(lines) - 2 if max_lines else len(order)
    first_shown = max(0, len(order) - max(1, room))
    if first_shown:
        lines.append(f"  … {first_shown} older group(s) not listed (in the request; /context show --full)")
    for i, gid in enumerate(order):
        if i < first_shown:
            continue
        entries = by_group[gid]
        why = "current request" if i == len(order) - 1 else _reason(entries, where.reason)
        cut = sum(e.truncated for e in entries)
        truncated = f"{cut} truncated" if cut else "whole"
        tokens = sum(e.tokens for e in entries)
        context = next((e for e in entries if is_context_message(e)), None)
        if context is not None:
            lines.append(
                _fit(f"  {'context message':<20} {context.tokens:>7} tok  {_words(context.content, 12)}", width)
            )
        first = next((e for e in entries if e.message.role == Role.USER and e is not context), entries[0])
        text = first.content.replace("## Begin Conversation History\n", "")
        text = text.replace("## End of History\n\n### CURRENT REQUEST\n", "")
        lines.append(
            _fit(f"  {gid:<19} {tokens:>7} tok  {len(entries):>3} msg  {truncated:<12} {why:<18} {_words(text)}", width)
        )
    return "\n".join(lines)


def _reason(entries: list[HistoryEntry], reason: str) -> str:
    if any(e.message.role == Role.SYSTEM for e in entries):
        return "summary"
    return reason


def _words(text: str, n: int = 8) -> str:
    words = text.split()
    return " ".join(words[:n]) + (" …" if len(words) > n else "")


def _fit(line: str, width: int) -> str:
    return line if len(line) <= width else line[: max(10, width - 1)] + "…"
