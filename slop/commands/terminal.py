"""Commands for the terminal experience: /verbose, the names people bring from other
agents (/clear, /compact, /cost), and /resume (a session picker)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from slop.commands.base import Command, CommandContext, Proceed, usage_error
from slop.commands.context_modes import compact_cmd
from slop.commands.helpers import snippet
from slop.commands.model import usage_cmd
from slop.commands.session import clear_session, switch_session

VERBOSITY = ("quiet", "normal", "full")
VERBOSE_USAGE = "/verbose [quiet|normal|full]"
PICKER_SIZE = 9  # sessions offered by /resume: one digit key each


@runtime_checkable
class Verbosity(Protocol):
    """An IO whose tool output detail can be set (the terminal)."""

    verbosity: str


@runtime_checkable
class Chooser(Protocol):
    """An IO that can ask the user to pick one of a few numbered options (the terminal)."""

    def choose(self, prompt: str, count: int) -> int | None: ...


def verbose_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    if not isinstance(ctx.io, Verbosity):
        ctx.io.info("tool output detail only applies to the terminal")
        return None
    level = args.strip().lower()
    if not level:
        ctx.io.info(f"tool output: {ctx.io.verbosity} ({VERBOSE_USAGE})")
        return None
    if level not in VERBOSITY:
        raise usage_error(VERBOSE_USAGE, f"unknown level {level!r}")
    ctx.io.verbosity = level
    what = {
        "quiet": "one line per tool call",
        "normal": "one line per tool call, and the last lines of a command's output",
        "full": "one line per tool call, and up to 40 lines of a command's output",
    }[level]
    ctx.io.success(f"tool output: {level} — {what}")
    return None


def clear_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    if args.strip():
        raise usage_error("/clear", "/clear takes no arguments (it is /session clear)")
    clear_session(ctx, "")
    return None


def compact_alias(ctx: CommandContext, args: str) -> Proceed | None:
    compact_cmd(ctx, args)
    return None


def resume_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    name = args.strip()
    if name:
        switch_session(ctx, name)
        return None
    rows = [r for r in ctx.store.sessions.list() if r["messages"]][:PICKER_SIZE]
    if not rows:
        ctx.io.info("no session has any messages yet")
        return None
    table = [
        [str(i), ("● " if r["id"] == ctx.session else "") + str(r["id"]), str(r["last"] or "-")[:16],
         snippet(ctx.store.messages.first_prompt(str(r["id"])), 50)]
        for i, r in enumerate(rows, start=1)
    ]  # fmt: skip
    ctx.io.table("Sessions, most recent first (● = current)", ["#", "Session", "Last activity", "First prompt"], table)
    if not isinstance(ctx.io, Chooser) or ctx.settings.prompt is not None:  # batch mode cannot pick
        ctx.io.info("switch with /resume NAME")
        return None
    picked = ctx.io.choose(f"Resume which? 1-{len(rows)} (Esc: stay in '{ctx.session}') ", len(rows))
    if picked is None:
        ctx.io.info(f"staying in '{ctx.session}'")
        return None
    switch_session(ctx, str(rows[picked - 1]["id"]))
    return None


def _complete_verbose(ctx: CommandContext, words: list[str]) -> list[str]:
    return list(VERBOSITY) if len(words) <= 1 else []


def _complete_resume(ctx: CommandContext, words: list[str]) -> list[str]:
    return [str(r["id"]) for r in ctx.store.sessions.list()] if len(words) <= 1 else []


COMMANDS = (
    Command(
        "/verbose",
        "How much of a finished tool call shows: quiet, normal (last lines of commands), full",
        VERBOSE_USAGE,
        "Core",
        verbose_cmd,
        complete=_complete_verbose,
    ),
    Command("/clear", "Same as /session clear: empty the current session", "/clear", "Session & Memory", clear_cmd),
    Command(
        "/compact",
        "Same as /context compact: summarise older turns now",
        "/compact",
        "Context & History",
        compact_alias,
    ),
    Command("/cost", "Same as /usage: tokens used", "/cost", "Model & Configuration", usage_cmd),
    Command(
        "/resume",
        "Pick a session to continue (last activity, first prompt), or /resume NAME",
        "/resume [NAME]",
        "Session & Memory",
        resume_cmd,
        complete=_complete_resume,
    ),
)
