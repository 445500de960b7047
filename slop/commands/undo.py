"""/undo and the files a turn changed: list them, ask, put them back (or keep them)."""

from __future__ import annotations

import difflib
from pathlib import Path

from slop.checkpoint import Conflict, conflicts, restore
from slop.commands.base import CommandContext, Proceed, usage_error
from slop.commands.helpers import plural
from slop.store.checkpoints import FileChange

UNDO_USAGE = "/undo [--files|--keep-files]"
CONFLICT_DIFF_LINES = 40


def undo_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    flags = set(args.split())
    if flags - {"--files", "--keep-files"} or len(flags) > 1:
        raise usage_error(UNDO_USAGE, "use --files (restore the files too) or --keep-files (leave them)")
    gid = ctx.store.messages.last_group_id(ctx.session)
    if gid is None:
        ctx.io.info("nothing to undo")
        return None
    changes = ctx.store.checkpoints.changes(gid)
    put_back = _decide(ctx, changes, flags) if changes else False
    result = ctx.store.remove_group(ctx.session, gid, event="undo")
    state = ctx.store.sessions.state(ctx.session)
    ctx.io.success(
        f"undid group {result.group_id} ({result.messages} messages){scratchpad_note(result.scratchpad)}; "
        + ("STATE is back to the previous one" if state else "no STATE remains")
    )
    if put_back:
        _restore_all(ctx, changes)
    elif changes:
        ctx.io.info(f"the files stay as they are ({plural(len(changes), 'file')} changed by that turn)")
    return None


def scratchpad_note(outcome: str) -> str:
    """What an undo / remove did to the scratchpad, in words."""
    if outcome == "restored":
        return "; scratchpad restored to the version before that group"
    if outcome.startswith("kept: "):
        return f"; scratchpad left as it is ({outcome.removeprefix('kept: ')} after that group)"
    return ""


def describe_changes(ctx: CommandContext, changes: list[FileChange]) -> str:
    return "\n".join(f"  {change.kind:<21} {shown_path(ctx, change.path)}" for change in changes)


def shown_path(ctx: CommandContext, path: str) -> str:
    try:
        return str(Path(path).relative_to(ctx.root.resolve()))
    except ValueError:
        return path


def _decide(ctx: CommandContext, changes: list[FileChange], flags: set[str]) -> bool:
    ctx.io.info(f"that turn changed {plural(len(changes), 'file')}:\n{describe_changes(ctx, changes)}")
    if "--files" in flags:
        return True
    if "--keep-files" in flags:
        return False
    if ctx.settings.prompt is not None:  # batch mode: --yes restores, otherwise nothing is touched
        return ctx.settings.approval == "yes"
    return ctx.io.confirm("Restore these files too (/undo --files or --keep-files skips this question)?")


def _restore_all(ctx: CommandContext, changes: list[FileChange]) -> None:
    clashing = {c.change.path: c for c in conflicts(changes)}
    for change in changes:
        name = shown_path(ctx, change.path)
        if not change.restorable:
            ctx.io.warning(f"{name}: {change.kind}; its earlier content was not recorded, so it stays as it is")
            continue
        conflict = clashing.get(change.path)
        if conflict is not None and not _overwrite_anyway(ctx, name, conflict):
            ctx.io.info(f"{name} kept as it is now")
            continue
        try:
            done = restore(change)
        except OSError as exc:
            ctx.io.error(f"{name}: cannot restore it ({exc.strerror or exc}); it stays as it is")
            continue
        ctx.io.success(f"{name} {done}")


def _overwrite_anyway(ctx: CommandContext, name: str, conflict: Conflict) -> bool:
    """A file changed again since the turn: show how, and overwrite only if the user says so."""
    after = _text(conflict.change.after)
    now = _text(conflict.current)
    lines = list(difflib.unified_diff(after, now, f"{name} (after the turn)", f"{name} (now)", n=1))
    shown = "".join(line if line.endswith("\n") else line + "\n" for line in lines[:CONFLICT_DIFF_LINES])
    if len(lines) > CONFLICT_DIFF_LINES:
        shown += f"... {len(lines) - CONFLICT_DIFF_LINES} more diff lines\n"
    state = "was deleted" if conflict.current is None else "was changed"
    ctx.io.warning(f"{name} {state} since that turn (outside slop or by a later turn):")
    if shown:
        ctx.io.plain(shown.rstrip("\n"))
    if ctx.settings.prompt is not None:
        return False  # batch mode never overwrites someone else's change
    return ctx.io.confirm(f"Overwrite {name} with its content from before the turn?")


def _text(content: bytes | None) -> list[str]:
    return [] if content is None else content.decode("utf-8", "replace").splitlines(keepends=True)


def files_kept_notice(ctx: CommandContext, group_id: str) -> None:
    """For /message remove: which files that turn changed, and that they stay."""
    changes = ctx.store.checkpoints.changes(group_id)
    if changes:
        ctx.io.info(
            f"that turn changed {plural(len(changes), 'file')}; they stay as they are "
            f"(only /undo puts files back):\n{describe_changes(ctx, changes)}"
        )
