"""/memo: long-term knowledge that follows the user across sessions and projects.

Editor format (what /memo add and /memo edit open):

    # Tags: python, packaging

    The memo text, in markdown.

Lines before the `# Tags:` line are ignored (the template puts a hint there); tags are
comma-separated, trimmed, lower-cased, with inner spaces turned into hyphens."""

from __future__ import annotations

import re

from slop.commands.base import CommandContext, Sub, first_word, grouped, parse_int, usage_error
from slop.commands.helpers import plural, snippet
from slop.errors import CommandError
from slop.records import Memo
from slop.store.memos import normalise_tags, tag_matches

ADD_USAGE = "/memo add   (opens $EDITOR)   or   /memo add [--tags A,B] TEXT with optional #tag words"
_HASHTAG = re.compile(r"(?<!\S)#([\w][\w.-]*)")
_TRAILING_HASHTAGS = re.compile(r"(?:\s+#[\w][\w.-]*)+\s*$")
SEARCH_USAGE = "/memo search TAGS-OR-KEYWORDS   (commas separate tags)"
_TAGS_LINE = re.compile(r"^\s*#\s*tags?\s*:(.*)$", re.IGNORECASE)
TEMPLATE_HINT = (
    "<!-- New memo: comma-separated tags on the Tags line, the memo below it. Save an empty memo to cancel. -->"
)


def format_memo(tags: list[str] | tuple[str, ...], content: str) -> str:
    return f"# Tags: {', '.join(tags)}\n\n{content.strip()}\n"


