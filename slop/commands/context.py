"""/context, /message and /undo: see and steer exactly what the model gets."""

from __future__ import annotations

from slop.commands import context_modes
from slop.commands.bang import with_outputs
from slop.commands.base import (
    Command,
    CommandContext,
    Proceed,
    Sub,
    every_word,
    first_word,
    grouped,
    parse_int,
    usage_error,
)
from slop.commands.gids import ShortIds, find_gid, recent_short_ids
from slop.commands.mentions import attach_mentions
from slop.commands.undo import UNDO_USAGE, files_kept_notice, scratchpad_note, undo_cmd
from slop.context.layout import layout_of
from slop.context.show import ShowContext, format_brief, format_prompt
from slop.errors import ConfigError
from slop.parser import parse
from slop.records import Role, Status

SHOW_USAGE = "/context show [--brief|--full|--raw] [NEXT MESSAGE…]"
SHOW_FLAGS = ("--brief", "--full", "--raw")


def _show(ctx: CommandContext, rest: str) -> None:
    """The next request as if NEXT MESSAGE (else a placeholder) were sent now."""
    flag, text = _show_args(rest)
    if text:  # what sending it would add: @path attachments, waiting !!command outputs
        text, _files = attach_mentions(ctx, text)
        text = with_outputs(list(ctx.conversation.waiting), text)
    preview = ctx.orchestrator.preview(ctx.session, text)
    if flag == "--raw":
        body = preview.wire_body()
        if body is None:
            raise ConfigError(
                "no model provider is configured, so there is no wire format to show; set OPENAI_API_KEY or "
                "GEMINI_API_KEY (or /model openai:NAME), or use /context show without --raw"
            )
        ctx.io.data(body)
        return
    info = ctx.store.sessions.get(ctx.session)
    mode = ctx.orchestrator.context.strategy_for(info)
    where = ShowContext(
        provider=f"{preview.provider.wire}:{preview.provider.model}" if preview.provider else "none",
        wire=preview.prompt.wire,
        mode=info.context_mode,
        window=info.context_size if mode.windowed else None,
        placeholder=preview.text if preview.placeholder else "",
        reason=mode.kept_because,
        depends=mode.placeholder_changes,
        layout=layout_of(info),
    )
    full = format_prompt(preview.prompt, where)
    if flag == "--full":
        opened = ctx.io.page(full, ".txt")
        if opened:
            ctx.io.info(f"the full request ({full.count(chr(10)) + 1} lines) was opened in {opened}")
        return
    height = ctx.io.screen_height()
    if flag == "--brief" or (height and full.count("\n") + 1 > height - 3):
        width = ctx.io.screen_width() or 100
        ctx.io.plain(format_brief(preview.prompt, where, width=width - 1, max_lines=max(0, height - 3)))
        ctx.io.info("every layer and message as sent: /context show --full (opens $EDITOR or a pager)")
        return
    ctx.io.view(full, ".txt")


def _show_args(rest: str) -> tuple[str, str]:
    """(flag or "", NEXT MESSAGE) from `[--brief|--full|--raw] [TEXT…]`."""
    word, _, text = rest.partition(" ")
    if not word.startswith("--"):
        return "", rest.strip()
    if word not in SHOW_FLAGS:
        raise usage_error(SHOW_USAGE, f"unknown option {word!r} for /context show")
    return word, text.strip()


def _window(ctx: CommandContext, rest: str) -> None:
    usage = "/context window N   (N groups; 0 = full history)"
    if not rest:
        n = ctx.store.sessions.get(ctx.session).context_size
        ctx.io.info(f"window: {'full history' if n == 0 else f'last {n} group(s)'}")
        return
    n = parse_int(rest, "the window size", usage)
    if n < 0:
        raise usage_error(usage, "the window size cannot be negative")
    before = ctx.store.sessions.get(ctx.session).context_size
    ctx.store.sessions.set_context_size(ctx.session, n)
    ctx.store.log_event(ctx.session, "window", f"window {before} -> {n} group(s) (0 = all)")
    ctx.io.success("full history in context" if n == 0 else f"rolling window: last {n} group(s)")


def _rebuild(ctx: CommandContext, _: str) -> None:
    ctx.io.info(ctx.orchestrator.rebuild_state(ctx.session, ctx.sink, ctx.cancel))


def resolve_gid(ctx: CommandContext, gid: str, usage: str) -> str:
    """A GID of the current session (whole, or a unique suffix), or a clear error."""
    return find_gid(ctx, gid, usage)


def _drop(ctx: CommandContext, rest: str) -> None:
    gid = resolve_gid(ctx, rest, "/context drop GID")
    if ctx.store.drop_group(ctx.session, gid):
        ctx.io.success(f"group {gid} dropped from context (kept in the ledger; /context restore {gid} brings it back)")
    else:
        ctx.io.info(f"group {gid} was already out of context")


