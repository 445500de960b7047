"""/context mode|budget|set|compact|recover|pin|unpin|log: choosing and steering the
context strategy of a session (see docs/context.md)."""

from __future__ import annotations

from slop.commands.base import CommandContext, Sub, every_word, first_word, parse_int, usage_error
from slop.commands.gids import find_gid, recent_short_ids
from slop.context.budget import prompt_budget
from slop.context.layout import LAYOUT_KEY, LAYOUTS, layout_of
from slop.context.options import Option, all_options, option, parse_option
from slop.context.strategies.relevance_recovery import recover
from slop.errors import CommandError
from slop.records import Wire


def _model(ctx: CommandContext) -> str:
    provider = ctx.orchestrator.provider()
    return provider.model if provider else ""


def _default_budget(ctx: CommandContext, model: str) -> str:
    """The budget without a session figure: the server's reported context size when a local
    server gave one (and where it said so), else the model's known limit."""
    window, source = ctx.providers.context_window(model, wait=2.0) if ctx.providers else (0, "")
    budget = prompt_budget(model, 0, server_window=window)
    if window:
        return (
            f"context budget: {budget:,} tokens, from the server's context size of {window:,} ({source}) "
            "less room for the answer"
        )
    return f"context budget: the model's default, {budget:,} tokens{f' for {model}' if model else ''}"


def _options(ctx: CommandContext) -> dict[str, Option]:
    return all_options(s.options for s in ctx.orchestrator.context.strategies.values())


def mode_cmd(ctx: CommandContext, rest: str) -> None:
    strategies = ctx.orchestrator.context.strategies
    names = list(strategies)
    usage = "/context mode " + "|".join(names)
    if not rest:
        current = ctx.store.sessions.get(ctx.session).context_mode
        lines = [f"context mode: {current}"]
        lines += [f"  {'*' if n == current else ' '} {n:<10} {strategies[n].help}" for n in names]
        ctx.io.info("\n".join(lines))
        return
    name = rest.split()[0].lower()
    if name not in names:
        raise usage_error(usage, f"unknown context mode {name!r}")
    before = ctx.store.sessions.get(ctx.session).context_mode
    ctx.store.sessions.update_settings(ctx.session, context_mode=name)
    ctx.store.log_event(ctx.session, "mode", f"context mode {before} -> {name}")
    ctx.io.success(f"context mode: {name} ({strategies[name].help}); /context show shows what it selects")


def budget_cmd(ctx: CommandContext, rest: str) -> None:
    usage = "/context budget TOKENS   (0 = the model's default)"
    model = _model(ctx)
    if not rest:
        own = ctx.store.sessions.get(ctx.session).budget
        ctx.io.info(f"context budget: {own:,} tokens (this session)" if own else _default_budget(ctx, model))
        return
    n = parse_int(rest.replace(",", "").replace("_", ""), "the budget", usage)
    if n < 0:
        raise usage_error(usage, "the budget cannot be negative")
    if 0 < n < 256:
        raise usage_error(usage, "a budget under 256 tokens cannot hold the system prompt")
    before = ctx.store.sessions.get(ctx.session).budget
    ctx.store.sessions.update_settings(ctx.session, budget=n)
    ctx.store.log_event(ctx.session, "budget", f"budget {before:,} -> {n:,} tokens (0 = the model's default)")
    ctx.io.success(f"context budget: {n:,} tokens" if n else _default_budget(ctx, model))


def set_cmd(ctx: CommandContext, rest: str) -> None:
    usage = "/context set [KEY VALUE]"
    info = ctx.store.sessions.get(ctx.session)
    if not rest:
        table = _options(ctx)
        rows = [[o.name, f"{option(info, o):g}", f"{o.default:g}", o.mode, o.help] for o in table.values()]
        ctx.io.table("Context mode settings (this session)", ["Key", "Value", "Default", "Mode", "Meaning"], rows)
        return
    key, _, value = rest.partition(" ")
    if not value.strip():
        raise usage_error(usage, f"missing value for {key}")
    try:
        value = value.strip()
        known = _options(ctx)
        parsed = known[key].default if value == "default" and key in known else parse_option(known, key, value)
    except ValueError as exc:
        raise usage_error(usage, str(exc)) from None
    ctx.store.sessions.update_settings(ctx.session, **{key: parsed})
    ctx.io.success(f"{key} = {parsed:g}")


LAYOUT_HELP = {
    "seed": "every layer in the system instruction, in std::slop's order (the default)",
    "cache": "stable layers in the system instruction; STATE, scratchpad, memos and files read in one "
    "message right before the current request, so the prefix stays cacheable",
}


def layout_cmd(ctx: CommandContext, rest: str) -> None:
    usage = "/context layout [seed|cache]"
    current = layout_of(ctx.store.sessions.get(ctx.session))
    if not rest.strip():
        lines = [f"context layout: {current}"]
        lines += [f"  {'*' if n == current else ' '} {n:<6} {LAYOUT_HELP[n]}" for n in LAYOUTS]
        ctx.io.info("\n".join(lines))
        return
    name = rest.split()[0].lower()
    if name not in LAYOUTS:
        raise usage_error(usage, f"unknown layout {name!r}")
    ctx.store.sessions.update_settings(ctx.session, **{LAYOUT_KEY: name})
    ctx.store.log_event(ctx.session, "layout", f"context layout {current} -> {name}")
    ctx.io.success(f"context layout: {name} ({LAYOUT_HELP[name]}); /context show shows it")