def parse_memo(text: str) -> tuple[list[str], str]:
    """(tags, content) from the editor format. Without a `# Tags:` line everything is content."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = _TAGS_LINE.match(line)
        if match:
            return split_tags(match.group(1)), "\n".join(lines[i + 1 :]).strip()
    body = [line for line in lines if not (line.strip().startswith("<!--") and line.strip().endswith("-->"))]
    return [], "\n".join(body).strip()


def split_tags(text: str) -> list[str]:
    return normalise_tags(text.split(","))


def _table(ctx: CommandContext, title: str, memos: list[Memo]) -> None:
    rows = [[str(m.id), ", ".join(m.tags) or "-", snippet(m.content), m.created_at[:16], _origin(m)] for m in memos]
    ctx.io.table(title, ["ID", "Tags", "Memo", "Created", "Saved by"], rows)


def _origin(memo: Memo) -> str:
    """Who saved a memo: the user, or the model (and in which project)."""
    if memo.source != "model":
        return "you"
    return f"model in {memo.project}" if memo.project else "model"


def _list(ctx: CommandContext, rest: str) -> None:
    if rest:
        raise usage_error("/memo list", "/memo list takes no arguments; /memo search QUERY filters")
    memos = ctx.memos.all()
    if not memos:
        ctx.io.info("no memos yet: /memo add, or ask the model to save one")
        return
    _table(ctx, f"Memos ({len(memos)})", memos)


def inline_memo(text: str) -> tuple[list[str], str]:
    """(tags, content) of `/memo add ...`: tags only when explicit (`--tags a,b` first, or
    `#tag` words); a plain sentence is all content."""
    tags: list[str] = []
    words = text.strip()
    if words.startswith("--tags"):
        _, _, after = words.partition(" ")
        tag_text, _, words = after.strip().partition(" ")
        tags = split_tags(tag_text)
        if not tags:
            raise usage_error(ADD_USAGE, "--tags needs comma-separated tags, e.g. --tags python,packaging")
    tags += normalise_tags(_HASHTAG.findall(words))
    content = _TRAILING_HASHTAGS.sub("", words).strip() if _HASHTAG.search(words) else words.strip()
    if not content:
        raise usage_error(ADD_USAGE, "the memo text is missing (no arguments opens the editor)")
    return list(dict.fromkeys(tags)), content


def _add(ctx: CommandContext, rest: str) -> None:
    if rest:
        tags, content = inline_memo(rest)
        memo_id = ctx.memos.add(content, tags)
        if tags:
            ctx.io.success(f"memo {memo_id} saved with tags {', '.join(tags)}")
        else:
            ctx.io.warning(
                f"memo {memo_id} saved without tags: retrieval finds memos by tag; add #tag words or "
                f"--tags a,b next time (/memo edit {memo_id} adds them now)"
            )
        return
    template = f"{TEMPLATE_HINT}\n{format_memo([], '')}"
    edited = ctx.io.edit(template, ".md")
    if edited is None:
        return
    tags, content = parse_memo(edited)
    if not content:
        ctx.io.info("empty memo; nothing saved")
        return
    memo_id = ctx.memos.add(content, tags)
    if tags:
        ctx.io.success(f"memo {memo_id} saved with tags {', '.join(tags)}")
    else:
        ctx.io.warning(f"memo {memo_id} saved without tags: retrieval finds memos by tag (/memo edit {memo_id})")


def _get(ctx: CommandContext, rest: str, usage: str) -> Memo:
    if not rest:
        raise usage_error(usage, "missing memo ID (see /memo list)")
    memo_id = parse_int(rest, "the memo ID", usage)
    memo = ctx.memos.get(memo_id)
    if memo is None:
        raise CommandError(f"no memo {memo_id} (see /memo list)")
    return memo


def _show(ctx: CommandContext, rest: str) -> None:
    memo = _get(ctx, rest, "/memo show ID")
    tags = ", ".join(f"`{t}`" for t in memo.tags) or "none"
    ctx.io.markdown(f"### Memo {memo.id}\n\n**Tags:** {tags} · created {memo.created_at}\n\n---\n\n{memo.content}")


def _edit(ctx: CommandContext, rest: str) -> None:
    memo = _get(ctx, rest, "/memo edit ID")
    edited = ctx.io.edit(format_memo(memo.tags, memo.content), ".md")
    if edited is None:
        return
    tags, content = parse_memo(edited)
    if not content:
        if ctx.io.confirm(f"The memo is empty. Delete memo {memo.id}?"):
            ctx.memos.remove(memo.id)
            ctx.io.success(f"memo {memo.id} deleted")
        else:
            ctx.io.info(f"memo {memo.id} kept unchanged")
        return
    if tags == list(memo.tags) and content == memo.content.strip():
        ctx.io.info("no changes")
        return
    ctx.memos.update(memo.id, content, tags)
    if tags:
        ctx.io.success(f"memo {memo.id} updated")
    else:
        ctx.io.warning(f"memo {memo.id} updated, without tags: retrieval finds memos by tag")


def _remove(ctx: CommandContext, rest: str) -> None:
    memo = _get(ctx, rest, "/memo remove ID")
    ctx.memos.remove(memo.id)
    ctx.io.success(f"memo {memo.id} deleted ({snippet(memo.content, 40)})")


def search(ctx: CommandContext, query: str) -> list[Memo]:
    """Tag matches first (keywords ranked by matched tags, then short tags given exactly),
    then memos whose text contains every word of the query, newest first."""
    items = [q for q in query.split(",") if q.strip()] if "," in query else [query]
    found = {m.id: m for m in ctx.memos.find(items, limit=10_000)}
    memos = list(reversed(ctx.memos.all()))
    exact = normalise_tags([*items, *query.replace(",", " ").split()])
    for memo in memos:  # short tags ("uv", "ci") are below the keyword length
        if memo.id not in found and any(tag_matches(t, w) for t in memo.tags for w in exact):
            found[memo.id] = memo
    words = [w for w in re.split(r"[\s,]+", query.lower()) if w]
    by_text = [m for m in memos if m.id not in found and all(w in m.content.lower() for w in words)]
    return [*found.values(), *by_text]


def _search(ctx: CommandContext, rest: str) -> None:
    if not rest:
        raise usage_error(SEARCH_USAGE, "what should I look for?")
    memos = search(ctx, rest)
    if not memos:
        ctx.io.info(f"no memo matches {rest!r}")
        return
    _table(ctx, f"Memos matching {rest!r}: {plural(len(memos), 'hit')}", memos)


def _memo_ids(ctx: CommandContext) -> list[str]:
    return [str(m.id) for m in ctx.memos.all()]


SUBS = (
    Sub("list", "", "Every memo with its tags, and who saved it", _list),
    Sub("add", "[--tags A,B] [TEXT]", "Save a memo: TEXT with #tag words, or write it in $EDITOR", _add),
    Sub("show", "ID", "One memo in full", _show, complete=first_word(_memo_ids)),
    Sub("edit", "ID", "Edit a memo and its tags in $EDITOR", _edit, complete=first_word(_memo_ids)),
    Sub("remove", "ID", "Delete a memo", _remove, ("delete",), first_word(_memo_ids)),
    Sub("search", "QUERY", "Memos by tags (comma-separated) or by words in their text", _search),
)
COMMANDS = (
    grouped(
        "/memo",
        "Long-term memos shared by all sessions and projects: list, add, show, edit, remove, search",
        "Session & Memory",
        SUBS,
        aliases=("/memos",),
    ),
)