def _restore(ctx: CommandContext, rest: str) -> None:
    gid = resolve_gid(ctx, rest, "/context restore GID")
    if ctx.store.restore_group(ctx.session, gid):
        ctx.io.success(f"group {gid} restored to context")
    else:
        ctx.io.info(f"group {gid} was not dropped")


def _message_remove(ctx: CommandContext, rest: str) -> None:
    gid = resolve_gid(ctx, rest, "/message remove GID")
    files_kept_notice(ctx, gid)
    result = ctx.store.remove_group(ctx.session, gid)
    ctx.io.success(f"group {gid} deleted ({result.messages} messages){scratchpad_note(result.scratchpad)}")


def _list(ctx: CommandContext, rest: str) -> None:
    n = parse_int(rest, "N", "/message list [N]") if rest else 10
    if n <= 0:
        raise usage_error("/message list [N]", "N must be positive")
    groups = ctx.store.messages.list_groups(ctx.session, n)
    if not groups:
        ctx.io.info(f"no messages in session '{ctx.session}' yet")
        return
    # What the next request carries, whatever the mode (the same preview /context show prints).
    sent = {e.message.group_id for e in ctx.orchestrator.preview(ctx.session).prompt.history}
    rows = []
    short = ShortIds.of(ctx)
    for g in groups:
        prompt = " ".join(g.prompt.split())
        state = "yes" if g.group_id in sent else ("no" if g.status == "active" else g.status)
        shown = prompt[:50] + ("…" if len(prompt) > 50 else "")
        rows.append([short(g.group_id), shown, str(g.tokens or "-"), str(g.messages), state])
    ctx.io.table(
        f"Last {len(groups)} group(s) of '{ctx.session}'", ["GID", "Prompt", "Tokens", "Msgs", "In context"], rows
    )


def _message_show(ctx: CommandContext, rest: str) -> None:
    gid = resolve_gid(ctx, rest, "/message show GID")
    lines = [f"### Group {gid}"]
    for msg in ctx.store.messages.group(ctx.session, gid):
        head = f"#### {msg.role} #{msg.id} · {msg.content_tokens} tokens"
        if msg.status not in (Status.COMPLETED,):
            head += f" · {msg.status}"
        lines.append(head)
        parsed = parse(msg)
        if parsed.thoughts:
            lines.append("> " + parsed.thoughts.replace("\n", "\n> "))
        if msg.role == Role.TOOL:
            lines.append(f"result of `{msg.tool_call_id}`:\n```\n{msg.content}\n```")
            continue
        if parsed.text:
            lines.append(parsed.text)
        lines += [f"- tool call `{c.name}` `{c.arguments}` (id {c.id})" for c in parsed.tool_calls]
    ctx.io.view("\n\n".join(lines), ".md")


def retry_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    """Send the latest failed request again: its failed group goes, the text is a new turn."""
    failed = ctx.store.messages.latest_failed_request(ctx.session)
    if failed is None:
        ctx.io.info("nothing to retry: no failed message in this session (/undo, then send again, redoes a turn)")
        return None
    gid, text = failed
    ctx.store.remove_group(ctx.session, gid, event="retry")
    return Proceed(text)


GIDS = every_word(recent_short_ids)
CONTEXT_SUBS = (
    Sub(
        "show",
        "[--brief|--full|--raw] [TEXT…]",
        "The next request exactly as the model would get it if TEXT (else a placeholder) were sent now",
        _show,
        complete=first_word(lambda ctx: list(SHOW_FLAGS)),
    ),
    Sub("window", "[N]", "Show or set the rolling window: the last N groups (0 = the full history)", _window),
    Sub("rebuild", "", "Ask the model for a fresh STATE from the current window", _rebuild),
    Sub("drop", "GID", "Take a group out of the context (it stays in the ledger)", _drop, complete=GIDS),
    Sub("restore", "GID", "Bring a dropped group back into the context", _restore, complete=GIDS),
    *context_modes.SUBS,
)
MESSAGE_SUBS = (
    Sub("list", "[N]", "The last N groups (10 by default), and whether each goes with the next request", _list),
    Sub("show", "GID", "Every message of a group, tool calls and results included", _message_show, ("view",), GIDS),
    Sub(
        "remove",
        "GID",
        "Delete a group from the ledger; the files it changed stay as they are (/undo puts them back)",
        _message_remove,
        complete=GIDS,
    ),
)


COMMANDS = (
    grouped(
        "/context",
        "See and steer what the model gets: show, window N, rebuild, drop/restore GID, mode, budget, compact, ...",
        "Context & History",
        CONTEXT_SUBS,
    ),
    grouped(
        "/message",
        "List, show or delete conversation groups",
        "Context & History",
        MESSAGE_SUBS,
        aliases=("/messages",),
    ),
    Command(
        "/retry",
        "Send the last message whose model call failed again",
        "/retry",
        "Context & History",
        retry_cmd,
    ),
    Command(
        "/undo",
        "Delete the last group, roll back its STATE and scratchpad, and (asked) the files it changed",
        UNDO_USAGE,
        "Context & History",
        undo_cmd,
    ),
)
