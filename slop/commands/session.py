"""/session: list, switch, remove, clear, clone, export sessions, and read or edit the scratchpad."""

from __future__ import annotations

from slop.commands.base import CommandContext, Sub, first_word, grouped, usage_error
from slop.commands.export import FORMATS, export_session
from slop.commands.helpers import check_name, plural
from slop.errors import CommandError

DEFAULT_SESSION = "default"
SWITCH_USAGE = "/session switch NAME"
REMOVE_USAGE = "/session remove NAME"
CLONE_USAGE = "/session clone NAME"
SCRATCHPAD_USAGE = "/session scratchpad [read|edit]"


def summary(ctx: CommandContext, name: str) -> str:
    """One line about a session: messages, groups, last activity, window, skills, scratchpad."""
    row = next((r for r in ctx.store.sessions.list() if r["id"] == name), None)
    count = int(row["messages"]) if row else 0
    info = ctx.store.sessions.get(name)
    if count == 0:
        parts = ["empty"]
    else:
        groups = len(ctx.store.messages.last_group_ids(name, 0, include_hidden=True))
        parts = [plural(count, "message") + (f" in {plural(groups, 'group')}" if groups else "")]
        if row and row["last"]:
            parts.append(f"last activity {str(row['last'])[:16]}")
    parts.append("window: all" if info.context_size == 0 else f"window: {info.context_size}")
    if info.active_skills:
        parts.append("skills: " + ", ".join(info.active_skills))
    if info.scratchpad.strip():
        parts.append("scratchpad: yes")
    if ctx.store.sessions.state(name):
        parts.append("STATE: yes")
    return f"session '{name}': " + ", ".join(parts)


def _list(ctx: CommandContext, rest: str) -> None:
    if rest:
        raise usage_error("/session list", "/session list takes no arguments")
    rows = ctx.store.sessions.list()
    if not any(r["id"] == ctx.session for r in rows):
        rows.append({"id": ctx.session, "messages": 0, "last": None})
    table = [
        [
            "●" if r["id"] == ctx.session else "",
            str(r["id"]),
            str(r["messages"] or 0),
            str(r["last"])[:16] if r["last"] else "-",
        ]
        for r in rows
    ]
    ctx.io.table(f"Sessions ({len(rows)}; ● = current)", ["", "Session", "Messages", "Last activity"], table)


def switch_session(ctx: CommandContext, rest: str) -> None:
    name = check_name(rest, "session", SWITCH_USAGE)
    if name == ctx.session:
        ctx.io.info("already here; " + summary(ctx, name))
        return
    existed = ctx.store.sessions.exists(name) or ctx.store.messages.count(name) > 0
    ctx.store.sessions.ensure(name)
    ctx.conversation.session = name
    prefix = "switched to " if existed else "created and switched to new "
    ctx.io.success(prefix + summary(ctx, name))


def _remove(ctx: CommandContext, rest: str) -> None:
    name = check_name(rest, "session", REMOVE_USAGE)
    count = ctx.store.messages.count(name)
    if not ctx.store.sessions.exists(name) and count == 0:
        raise CommandError(f"no session '{name}' (see /session list)")
    question = (
        f"Delete session '{name}' with {plural(count, 'message')}, its STATE, scratchpad and settings? Memos are kept."
    )
    if not ctx.io.confirm(question):
        ctx.io.info(f"session '{name}' kept")
        return
    ctx.store.sessions.remove(name)
    if name == ctx.session:
        ctx.conversation.session = DEFAULT_SESSION
        ctx.io.success(f"session '{name}' deleted; back in " + summary(ctx, DEFAULT_SESSION))
    else:
        ctx.io.success(f"session '{name}' deleted")


