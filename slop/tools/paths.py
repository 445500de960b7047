"""Resolving the paths a model passes to file tools, and keeping them inside the project.

A model can be talked (or can talk itself) into touching files outside the
project, so every path is resolved with realpath (symlinks followed, `..`
collapsed) and must land under the project root or a directory the user allowed
with `--allow-path`.
"""

from __future__ import annotations

import os
from pathlib import Path

from slop.tools.base import ErrorCode, ToolContext, ToolFailure


def real_root(ctx: ToolContext) -> Path:
    """The project root with symlinks resolved (the reference for every check)."""
    return Path(os.path.realpath(ctx.root))


def allowed_roots(ctx: ToolContext) -> list[Path]:
    """The root first, then the extra directories allowed with --allow-path."""
    return [real_root(ctx), *(Path(os.path.realpath(p)) for p in ctx.allowed_paths)]


def _is_within(path: Path, base: Path) -> bool:
    return path == base or base in path.parents


def resolve(ctx: ToolContext, raw: str) -> Path:
    """Turn a model-supplied path into a real absolute path inside the allowed roots.

    Relative paths are taken from the project root, not from the process cwd, so
    results do not depend on where slop was started. Raises ToolFailure when the
    path escapes (via `..` or a symlink)."""
    if not raw or not raw.strip():
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "path must not be empty")
    if "\x00" in raw:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "path must not contain NUL bytes")
    candidate = Path(os.path.expanduser(raw))
    if not candidate.is_absolute():
        candidate = Path(ctx.root) / candidate
    try:
        real = Path(os.path.realpath(candidate))
    except OSError as exc:  # a link changed while it was being followed (EINVAL), or a loop
        raise ToolFailure(ErrorCode.FAILED_PRECONDITION, f"cannot resolve {raw!r}: {exc.strerror or exc}") from None
    if not any(_is_within(real, base) for base in allowed_roots(ctx)):
        raise ToolFailure(
            ErrorCode.PERMISSION_DENIED,
            f"{raw!r} resolves to {real}, which is outside the project ({real_root(ctx)}). "
            "Ask the user to start slop with --allow-path DIR to allow more directories.",
        )
    return real


def display(ctx: ToolContext, path: Path) -> str:
    """How a path is shown to the model: relative to the root when inside it,
    so it can be passed back to any tool as is; absolute otherwise."""
    root = real_root(ctx)
    if path == root:
        return "."
    if _is_within(path, root):
        return path.relative_to(root).as_posix()
    return str(path)
