"""/session export [md|html|jsonl] [FILE]: the conversation with its tool calls and results,
for sharing in a PR or an issue. Markdown to paste, HTML that opens anywhere (one file, no
scripts, everything escaped), JSON lines for scripts (one stored row per line)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from slop.commands.base import CommandContext, usage_error
from slop.commands.helpers import fence
from slop.errors import CommandError
from slop.parser import parse
from slop.records import Message, Role, Status

FORMATS = ("md", "html", "jsonl")
EXPORT_USAGE = "/session export [md|html|jsonl] [FILE]   (default md, FILE slop-SESSION.FORMAT in the project root)"
SUFFIXES = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".jsonl": "jsonl"}


def export_session(ctx: CommandContext, rest: str) -> None:
    fmt, target = _arguments(ctx, rest)
    messages = ctx.store.messages.window(ctx.session, 0)
    if not messages:
        raise CommandError(f"session '{ctx.session}' has no messages to export")
    if target.exists() and not ctx.io.confirm(f"{target} exists. Overwrite it?"):
        ctx.io.info("nothing written")
        return
    text = RENDERERS[fmt](ctx.session, messages)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot write {target}: {exc.strerror or exc}; pick another FILE") from None
    ctx.io.success(f"exported {len(messages)} messages of session '{ctx.session}' as {fmt} to {target}")


def _arguments(ctx: CommandContext, rest: str) -> tuple[str, Path]:
    words = rest.split(maxsplit=1)
    fmt = ""
    if words and words[0].lower() in FORMATS:
        fmt = words.pop(0).lower()
    name = words[0].strip() if words else ""
    if name and not fmt:
        fmt = SUFFIXES.get(Path(name).suffix.lower(), "")
        if not fmt:
            raise usage_error(EXPORT_USAGE, f"which format for {name!r}? name one of {', '.join(FORMATS)}")
    fmt = fmt or "md"
    target = Path(name).expanduser() if name else Path(f"slop-{ctx.session}.{fmt}")
    return fmt, target if target.is_absolute() else ctx.root / target


# ---- rows as plain records ------------------------------------------------------------


def row_record(msg: Message) -> dict[str, Any]:
    """One stored row as the export sees it: provider-native JSON read into text + calls."""
    parsed = parse(msg)
    record: dict[str, Any] = {
        "id": msg.id,
        "group_id": msg.group_id,
        "role": msg.role,
        "status": msg.status,
        "created_at": msg.created_at,
        "content": parsed.text,
        "tokens": msg.content_tokens,
    }
    if parsed.tool_calls:
        record["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in parsed.tool_calls]
    if msg.tool_call_id:
        record["tool_call_id"] = msg.tool_call_id
    if parsed.thoughts:
        record["reasoning"] = parsed.thoughts
    return record


def to_jsonl(session: str, messages: list[Message]) -> str:
    return "".join(json.dumps({"session": session, **row_record(m)}, ensure_ascii=False) + "\n" for m in messages)


# ---- markdown -----------------------------------------------------------------------------


def to_markdown(session: str, messages: list[Message]) -> str:
    out = [f"# slop session `{session}`", ""]
    for msg in messages:
        rec = row_record(msg)
        if msg.role == Role.USER:
            out += [f"## User · {rec['created_at']}", "", rec["content"], ""]
        elif msg.role == Role.ASSISTANT:
            out += _assistant_md(rec, msg.status)
        elif msg.role == Role.TOOL:
            out += [f"**Result** `{rec.get('tool_call_id', '')}` ({msg.status})", "", fence(rec["content"]), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _assistant_md(rec: dict[str, Any], status: str) -> list[str]:
    out = [f"## Assistant · {rec['created_at']}" + (f" ({status})" if status != Status.COMPLETED else ""), ""]
    if rec["content"].strip():
        out += [rec["content"], ""]
    for call in rec.get("tool_calls", []):
        out += [f"**Tool call** `{call['name']}` `{call['id']}`", "", fence(_pretty(call["arguments"]), "json"), ""]
    return out


def _pretty(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except ValueError:
        return arguments


# ---- HTML ---------------------------------------------------------------------------------

CSS = """body{font:15px/1.5 system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem;color:#222}
.m{border-left:4px solid #ccc;padding:.3rem 1rem;margin:1rem 0}.user{border-color:#2a7ae2}
.assistant{border-color:#3a3}.tool{border-color:#b80}.meta{color:#777;font-size:.85em}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.6rem;border-radius:4px}"""


def to_html(session: str, messages: list[Message]) -> str:
    title = html.escape(f"slop session {session}")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{title}</title><style>{CSS}</style></head><body>",
        f"<h1>{title}</h1>",
    ]
    parts += [_html_row(row_record(m)) for m in messages]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _html_row(rec: dict[str, Any]) -> str:
    e = html.escape
    meta = f'<div class="meta">{e(rec["role"])} · {e(str(rec["created_at"]))} · {e(rec["status"])}</div>'
    body = f"<pre>{e(rec['content'])}</pre>" if rec["content"] else ""
    for call in rec.get("tool_calls", []):
        body += f"<div>tool call <code>{e(call['name'])}</code></div><pre>{e(_pretty(call['arguments']))}</pre>"
    return f'<div class="m {e(rec["role"])}">{meta}{body}</div>'


RENDERERS = {"md": to_markdown, "html": to_html, "jsonl": to_jsonl}