def clear_session(ctx: CommandContext, rest: str) -> None:
    if rest:
        raise usage_error("/session clear", "/session clear works on the current session and takes no arguments")
    count = ctx.store.messages.count(ctx.session)
    question = (
        f"Clear session '{ctx.session}': delete its {plural(count, 'message')}, STATE, scratchpad and "
        "settings? Memos are kept."
    )
    if not ctx.io.confirm(question):
        ctx.io.info(f"session '{ctx.session}' kept")
        return
    ctx.store.sessions.clear(ctx.session)
    ctx.io.success(f"session '{ctx.session}' cleared: history, STATE, scratchpad and settings are gone")


def _clone(ctx: CommandContext, rest: str) -> None:
    name = check_name(rest, "session", CLONE_USAGE)
    if name == ctx.session:
        raise CommandError(f"you are in '{name}' already; give the clone another name", usage=CLONE_USAGE)
    source = ctx.session
    # Fresh group ids for the copy: /undo or /message remove in one never touches the other.
    ctx.store.sessions.clone(source, name, int(ctx.store.messages.new_group_id()))
    ctx.conversation.session = name
    ctx.io.success(f"cloned '{source}' to '{name}' and switched to it; " + summary(ctx, name))


def _scratchpad(ctx: CommandContext, rest: str) -> None:
    if rest in ("", "read"):
        text = ctx.store.sessions.scratchpad(ctx.session)
        if not text.strip():
            ctx.io.info(f"the scratchpad of '{ctx.session}' is empty (/session scratchpad edit writes it)")
            return
        ctx.io.markdown(f"## Scratchpad of '{ctx.session}'\n\n{text}")
    elif rest == "edit":
        _edit_scratchpad(ctx)
    else:
        raise usage_error(SCRATCHPAD_USAGE, f"unknown scratchpad operation {rest!r}")


def _edit_scratchpad(ctx: CommandContext) -> None:
    before = ctx.store.sessions.scratchpad(ctx.session)
    edited = ctx.io.edit(before, ".md")
    if edited is None:
        return
    if edited.strip() == before.strip():
        ctx.io.info("no changes")
        return
    if not edited.strip():
        if not ctx.io.confirm(f"Empty the scratchpad of '{ctx.session}'?"):
            ctx.io.info("scratchpad kept")
            return
        ctx.store.sessions.set_scratchpad(ctx.session, "")
        ctx.io.success("scratchpad emptied")
        return
    ctx.store.sessions.set_scratchpad(ctx.session, edited.strip() + "\n")
    ctx.io.success(f"scratchpad of '{ctx.session}' updated")


def _session_names(ctx: CommandContext) -> list[str]:
    return [str(r["id"]) for r in ctx.store.sessions.list()]


SUBS = (
    Sub("list", "", "The sessions with their message counts and last activity", _list),
    Sub(
        "switch",
        "NAME",
        "Switch to a session; a new name creates it",
        switch_session,
        complete=first_word(_session_names),
    ),
    Sub(
        "clone",
        "NAME",
        "Copy the current session (history, STATE, scratchpad, settings) and switch to the copy",
        _clone,
    ),
    Sub(
        "remove",
        "NAME",
        "Delete a session and its STATE, scratchpad and settings (asks first; memos stay)",
        _remove,
        complete=first_word(_session_names),
    ),
    Sub("clear", "", "Empty the current session: history, STATE, scratchpad and settings (asks first)", clear_session),
    Sub(
        "scratchpad",
        "[read|edit]",
        "Read the session's scratchpad, or edit it in $EDITOR",
        _scratchpad,
        complete=first_word(lambda ctx: ["read", "edit"]),
    ),
    Sub(
        "export",
        "[md|html|jsonl] [FILE]",
        "Write the session's conversation to a file",
        export_session,
        complete=first_word(lambda ctx: list(FORMATS)),
    ),
)
SESSION = grouped(
    "/session",
    "Sessions: list, switch (creates), clone, clear, remove, export; read or edit the scratchpad",
    "Session & Memory",
    SUBS,
    aliases=("/sessions",),
)
COMMANDS = (SESSION,)
