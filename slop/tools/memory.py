"""The agent's working memory: scratchpad, memos and skills, all through ctx.store.

The scratchpad is per session (a plan the model keeps across turns), memos are
global notes found again by tag, and skills are named prompt patches the model
can switch on for the session.
"""

from __future__ import annotations

from typing import Any

from slop.records import ToolSpec
from slop.store.memos import normalise_tags  # the one spelling rule of tags, the store's
from slop.tools.base import ErrorCode, Tool, ToolContext, ToolFailure, ToolOutput
from slop.tools.output import plural

# --- manage_scratchpad ---------------------------------------------------------


def _need_content(args: dict[str, Any], action: str) -> str:
    content = args.get("content")
    if content is None:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"content is required for action '{action}'")
    if not isinstance(content, str):
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"content for action '{action}' must be text")
    return content


def manage_scratchpad(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    action = args["action"]
    store, session = ctx.store, ctx.session_id
    if action == "read":
        text = store.get_scratchpad(session)
        return ToolOutput(text if text else "The scratchpad is empty.")
    content = _need_content(args, action)
    if action == "append":
        content = store.append_scratchpad(session, content)  # one transaction: no lost appends
    else:
        store.set_scratchpad(session, content)
    return ToolOutput(
        f"Scratchpad {'updated' if action == 'update' else 'appended to'} ({plural(len(content), 'character')} now)."
    )


MANAGE_SCRATCHPAD = Tool(
    spec=ToolSpec(
        name="manage_scratchpad",
        description=(
            "Read or change this session's markdown scratchpad (plans, findings, TODOs that should "
            "survive across turns). update replaces it; append adds a new line at the end."
        ),
        parameters={
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["read", "update", "append"], "description": "What to do."},
                "content": {"type": "string", "description": "Text for update or append."},
            },
            "required": ["action"],
        },
    ),
    run=manage_scratchpad,
)


# --- memos -----------------------------------------------------------------------


def _clean_tags(tags: list[str]) -> list[str]:
    """The tags as the memo store keeps them (lower-case, trimmed, spaces as dashes, no
    duplicates), so the reply names the tags the memo is found by, not the ones sent."""
    cleaned = normalise_tags(tags)
    if not cleaned:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "tags must contain at least one non-empty tag")
    return cleaned


def save_memo(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    content: str = args["content"]
    if ctx.read_only:
        # a memo is injected into every project's prompts: a read-only session must not plant one
        raise ToolFailure(ErrorCode.PERMISSION_DENIED, "save_memo refused: slop runs with --read-only")
    if not content.strip():
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "content must not be empty")
    tags = _clean_tags(args["tags"])
    memo_id = ctx.store.save_memo(content, tags)
    return ToolOutput(f"Memo {memo_id} saved with tags: {', '.join(tags)}.")


def retrieve_memos(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    tags = _clean_tags(args["tags"])
    memos = ctx.store.find_memos(tags)
    if not memos:
        return ToolOutput(f"No memos found for tags: {', '.join(tags)}.")
    blocks = [
        f"## Memo {m.id} (tags: {', '.join(m.tags)}{'; ' + m.created_at if m.created_at else ''})\n{m.content}"
        for m in memos
    ]
    return ToolOutput(f"{plural(len(memos), 'memo')} found:\n\n" + "\n\n".join(blocks))


_TAGS = {"type": "array", "items": {"type": "string"}}

SAVE_MEMO = Tool(
    spec=ToolSpec(
        name="save_memo",
        description="Save a note for later sessions, with tags to find it again (e.g. ['build', 'python']).",
        parameters={
            "type": "object",
            "properties": {
                "content": {"type": "string", "description": "The note."},
                "tags": {**_TAGS, "description": "Keywords to retrieve it by."},
            },
            "required": ["content", "tags"],
        },
    ),
    run=save_memo,
)

RETRIEVE_MEMOS = Tool(
    spec=ToolSpec(
        name="retrieve_memos",
        description="Find saved memos that carry any of the given tags (best matches first).",
        parameters={
            "type": "object",
            "properties": {"tags": {**_TAGS, "description": "Tags to look for."}},
            "required": ["tags"],
        },
    ),
    run=retrieve_memos,
)


# --- use_skill -------------------------------------------------------------------


def use_skill(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    name: str = args["name"]
    activate = args.get("action", "activate") == "activate"
    skills = {s.name: s for s in ctx.store.list_skills()}
    skill = skills.get(name)
    if skill is None:
        available = ", ".join(sorted(skills)) or "none"
        raise ToolFailure(ErrorCode.NOT_FOUND, f"no skill named '{name}'. Available skills: {available}")
    try:
        ctx.store.set_skill_active(ctx.session_id, name, activate)
    except KeyError:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"no skill named '{name}'") from None
    if not activate:
        return ToolOutput(f"Skill '{name}' deactivated.")
    return ToolOutput(f"Skill '{name}' activated. Follow these instructions from now on:\n\n{skill.patch}")


USE_SKILL = Tool(
    spec=ToolSpec(
        name="use_skill",
        description="Activate or deactivate a named skill (a set of extra instructions) for this session.",
        parameters={
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The skill's name."},
                "action": {
                    "type": "string",
                    "enum": ["activate", "deactivate"],
                    "description": "Default: activate.",
                },
            },
            "required": ["name"],
        },
    ),
    run=use_skill,
)
