"""/skill: persona patches added to the system prompt. Several can be active at once;
the active set belongs to the session (and is copied by /session clone).

Editor format (what /skill add and /skill edit open):

    # Name: reviewer
    # Description: Reviews changes; does not implement them

    The patch text, added to the system prompt while the skill is active.

Header lines are `# Name:` and `# Description:` (any order, case and spacing);
`<!-- -->` hint lines and an old-style `# System Prompt Patch` line are skipped. The
first other line starts the patch."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from slop.commands.base import CommandContext, Sub, every_word, grouped, usage_error
from slop.commands.helpers import check_name, snippet
from slop.errors import CommandError
from slop.records import Skill
from slop.store.catalog import DEFAULT_SKILLS

ADD_USAGE = "/skill add [NAME]   (opens $EDITOR)"
_HEADER = re.compile(r"^\s*#\s*(name|description|system prompt patch)\s*:?(.*)$", re.IGNORECASE)
TEMPLATE_HINT = (
    "<!-- New skill: a name without spaces, a one-line description, then the text added to the "
    "system prompt while the skill is active. Save an empty file to cancel. -->"
)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SkillText:
    name: str
    description: str
    patch: str


def format_skill(name: str, description: str, patch: str) -> str:
    return f"# Name: {name}\n# Description: {description}\n\n{patch.strip()}\n"


def parse_skill(text: str) -> SkillText:
    """Name, description and patch from the editor format (not validated)."""
    name = description = ""
    lines = text.splitlines()
    start = len(lines)
    for i, line in enumerate(lines):
        stripped = line.strip()
        match = _HEADER.match(line)
        if match:
            key, value = match.group(1).lower(), match.group(2).strip()
            if key == "name":
                name = value
            elif key == "description":
                description = value
            continue
        if not stripped or (stripped.startswith("<!--") and stripped.endswith("-->")):
            continue
        start = i
        break
    return SkillText(name, description, "\n".join(lines[start:]).strip())


def validate_skill(parsed: SkillText) -> SkillText:
    name = check_name(parsed.name, "skill", ADD_USAGE)
    if any(c.isspace() for c in name):
        raise CommandError(f"the skill name {name!r} contains spaces; use - or _ instead")
    if name.isdigit():
        raise CommandError("the skill name cannot be only digits (numbers select skills by ID)")
    if not parsed.patch:
        raise CommandError(f"skill '{name}' has no text below the header: write what it adds to the system prompt")
    return SkillText(name, " ".join(parsed.description.split()), parsed.patch)


def find_skill(ctx: CommandContext, key: str, usage: str) -> Skill:
    """A skill by name or numeric ID, or an error naming close matches."""
    if not key:
        raise usage_error(usage, "which skill? (see /skill list)")
    skill = ctx.store.catalog.skill(key)
    if skill is not None:
        return skill
    names = [s.name for s in ctx.store.catalog.skills()]
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(close)}?" if close else "; /skill list shows them"
    raise CommandError(f"no skill {key!r}{hint}")


def _list(ctx: CommandContext, rest: str) -> None:
    skills = ctx.store.catalog.skills()
    active = ctx.store.sessions.get(ctx.session).active_skills
    rows = [
        [str(s.id), s.name, snippet(s.description, 60), str(s.activation_count), "●" if s.name in active else ""]
        for s in skills
    ]
    title = f"Skills (active in '{ctx.session}': {', '.join(active) if active else 'none'})"
    ctx.io.table(title, ["ID", "Name", "Description", "Activations", "Active"], rows)


def _show(ctx: CommandContext, rest: str) -> None:
    skill = find_skill(ctx, rest, "/skill show SKILL")
    active = skill.name in ctx.store.sessions.get(ctx.session).active_skills
    ctx.io.markdown(
        f"### Skill {skill.name} (ID {skill.id})\n\n{skill.description or '(no description)'}\n\n"
        f"{'active' if active else 'not active'} in session '{ctx.session}' · activated {skill.activation_count} "
        f"time(s)\n\n---\n\n{skill.patch}"
    )


def _activate(ctx: CommandContext, rest: str) -> None:
    keys = rest.split()
    if not keys:
        raise usage_error("/skill activate SKILL...", "which skill? (see /skill list)")
    skills = [find_skill(ctx, key, "/skill activate SKILL...") for key in keys]
    active = list(ctx.store.sessions.get(ctx.session).active_skills)
    added = []
    for skill in skills:
        if skill.name in active:
            ctx.io.info(f"skill '{skill.name}' is already active")
            continue
        active.append(skill.name)
        added.append(skill.name)
    if not added:
        return
    ctx.store.sessions.set_active_skills(ctx.session, active)
    for name in added:
        ctx.store.catalog.count_activation(name)
    ctx.io.success(f"activated {', '.join(added)}; active in '{ctx.session}': {', '.join(active)}")


def _deactivate(ctx: CommandContext, rest: str) -> None:
    keys = rest.split()
    if not keys:
        raise usage_error("/skill deactivate SKILL...", "which skill? (see /skill list)")
    active = list(ctx.store.sessions.get(ctx.session).active_skills)
    removed = []
    for key in keys:
        # An active name whose skill was deleted can still be switched off.
        name = key if key in active else find_skill(ctx, key, "/skill deactivate SKILL...").name
        if name not in active:
            ctx.io.info(f"skill '{name}' is not active")
            continue
        active.remove(name)
        removed.append(name)
    if not removed:
        return
    ctx.store.sessions.set_active_skills(ctx.session, active)
    left = ", ".join(active) if active else "none"
    ctx.io.success(f"deactivated {', '.join(removed)}; active in '{ctx.session}': {left}")


def _edit_until_valid(ctx: CommandContext, text: str, check: Callable[[str], T]) -> T | None:
    """Open the editor until `check` accepts the text, the user gives up, or the editor fails."""
    while True:
        edited = ctx.io.edit(text, ".md")
        if edited is None:
            return None
        try:
            return check(edited)
        except CommandError as exc:
            if not ctx.io.confirm(f"{exc}. Edit again?"):
                ctx.io.info("nothing saved")
                return None
            text = edited


def _add(ctx: CommandContext, rest: str) -> None:
    if rest and (any(c.isspace() for c in rest) or rest.isdigit()):
        raise usage_error(ADD_USAGE, "the skill name must be one word that is not a number")
    template = f"{TEMPLATE_HINT}\n{format_skill(rest, '', '')}"

    def check(text: str) -> SkillText | str:
        parsed = parse_skill(text)
        if not parsed.patch and parsed.name in ("", rest) and not parsed.description:
            return ""  # empty, or the template saved unchanged
        skill = validate_skill(parsed)
        if ctx.store.catalog.skill(skill.name) is not None:
            raise CommandError(f"skill '{skill.name}' exists already (/skill edit {skill.name} changes it)")
        return skill

    edited = _edit_until_valid(ctx, template, check)
    if edited is None:
        return
    if isinstance(edited, str):
        ctx.io.info("empty skill; nothing saved")
        return
    ctx.store.catalog.save_skill(edited.name, edited.description, edited.patch)
    ctx.io.success(f"skill '{edited.name}' added; /skill activate {edited.name} turns it on")


def _edit(ctx: CommandContext, rest: str) -> None:
    skill = find_skill(ctx, rest, "/skill edit SKILL")
    before = format_skill(skill.name, skill.description, skill.patch)

    def check(text: str) -> SkillText | str:
        if not text.strip():
            return ""
        parsed = validate_skill(parse_skill(text))
        other = ctx.store.catalog.skill(parsed.name)
        if other is not None and other.id != skill.id:
            raise CommandError(f"another skill is called '{parsed.name}'; pick another name")
        return parsed

    edited = _edit_until_valid(ctx, before, check)
    if edited is None:
        return
    if isinstance(edited, str):
        if ctx.io.confirm(f"The skill is empty. Delete skill '{skill.name}'?"):
            _delete_skill(ctx, skill)
        else:
            ctx.io.info(f"skill '{skill.name}' kept unchanged")
        return
    if (edited.name, edited.description, edited.patch) == (skill.name, skill.description, skill.patch.strip()):
        ctx.io.info("no changes")
        return
    if edited.name != skill.name:
        _rename(ctx, skill, edited.name)
    ctx.store.catalog.save_skill(edited.name, edited.description, edited.patch)
    renamed = f" (renamed from '{skill.name}')" if edited.name != skill.name else ""
    ctx.io.success(f"skill '{edited.name}' updated{renamed}")


def _rename(ctx: CommandContext, skill: Skill, new: str) -> None:
    """Rename in place (the ID and activation count stay) and in every session's active list."""
    with ctx.store.db.transaction():
        ctx.store.catalog.rename_skill(skill.id, new)
        _replace_active(ctx, skill.name, new)


