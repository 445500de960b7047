"""Short group ids: 19-digit GIDs are shown by their shortest unique suffix and accepted
as any unique suffix of at least MIN_TYPED characters."""

from __future__ import annotations

from slop.commands.base import CommandContext, usage_error
from slop.errors import CommandError

MIN_SHOWN = 6  # lists show at least this many trailing characters
MIN_TYPED = 4  # a typed suffix needs at least this many


def short_length(ids: list[str]) -> int:
    """The least length >= MIN_SHOWN at which the ids' suffixes are all different."""
    longest = max((len(i) for i in ids), default=MIN_SHOWN)
    for length in range(MIN_SHOWN, longest + 1):
        if len({i[-length:] for i in ids}) == len(ids):
            return length
    return longest


class ShortIds:
    """The session's ids, shortened together so a list's column is even."""

    def __init__(self, ids: list[str]) -> None:
        self.length = short_length(ids)

    @classmethod
    def of(cls, ctx: CommandContext) -> ShortIds:
        return cls(ctx.store.messages.last_group_ids(ctx.session, 0, include_hidden=True))

    def __call__(self, gid: str) -> str:
        return gid[-self.length :]


def find_gid(ctx: CommandContext, typed: str, usage: str) -> str:
    """The session's group whose id is `typed` or ends with it; a clear error when
    missing, too short, ambiguous (the candidates listed) or another session's."""
    if not typed:
        raise usage_error(usage, "missing GID (see /message list)")
    if ctx.store.messages.group_exists(ctx.session, typed):
        return typed
    ids = ctx.store.messages.last_group_ids(ctx.session, 0, include_hidden=True)
    matches = [gid for gid in ids if gid.endswith(typed)] if len(typed) >= MIN_TYPED else []
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        short = ShortIds(ids)
        shown = ", ".join(short(gid) for gid in matches[:8]) + (" …" if len(matches) > 8 else "")
        raise CommandError(f"{typed} matches {len(matches)} groups ({shown}); type more of the GID")
    owner = ctx.store.messages.group_owner(typed)
    if owner is not None:
        raise CommandError(f"group {typed} belongs to session '{owner}', not '{ctx.session}'")
    if len(typed) < MIN_TYPED:
        raise CommandError(f"no group {typed}: type at least {MIN_TYPED} trailing characters of a GID (/message list)")
    raise CommandError(f"no group ending in {typed} in session '{ctx.session}' (see /message list)")


def recent_short_ids(ctx: CommandContext, n: int = 20) -> list[str]:
    """For Tab completion: the last `n` groups as they are shown in lists."""
    short = ShortIds.of(ctx)
    return [short(gid) for gid in ctx.store.messages.last_group_ids(ctx.session, n, include_hidden=True)]
