"""The new ledger tables: migrations on an existing ledger, /session clear and clone."""

from __future__ import annotations

from pathlib import Path

from slop.records import NewMessage, Role
from slop.store import Store
from slop.store.db import Database
from slop.store.migrations import MIGRATIONS, migrate, schema_version

from .conftest import SID, add_group


def test_migrating_an_old_ledger_indexes_its_history(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    db = Database(path)
    migrate(db, MIGRATIONS[:1])  # a ledger from before the context strategies
    db.execute("INSERT INTO messages(session_id, role, content, group_id) VALUES ('s', 'user', 'zebra stripes', '1')")
    db.close()
    store = Store.open(path)
    try:
        assert schema_version(store.db) == len(MIGRATIONS) >= 3
        assert store.history.search_groups("s", '"zebra"', 5)[0][0] == "1"
    finally:
        store.close()


def test_clear_takes_the_context_tables_and_clone_stays_searchable(ledger: Store) -> None:
    gid = add_group(ledger, "the yak shaving plan", "shaved")
    history = ledger.history
    ledger.archive.pin(SID, gid)
    ledger.archive.record_file_read(SID, "a.py")
    ledger.sessions.clone(SID, "copy", int(ledger.messages.new_group_id()))
    assert [g for g, _ in history.search_groups("copy", '"yak"', 5)] != []
    ledger.sessions.clear(SID)
    for table in ("context_pins", "context_log", "files_read", "context_archive", "context_compactions"):
        assert ledger.db.scalar(f"SELECT COUNT(*) FROM {table} WHERE session_id=?", (SID,)) == 0
    assert history.search_groups(SID, '"yak"', 5) == []
    ledger.messages.append(SID, None, NewMessage(Role.USER, "fresh start"))
    assert ledger.messages.count(SID) == 1


def _visible(store: Store) -> int:
    return len(store.history.window(SID, 0))


def test_an_edit_is_kept_unless_rolled_back_and_undone_whole_on_an_error(ledger: Store) -> None:
    gids = [add_group(ledger, f"question {i}", f"answer {i}") for i in range(3)]
    history = ledger.history
    with history.edit() as edit:
        history.archive_group(SID, gids[0], score=0.1, prompt="q", reason="test", days=1)
    assert not edit.rolled_back and _visible(ledger) == 4  # the archived group's 2 rows are out

    with history.edit() as edit:
        history.archive_group(SID, gids[1], score=0.1, prompt="q", reason="test", days=1)
        assert _visible(ledger) == 2  # inside the edit, the change is seen
        edit.rollback()
    assert edit.rolled_back and _visible(ledger) == 4  # ...and undone when the block ends

    try:
        with history.edit():
            history.archive_group(SID, gids[2], score=0.1, prompt="q", reason="test", days=1)
            raise KeyError("boom")
    except KeyError:
        pass
    assert _visible(ledger) == 4 and not history.recovered_since(SID, "2000-01-01")


def test_a_rolled_back_edit_inside_a_transaction_undoes_only_itself(ledger: Store) -> None:
    gids = [add_group(ledger, f"question {i}", f"answer {i}") for i in range(2)]
    with ledger.db.transaction():
        ledger.history.archive_group(SID, gids[0], score=0.1, prompt="q", reason="outer", days=1)
        with ledger.history.edit() as edit:
            ledger.history.archive_group(SID, gids[1], score=0.1, prompt="q", reason="inner", days=1)
            edit.rollback()
    assert [m.group_id for m in ledger.history.window(SID, 0)] == [gids[1], gids[1]]