def _replace_active(ctx: CommandContext, old: str, new: str | None) -> None:
    for row in ctx.store.sessions.list():
        active = list(ctx.store.sessions.get(str(row["id"])).active_skills)
        if old in active:
            changed = [n for n in active if n != old] if new is None else [new if n == old else n for n in active]
            ctx.store.sessions.set_active_skills(str(row["id"]), changed)


def _delete(ctx: CommandContext, rest: str) -> None:
    _delete_skill(ctx, find_skill(ctx, rest, "/skill delete SKILL"))


def _delete_skill(ctx: CommandContext, skill: Skill) -> None:
    with ctx.store.db.transaction():
        ctx.store.catalog.delete_skill(skill.name)
        _replace_active(ctx, skill.name, None)
    shipped = " (a shipped skill: it comes back, as shipped, at the next start)" if skill.name in _DEFAULTS else ""
    ctx.io.success(f"skill '{skill.name}' deleted{shipped}")


_DEFAULTS = {name for name, _, _ in DEFAULT_SKILLS}


def _skill_names(ctx: CommandContext) -> list[str]:
    return [s.name for s in ctx.store.catalog.skills()]


def _active_skills(ctx: CommandContext) -> list[str]:
    return list(ctx.store.sessions.get(ctx.session).active_skills)


SUBS = (
    Sub("list", "", "Every skill, its activation count and whether it is active here", _list),
    Sub(
        "show",
        "SKILL",
        "One skill's description and the text it adds to the system prompt",
        _show,
        complete=every_word(_skill_names),
    ),
    Sub(
        "activate",
        "SKILL...",
        "Add skills to this session's system prompt",
        _activate,
        complete=every_word(_skill_names),
    ),
    Sub(
        "deactivate",
        "SKILL...",
        "Take skills out of this session's system prompt",
        _deactivate,
        complete=every_word(_active_skills),
    ),
    Sub("add", "[NAME]", "Write a new skill in $EDITOR", _add),
    Sub(
        "edit",
        "SKILL",
        "Edit a skill in $EDITOR (renaming it renames it in every session)",
        _edit,
        complete=every_word(_skill_names),
    ),
    Sub(
        "delete", "SKILL", "Delete a skill and switch it off everywhere", _delete, ("remove",), every_word(_skill_names)
    ),
)
COMMANDS = (
    grouped(
        "/skill",
        "Persona patches for the system prompt: list, show, activate/deactivate (several at once), add, edit, delete",
        "Agent Capabilities",
        SUBS,
        aliases=("/skills",),
    ),
)
