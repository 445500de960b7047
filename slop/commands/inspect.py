"""/schema, /tool and /throttle: look at the ledger and the tools, pace tool rounds."""

from __future__ import annotations

import difflib
import json
import math

from slop.commands.base import Command, CommandContext, Proceed, Sub, every_word, grouped, usage_error
from slop.commands.helpers import fence, snippet
from slop.errors import CommandError
from slop.records import ToolSpec
from slop.store.readonly import describe_schema

THROTTLE_USAGE = "/throttle [SECONDS]   (pause between tool rounds; 0 = none)"
THROTTLE_MAX = 3600.0


def schema_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    if args:
        raise usage_error("/schema", "/schema takes no arguments")
    text = describe_schema(ctx.store.path)
    ctx.io.view(f"Ledger {ctx.store.path}\n\n{text}", ".txt")
    return None


def _specs(ctx: CommandContext) -> list[ToolSpec]:
    return list(ctx.orchestrator.context.tool_specs())


def _counts(ctx: CommandContext) -> dict[str, int]:
    return dict(ctx.store.catalog.tool_counts())


def _tool_list(ctx: CommandContext, rest: str) -> None:
    if rest:
        raise usage_error("/tool list", "/tool list takes no arguments")
    counts, disabled = _counts(ctx), ctx.store.catalog.disabled_tools()
    rows = [
        [
            s.name,
            snippet(s.description, 70),
            "asks" if s.mutating else "-",
            str(counts.get(s.name, 0)),
            "no" if s.name in disabled else "yes",
        ]
        for s in _specs(ctx)
    ]
    ctx.io.table(
        f"Tools ({len(rows)}; /tool show NAME for the schema)",
        ["Tool", "What it does", "Approval", "Calls", "Enabled"],
        rows,
    )


def _tool_enable(ctx: CommandContext, name: str, enabled: bool) -> None:
    usage = f"/tool {'enable' if enabled else 'disable'} NAME"
    if not name:
        raise usage_error(usage, "which tool? (see /tool list)")
    if name not in {s.name for s in _specs(ctx)} or not ctx.store.catalog.set_tool_enabled(name, enabled):
        raise CommandError(f"no tool {name!r}; /tool list shows them")
    if enabled:
        ctx.io.success(f"tool {name} enabled: offered to the model again from the next request")
    else:
        ctx.io.success(f"tool {name} disabled: not offered to the model, and a call to it runs nothing")


def _tool_show(ctx: CommandContext, name: str) -> None:
    if not name:
        raise usage_error("/tool show NAME", "which tool? (see /tool list)")
    specs = {s.name: s for s in _specs(ctx)}
    spec = specs.get(name)
    if spec is None:
        close = difflib.get_close_matches(name, list(specs), n=3, cutoff=0.5)
        hint = f"; did you mean {' or '.join(close)}?" if close else "; /tool list shows them"
        raise CommandError(f"no tool {name!r}{hint}")
    approval = "asks for approval (changes files or runs commands)" if spec.mutating else "read-only, runs freely"
    enabled = "disabled" if name in ctx.store.catalog.disabled_tools() else "enabled"
    ctx.io.markdown(
        f"### Tool {spec.name}\n\n{spec.description}\n\n"
        f"{approval} · {enabled} · called {_counts(ctx).get(name, 0)} time(s)\n\n"
        f"**Parameters (JSON schema):**\n\n{fence(json.dumps(spec.parameters, indent=2), 'json')}"
    )


def throttle_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    if not args:
        pause = ctx.store.sessions.get(ctx.session).throttle
        state = "no pause" if pause <= 0 else f"{pause:g} s pause"
        ctx.io.info(f"throttle: {state} between tool rounds in session '{ctx.session}'")
        return None
    try:
        pause = float(args)
    except ValueError:
        raise usage_error(THROTTLE_USAGE, f"the pause must be a number of seconds, got {args!r}") from None
    if not math.isfinite(pause) or pause < 0:
        raise usage_error(THROTTLE_USAGE, "the pause cannot be negative")
    if pause > THROTTLE_MAX:
        raise usage_error(THROTTLE_USAGE, f"the pause can be at most {THROTTLE_MAX:g} s")
    ctx.store.sessions.update_settings(ctx.session, throttle=pause)
    if pause == 0:
        ctx.io.success("throttle off: tool rounds follow each other without a pause")
    else:
        ctx.io.success(f"throttle: {pause:g} s pause after each tool round (session '{ctx.session}')")
    return None


def _tool_names(ctx: CommandContext) -> list[str]:
    return [s.name for s in _specs(ctx)]


TOOL_SUBS = (
    Sub("list", "", "The model's tools with their call counts, and whether each asks and is enabled", _tool_list),
    Sub("show", "NAME", "One tool's description and JSON schema", _tool_show, complete=every_word(_tool_names)),
    Sub(
        "enable",
        "NAME",
        "Offer a disabled tool to the model again",
        lambda ctx, rest: _tool_enable(ctx, rest, True),
        complete=every_word(_tool_names),
    ),
    Sub(
        "disable",
        "NAME",
        "Stop offering a tool to the model (a call to it then runs nothing)",
        lambda ctx, rest: _tool_enable(ctx, rest, False),
        complete=every_word(_tool_names),
    ),
)


COMMANDS = (
    Command(
        "/schema", "Describe the ledger: tables, columns and row counts", "/schema", "Model & Configuration", schema_cmd
    ),
    grouped(
        "/tool",
        "The model's tools: list with call counts, show one's schema, enable or disable one",
        "Agent Capabilities",
        TOOL_SUBS,
        aliases=("/tools",),
    ),
    Command(
        "/throttle",
        "Show or set the pause between tool rounds, in seconds (saved per session)",
        THROTTLE_USAGE,
        "Model & Configuration",
        throttle_cmd,
    ),
)
