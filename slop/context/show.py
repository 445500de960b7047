"""Human-readable rendering of an assembled Prompt, for /context show."""

from __future__ import annotations

from slop.parser import parse
from slop.records import Prompt, Role, Status


def format_prompt(prompt: Prompt, *, mode: str = "window", window: int | None = None) -> str:
    lines = [
        "=== Assembled Context ===",
        f"strategy: {prompt.strategy} | context mode: {mode}"
        + (f" | window: {'all' if window == 0 else window}" if window is not None else ""),
        f"total: {prompt.total_tokens} tokens"
        + (
            f" of a {prompt.budget} token budget ({100 * prompt.total_tokens // max(1, prompt.budget)}%)"
            if prompt.budget
            else ""
        )
        + ("" if prompt.token_estimate_exact else " (estimated: no tokenizer encoding available, counts are chars/4)"),
    ]
    lines += [f"note: {note}" for note in prompt.notes]
    lines.append("")
    for layer in prompt.layers:
        lines += [f"--- layer: {layer.name} ({layer.tokens} tokens) ---", layer.text, ""]
    groups = {e.message.group_id for e in prompt.history}
    lines.append(
        f"--- history: {len(prompt.history)} messages in {len(groups)} group(s), "
        f"{sum(e.tokens for e in prompt.history)} tokens ---"
    )
    for entry in prompt.history:
        msg = entry.message
        flags = " truncated" if entry.truncated else ""
        lines.append(f"[{msg.role} #{msg.id} gid={msg.group_id or '-'} {entry.tokens} tokens{flags}]")
        if msg.role == Role.ASSISTANT and msg.status == Status.TOOL_CALL:
            parsed = parse(msg)
            if parsed.text:
                lines.append(parsed.text)
            lines += [f"-> tool call {c.name}({c.arguments}) id={c.id}" for c in parsed.tool_calls]
        elif msg.role == Role.TOOL:
            lines.append(f"<- result for {msg.tool_call_id} ({msg.status}):")
            lines.append(entry.content)
        else:
            lines.append(entry.content)
        lines.append("")
    if prompt.tools:
        lines.append(f"--- tools sent with the request: {', '.join(t.name for t in prompt.tools)} ---")
    return "\n".join(lines)
