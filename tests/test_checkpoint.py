"""File checkpoints around tool calls: what a turn changed, and putting it back."""

from __future__ import annotations

import json
from pathlib import Path

from slop.checkpoint import TurnFiles, conflicts, restore
from slop.records import ToolCall
from slop.store import Store
from slop.tools.base import ToolContext


class _NoStore:  # the tools' ToolStore is not used by checkpoints
    pass


def _turn(store: Store, root: Path) -> TurnFiles:
    ctx = ToolContext(root=root, session_id="s", store=_NoStore())  # type: ignore[arg-type]
    return TurnFiles(store.checkpoints, "s", "g1", ctx, ledger=store.path)


def test_a_shell_command_is_tracked_by_what_it_created_changed_and_deleted(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "kept.txt").write_text("same\n")
    (root / "edited.txt").write_text("before\n")
    (root / "gone.txt").write_text("bye\n")
    store = Store.open(str(root / "ledger.db"))  # a ledger inside the project is never listed
    try:
        files = _turn(store, root)
        call = ToolCall("c1", "execute_bash", json.dumps({"command": "..."}))
        files.before(call)
        (root / "edited.txt").write_text("after, longer\n")
        (root / "gone.txt").unlink()
        (root / "new.txt").write_text("fresh\n")
        files.after(call)
        changes = {Path(c.path).name: c for c in store.checkpoints.changes("g1")}
        assert {name: c.kind for name, c in changes.items()} == {
            "edited.txt": "changed by a command",
            "gone.txt": "deleted by a command",
            "new.txt": "created",
        }
        assert not changes["edited.txt"].restorable  # its earlier content is unknown
        assert conflicts(list(changes.values())) == []
        assert restore(changes["new.txt"]) == "deleted" and not (root / "new.txt").exists()
    finally:
        store.close()


def test_a_file_tool_records_the_content_before_the_first_change(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    store = Store.open(str(tmp_path / "ledger.db"))
    try:
        files = _turn(store, root)
        for content in ("two\n", "three\n"):  # two writes in one turn: the first "before" wins
            call = ToolCall(content, "write_file", json.dumps({"path": "a.txt", "content": content}))
            files.before(call)
            (root / "a.txt").write_text(content)
            files.after(call)
        [change] = store.checkpoints.changes("g1")
        assert (change.before, change.after, change.kind) == (b"one\n", b"three\n", "modified")
        (root / "a.txt").write_text("edited by hand\n")
        [conflict] = conflicts([change])
        assert conflict.current == b"edited by hand\n"
        assert restore(change) == "restored" and (root / "a.txt").read_text() == "one\n"
    finally:
        store.close()
