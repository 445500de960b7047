"""Messages that ask before they are sent: a very long one (a paste, big @path
attachments) would take a large share of the prompt budget on every call while it stays
in the window; one that holds the path of an image (a screenshot dragged into the
terminal) would reach the model as a path only, since slop sends no images."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from slop.commands.base import CommandContext
from slop.context.budget import prompt_budget

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff", ".heic", ".heif")
# a path as terminals paste a dropped file: quoted, or with its spaces backslash-escaped
_PATH_LIKE = re.compile(r"""'[^']+'|"[^"]+"|(?:\\ |\S)+""")


def question_before_sending(ctx: CommandContext, text: str) -> str | None:
    """The question to ask before `text` is sent (an image path, or too long), else None."""
    return image_question(text, ctx.root) or oversize_question(ctx, text)


def image_question(text: str, root: Path) -> str | None:
    images = image_paths(text, root)
    if not images:
        return None
    shown = ", ".join(str(p) for p in images[:3]) + (f" and {len(images) - 3} more" if len(images) > 3 else "")
    return (
        f"This message names an image ({shown}); slop cannot send images, so the model would see "
        "only the path. Send it anyway?"
    )


def image_paths(text: str, root: Path) -> list[Path]:
    """Existing image files the message names (absolute, ~ or relative to the project root)."""
    found: list[Path] = []
    for token in _PATH_LIKE.findall(text):
        try:
            word = shlex.split(token)[0] if token[0] in "'\"" or "\\" in token else token
        except (ValueError, IndexError):
            continue
        if not word.lower().endswith(IMAGE_SUFFIXES):
            continue
        path = Path(word).expanduser()
        path = path if path.is_absolute() else root / path
        try:
            if path.is_file() and path not in found:
                found.append(path)
        except OSError:  # a name too long for the file system, a permission error: not an image we can see
            continue
    return found


def oversize_question(ctx: CommandContext, text: str) -> str | None:
    """The question to ask when `text` exceeds the configured share of the budget, else None."""
    share = ctx.settings.paste_warn_share
    if share <= 0:
        return None
    provider = ctx.providers.current()
    session = ctx.store.sessions.get(ctx.session)
    model = provider.model if provider else ""
    budget = prompt_budget(model, session.budget, server_window=ctx.providers.context_window(model)[0])
    if budget <= 0:
        return None
    tokens = ctx.orchestrator.context.count(text)
    if tokens <= share * budget:
        return None
    return (
        f"This message is {tokens:,} tokens, {tokens / budget:.0%} of the {budget:,}-token prompt budget "
        f"(warning above {share:.0%}, SLOP_PASTE_WARN_SHARE or ui.paste_warn_share). Send it?"
    )