def compact_cmd(ctx: CommandContext, rest: str) -> None:
    info = ctx.store.sessions.get(ctx.session)
    service = ctx.orchestrator.context
    if not service.strategy_for(info).compacts:
        raise CommandError(
            f"the {info.context_mode!r} mode does not compact; switch with /context mode compact (or relevance) first"
        )
    provider = ctx.orchestrator.provider()
    summarizer = ctx.orchestrator.summarizer(ctx.session, ctx.cancel)
    if summarizer is None and info.context_mode == "compact":
        ctx.io.error("cannot compact: no model provider is configured to write the summary; nothing changed")
        return
    result = service.maintain(
        ctx.session, provider.wire if provider else Wire.OPENAI, _model(ctx), summarizer, force=True
    )
    report = "\n".join(result.report) or "nothing to compact"
    (ctx.io.success if result.changed else ctx.io.warning)(report)


def recover_cmd(ctx: CommandContext, rest: str) -> None:
    if not rest.strip():
        raise usage_error("/context recover QUERY", "say what the dropped turns were about")
    try:
        found = recover(ctx.store.history, ctx.session, rest.strip())
    except ValueError as exc:
        raise usage_error("/context recover QUERY", str(exc)) from None
    if not found:
        ctx.io.info(f"nothing in cold storage matches {rest.strip()!r} (/context log lists what was dropped)")
        return
    lines = [f"recovered {len(found)} group(s) into the context:"]
    lines += [f"  {r.group_id} (overlap {r.overlap:.2f}): {r.preview}" for r in found]
    ctx.io.success("\n".join(lines))


def _gid(ctx: CommandContext, rest: str, usage: str) -> str:
    return find_gid(ctx, rest.strip(), usage)


def pin_cmd(ctx: CommandContext, rest: str) -> None:
    gid = _gid(ctx, rest, "/context pin GID")
    if ctx.store.archive.pin(ctx.session, gid):
        ctx.io.success(f"group {gid} pinned: the relevance mode always keeps it (and scores it higher)")
    else:
        ctx.io.info(f"group {gid} was already pinned")


def unpin_cmd(ctx: CommandContext, rest: str) -> None:
    gid = _gid(ctx, rest, "/context unpin GID")
    if ctx.store.archive.unpin(ctx.session, gid):
        ctx.io.success(f"group {gid} unpinned")
    else:
        ctx.io.info(f"group {gid} was not pinned")


def log_cmd(ctx: CommandContext, rest: str) -> None:
    n = parse_int(rest, "N", "/context log [N]") if rest else 20
    if n <= 0:
        raise usage_error("/context log [N]", "N must be positive")
    entries = ctx.store.archive.log_entries(ctx.session, n)
    if not entries:
        ctx.io.info(f"no compaction, drop or recovery in session '{ctx.session}' yet")
        return
    rows = []
    for e in entries:
        tokens = (
            f"{e.tokens_before:,} -> {e.tokens_after:,}"
            if e.tokens_before and e.tokens_after
            else (f"{e.tokens_before:,}" if e.tokens_before else "")
        )
        rows.append([e.created_at[:19], e.event, e.group_id or "", tokens, e.detail])
    ctx.io.table(
        f"Context log of '{ctx.session}' (last {len(rows)})", ["When (UTC)", "Event", "Group", "Tokens", "Detail"], rows
    )


_GIDS = every_word(recent_short_ids)
SUBS = (
    Sub(
        "mode",
        "[NAME]",
        "Show or choose how history is selected (no NAME: the modes, each with what it does)",
        mode_cmd,
        complete=first_word(lambda ctx: list(ctx.orchestrator.context.strategies)),
    ),
    Sub(
        "budget",
        "[TOKENS]",
        "Show or set this session's context budget in tokens (0 = the model's default)",
        budget_cmd,
    ),
    Sub("set", "[KEY VALUE]", "Show or change the context modes' settings for this session", set_cmd),
    Sub(
        "compact",
        "",
        "Compact now: the compact mode summarises older turns, relevance moves them to cold storage",
        compact_cmd,
    ),
    Sub("recover", "QUERY", "Bring groups about QUERY back from cold storage into the context", recover_cmd),
    Sub("pin", "GID", "Keep a group in the relevance mode's context whatever its score", pin_cmd, complete=_GIDS),
    Sub("unpin", "GID", "Let a pinned group be scored like the others again", unpin_cmd, complete=_GIDS),
    Sub("log", "[N]", "The last N compactions, drops and recoveries of this session (20 by default)", log_cmd),
    Sub(
        "layout",
        "[seed|cache]",
        "Where STATE, scratchpad, memos and files read go: the system instruction (seed) or before the request (cache)",
        layout_cmd,
        complete=first_word(lambda ctx: list(LAYOUTS)),
    ),
)
