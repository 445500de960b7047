"""$VISUAL / $EDITOR round-trips with unique temp files that are always removed."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping

from slop.errors import SlopError


class EditorError(SlopError):
    """The editor could not be started or failed."""


def editor_command(env: Mapping[str, str] | None = None) -> list[str]:
    env = os.environ if env is None else env
    raw = env.get("VISUAL") or env.get("EDITOR") or "vi"
    try:
        return shlex.split(raw)  # `code --wait`, `emacsclient -t` ...
    except ValueError as exc:
        raise EditorError(f"cannot parse the editor command {raw!r}: {exc}") from exc


def has_editor(env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    return bool(env.get("VISUAL") or env.get("EDITOR"))


def edit_text(text: str, suffix: str = ".md", *, read_only: bool = False, env: Mapping[str, str] | None = None) -> str:
    """Open `text` in the editor and return what was saved. Raises EditorError."""
    command = editor_command(env)
    fd, path = tempfile.mkstemp(prefix="slop-", suffix=suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        if read_only:
            os.chmod(path, 0o444)
        try:
            code = subprocess.call([*command, path])
        except FileNotFoundError as exc:
            raise EditorError(f"editor {command[0]!r} not found; set $EDITOR (e.g. export EDITOR=nano)") from exc
        if code != 0:
            raise EditorError(f"the editor exited with status {code}; nothing was changed")
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    finally:
        try:
            os.chmod(path, 0o600)
            os.unlink(path)
        except OSError:
            pass
