"""What the ledger remembers of the files a turn changed, as /undo lists them: created,
modified, deleted, or changed by a command (earlier content unknown, so not restorable)."""

from __future__ import annotations

from pathlib import Path

import pytest

from slop.store import Store
from slop.store.checkpoints import FileChange
from tests.store.turns import turn


def changes(store: Store, gid: str) -> list[tuple[str, str, bool]]:
    return [(Path(c.path).name, c.kind, c.restorable) for c in store.checkpoints.changes(gid)]


def test_each_change_is_listed_by_what_it_did_to_the_file(store: Store) -> None:
    gid = turn(store, "s", "refactor")
    store.checkpoints.record_before("s", gid, "/p/new.py", None)
    store.checkpoints.record_after(gid, "/p/new.py", b"print()\n")
    store.checkpoints.record_before("s", gid, "/p/old.py", b"a = 1\n")
    store.checkpoints.record_after(gid, "/p/old.py", b"a = 2\n")
    store.checkpoints.record_before("s", gid, "/p/gone.py", b"x\n")
    store.checkpoints.record_after(gid, "/p/gone.py", None)
    store.checkpoints.record_before("s", gid, "/p/built.txt", None, note="changed by execute_bash")
    store.checkpoints.record_after(gid, "/p/built.txt", b"output")
    assert changes(store, gid) == [
        ("new.py", "created", True),
        ("old.py", "modified", True),
        ("gone.py", "deleted", True),
        ("built.txt", "changed by a command", False),
    ]


def test_the_content_before_the_turn_s_first_change_is_kept(store: Store) -> None:
    gid = turn(store, "s", "edit twice")
    store.checkpoints.record_before("s", gid, "/p/a.py", b"v1")
    store.checkpoints.record_after(gid, "/p/a.py", b"v2")
    store.checkpoints.record_before("s", gid, "/p/a.py", b"v2")  # the second edit of the same turn
    store.checkpoints.record_after(gid, "/p/a.py", b"v3")
    [change] = store.checkpoints.changes(gid)
    assert (change.before, change.after) == (b"v1", b"v3")


def test_a_file_the_turn_put_back_as_it_was_is_not_listed(store: Store) -> None:
    gid = turn(store, "s", "try and revert")
    store.checkpoints.record_before("s", gid, "/p/a.py", b"same")
    store.checkpoints.record_after(gid, "/p/a.py", b"changed")
    store.checkpoints.record_after(gid, "/p/a.py", b"same")
    store.checkpoints.record_before("s", gid, "/p/tmp.txt", None)
    store.checkpoints.record_after(gid, "/p/tmp.txt", None)  # created and removed again
    assert store.checkpoints.changes(gid) == []


def test_a_command_that_deleted_a_file_is_listed_as_such(store: Store) -> None:
    gid = turn(store, "s", "clean")
    store.checkpoints.record_before("s", gid, "/p/cache.db", None, note="deleted by execute_bash")
    store.checkpoints.record_after(gid, "/p/cache.db", None)
    assert changes(store, gid) == [("cache.db", "deleted by a command", False)]


def test_checkpoints_belong_to_their_turn_and_go_with_it(store: Store) -> None:
    first = turn(store, "s", "one")
    second = turn(store, "s", "two")
    store.checkpoints.record_before("s", first, "/p/a.py", b"a0")
    store.checkpoints.record_after(first, "/p/a.py", b"a1")
    store.checkpoints.record_before("s", second, "/p/a.py", b"a1")
    store.checkpoints.record_after(second, "/p/a.py", b"a2")
    store.undo("s")
    assert store.checkpoints.changes(second) == []
    [kept] = store.checkpoints.changes(first)
    assert (kept.before, kept.after) == (b"a0", b"a1")


def test_binary_content_comes_back_byte_for_byte(store: Store) -> None:
    gid = turn(store, "s", "edit an image")
    blob = bytes(range(256)) * 4
    store.checkpoints.record_before("s", gid, "/p/logo.png", blob)
    store.checkpoints.record_after(gid, "/p/logo.png", blob[::-1])
    [change] = store.checkpoints.changes(gid)
    assert change.before == blob and change.after == blob[::-1]


def test_a_hand_edited_checkpoint_that_is_not_bytes_is_refused_not_restored_wrong(store: Store) -> None:
    gid = turn(store, "s", "x")
    store.checkpoints.record_before("s", gid, "/p/a.py", b"old")
    store.db.execute("UPDATE file_checkpoints SET before = 'text, not bytes'")
    with pytest.raises(TypeError, match="a checkpoint column holds str, not bytes"):
        store.checkpoints.changes(gid)


@pytest.mark.parametrize(
    ("change", "kind"),
    [
        (FileChange("/p/a", None, b"x"), "created"),
        (FileChange("/p/a", b"x", b"y"), "modified"),
        (FileChange("/p/a", b"x", None), "deleted"),
        (FileChange("/p/a", None, b"y", note="shell"), "changed by a command"),
        (FileChange("/p/a", None, None, note="shell"), "deleted by a command"),
    ],
)
def test_the_kind_shown_for_each_change(change: FileChange, kind: str) -> None:
    assert change.kind == kind
    assert change.restorable is (not change.note)
