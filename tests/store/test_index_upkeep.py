"""The history index merged into one piece at idle (slop.store.index_upkeep): every search
answers exactly as before, rows written by another process between steps never restart
the merge, a stop (an input) leaves it to go on later, a kill loses nothing."""

from __future__ import annotations

import itertools
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from slop.errors import StoreError
from slop.store import Store
from slop.store.db import Database
from slop.store.index_upkeep import IndexUpkeep, TidyReport, decode_structure, index_shape, tidy
from slop.store.search import HistorySearch
from tests.store.fragmented import integrity_ok, segment_ids, vocabulary, write_rows

STEP = 8  # pages a step in these tests: many steps on a small index


def rankings(path: str) -> list[list[tuple[str, float]]]:
    """Ranked searches of several words over every session, by a fresh store."""
    store = Store.open(path)
    try:
        search = HistorySearch(store.db)
        words = vocabulary()[:40:4]
        out = []
        for session, word in itertools.product(("s0", "s1", "s3"), words):
            hits = search.groups(session, f'"{word}" OR "{words[0]}"', 20, newest=50)
            out.append([(h.group_id, round(h.score, 9)) for h in hits])
        return out
    finally:
        store.close()


def tidied(path: str, stop: Callable[[], bool] = lambda: False) -> tuple[int, bool]:
    db = Database(path)
    try:
        report = tidy(db, stop, pages=STEP, min_pages=0)
        return report.steps, report.stopped
    finally:
        db.close()


def shape_of(path: str):  # type: ignore[no-untyped-def]
    db = Database(path)
    try:
        return index_shape(db)
    finally:
        db.close()


@pytest.fixture
def ledger(tmp_path: Path) -> str:
    path = str(tmp_path / "l.db")
    write_rows(path, 900)
    return path


def test_the_shape_read_is_the_index_fts5_keeps(ledger: str) -> None:
    shape = shape_of(ledger)
    assert shape is not None and len(shape.segments) == segment_ids(ledger) > 3
    assert shape.tail_share > 0.1 and shape.needs_merge(min_pages=0) and not shape.needs_merge(min_pages=10**6)
    tidied(ledger)
    after = shape_of(ledger)
    assert after is not None and len(after.segments) == segment_ids(ledger) == 1 and not after.merging
    assert after.tail_share == 0 and not after.needs_merge(min_pages=0)


def test_a_merged_index_answers_every_search_as_before(ledger: str) -> None:
    before = rankings(ledger)
    assert sum(map(len, before)) > 100  # the searches find things
    steps, stopped = tidied(ledger)
    assert steps > 3 and not stopped
    assert rankings(ledger) == before and integrity_ok(ledger)
    assert tidied(ledger) == (0, False)  # one piece: nothing more to do


def test_rows_written_between_steps_do_not_restart_the_merge(tmp_path: Path) -> None:
    quiet, busy = str(tmp_path / "quiet.db"), str(tmp_path / "busy.db")
    write_rows(quiet, 900)
    write_rows(busy, 900)
    undisturbed, _ = tidied(quiet)
    other = sqlite3.connect(busy, isolation_level=None)
    words = iter(itertools.cycle(vocabulary()[:40:4]))

    def write_meanwhile() -> bool:  # another slop's turn commits between every two steps
        other.execute(
            "INSERT INTO messages(session_id, role, content, status, group_id, parsing_strategy)"
            " VALUES ('s9', 'user', ?, 'completed', 'g' || random(), 'openai')",
            (" ".join(next(words) for _ in range(30)),),
        )
        return False

    steps, stopped = tidied(busy, write_meanwhile)
    other.close()
    shape = shape_of(busy)
    assert not stopped and shape is not None and not shape.merging
    assert steps <= undisturbed + 2, (steps, undisturbed)  # a restart would redo the merged part each step
    assert shape.tail_share < 0.1 and integrity_ok(busy)
    store = Store.open(busy)
    try:  # what was written meanwhile is found
        assert HistorySearch(store.db).groups("s9", f'"{vocabulary()[0]}"', 50)
    finally:
        store.close()


def test_a_stop_leaves_the_merge_to_go_on_later(tmp_path: Path) -> None:
    whole, halted = str(tmp_path / "whole.db"), str(tmp_path / "halted.db")
    write_rows(whole, 900)
    write_rows(halted, 900)
    before = rankings(halted)
    undisturbed, _ = tidied(whole)
    asked = itertools.count()
    steps, stopped = tidied(halted, lambda: next(asked) >= 3)  # an input starts after three steps
    shape = shape_of(halted)
    assert (steps, stopped) == (3, True) and shape is not None and shape.merging
    assert rankings(halted) == before  # half merged, the index answers the same
    rest, stopped = tidied(halted)
    assert not stopped and steps + rest <= undisturbed + 1  # it went on, it did not start over
    assert segment_ids(halted) == 1 and rankings(halted) == before


def test_a_small_ledger_is_left_alone(ledger: str) -> None:
    db = Database(ledger)
    try:
        shape = index_shape(db)
        report = tidy(db)  # the default floor: a few hundred pages are read fast in any shape
    finally:
        db.close()
    assert shape is not None and shape.pages < 1000
    assert report.steps == 0 and segment_ids(ledger) == len(shape.segments)


def test_a_kill_mid_merge_loses_nothing(ledger: str) -> None:
    before = rankings(ledger)
    script = textwrap.dedent(
        f"""
        import sys
        from slop.store.db import Database
        from slop.store.index_upkeep import tidy
        db = Database({ledger!r})
        def stop():
            print("step", flush=True)
            return False
        tidy(db, stop, pages=2, min_pages=0)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    for _ in range(4):
        assert child.stdout.readline() == "step\n"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    shape = shape_of(ledger)
    assert shape is not None and shape.merging  # killed half way through
    assert integrity_ok(ledger) and rankings(ledger) == before
    tidied(ledger)
    assert segment_ids(ledger) == 1 and rankings(ledger) == before


def test_the_idle_upkeep_pauses_for_an_input_and_goes_on_at_the_next_quiet_moment(tmp_path: Path) -> None:
    path = str(tmp_path / "l.db")
    write_rows(path, 4000, words=300, per_commit=10)  # over the floor: what the REPL merges
    before = rankings(path)
    asked = itertools.count()
    busy = {"now": False}

    def is_busy() -> bool:  # the user presses Enter once the merge has taken two steps
        busy["now"] = busy["now"] or next(asked) >= 3
        return busy["now"]

    upkeep = IndexUpkeep(path, is_busy, quiet=0)
    paused = _next_report(upkeep)
    assert paused.stopped and paused.steps == 2
    busy["now"] = False
    asked = itertools.count(-(10**9))  # idle from now on
    finished = _next_report(upkeep)
    upkeep.close()
    assert not finished.stopped and finished.steps > 2
    assert segment_ids(path) == 1 and rankings(path) == before


def _merging(path: str) -> bool:
    shape = shape_of(path)
    return shape is not None and shape.merging


def _next_report(upkeep: IndexUpkeep) -> TidyReport:
    """Ask for the upkeep at idle, and wait for what it did."""
    last = upkeep.last
    upkeep.when_idle()
    deadline = time.monotonic() + 30
    while (upkeep.last is last or upkeep.running) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert upkeep.last is not None and upkeep.last is not last
    return upkeep.last


def test_a_structure_record_it_cannot_read_means_no_merge() -> None:
    v2 = b"\x00\x00\x00\x01" + b"\xff\x00\x00\x01" + bytes([1, 1, 5, 0, 1, 1, 1, 10, 0, 0, 0, 0, 7])
    shape = decode_structure(v2)  # SQLite 3.44's format (contentless-delete tables)
    assert shape is not None and shape.segments == (10,) and not shape.merging
    assert decode_structure(b"\x00\x00\x00\x01" + bytes([1, 2, 5, 0, 1, 1, 1, 10])) is None  # one segment short
    assert decode_structure(b"\x00\x00") is None and decode_structure(b"") is None
    assert decode_structure(b"\x00\x00\x00\x01" + bytes([1, 1, 5, 0, 1, 1, 9, 3])) is None  # last page before first


def test_two_slops_idle_on_one_ledger_merge_it_together(ledger: str) -> None:
    before = rankings(ledger)
    reports: list[tuple[int, bool]] = []
    threads = [threading.Thread(target=lambda: reports.append(tidied(ledger))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(reports) == 2 and not any(stopped for _, stopped in reports)
    assert segment_ids(ledger) == 1 and integrity_ok(ledger) and rankings(ledger) == before


def test_a_failure_goes_to_the_log_not_the_screen(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = str(tmp_path / "l.db")
    write_rows(path, 4000, words=300, per_commit=10)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")  # another process holds the ledger past the busy timeout
    upkeep = IndexUpkeep(path, lambda: False, quiet=0)
    with caplog.at_level("WARNING", logger="slop.store.index_upkeep"):
        upkeep.when_idle()
        deadline = time.monotonic() + 30
        while upkeep.running and time.monotonic() < deadline:
            time.sleep(0.05)
    conn.execute("ROLLBACK")
    conn.close()
    assert upkeep.last is None and "history index upkeep stopped" in caplog.text
    assert integrity_ok(path)
    upkeep.when_idle()  # once is enough: the next quiet moments leave the index alone
    assert not upkeep.running and caplog.text.count("upkeep stopped") == 1


def test_small_pieces_are_merged_two_by_two_without_rewriting_the_rest(tmp_path: Path) -> None:
    path = str(tmp_path / "l.db")
    write_rows(path, 900, words=300)
    tidied(path)  # one piece
    write_rows(path, 40, per_commit=1, seed=2)  # forty turns since: a crowded tail, far under a tenth
    before = rankings(path)
    shape = shape_of(path)
    assert shape is not None and shape.crowded and not shape.lopsided(min_pages=0)
    largest = max(shape.segments)
    steps, stopped = tidied(path)
    after = shape_of(path)
    assert after is not None and not stopped and steps < 10  # the small pieces only
    assert max(after.segments) == largest and not after.crowded and not after.merging
    assert len(after.segments) < len(shape.segments) and rankings(path) == before and integrity_ok(path)


def test_an_interrupted_statement_rolls_its_transaction_back(tmp_path: Path) -> None:
    db = Database(str(tmp_path / "l.db"))
    db.execute("CREATE TABLE t (x)")
    failed: list[BaseException] = []

    def long_step() -> None:
        try:
            with db.transaction():
                db.execute("INSERT INTO t VALUES (1)")
                db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n")
        except StoreError as exc:
            failed.append(exc)

    worker = threading.Thread(target=long_step)
    worker.start()
    time.sleep(0.2)
    started = time.monotonic()
    db.interrupt()  # from another thread, without the lock the running statement holds
    worker.join(5)
    assert not worker.is_alive() and time.monotonic() - started < 1
    assert failed and "interrupt" in str(failed[0])
    assert db.scalar("SELECT count(*) FROM t") == 0  # the step's writes are gone
    db.close()


def test_an_input_cuts_the_step_under_way_short_and_loses_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "l.db")
    write_rows(path, 4000, words=300, per_commit=10)
    before, shape = rankings(path), shape_of(path)
    busy = {"now": False}
    upkeep = IndexUpkeep(path, lambda: busy["now"], quiet=0, pages=10**6)  # one long step: everything at once
    upkeep.when_idle()
    time.sleep(0.08)  # the step is under way (it takes a few hundred ms)
    busy["now"] = True  # the user pressed Enter
    cut = time.monotonic()
    upkeep.pause()
    while upkeep.running and time.monotonic() - cut < 5:
        time.sleep(0.002)
    assert time.monotonic() - cut < 0.1  # not the rest of the step
    assert upkeep.last is not None and upkeep.last.stopped
    assert shape_of(path) == shape and integrity_ok(path) and rankings(path) == before  # rolled back, whole
    busy["now"] = False
    finished = _next_report(upkeep)
    upkeep.close()
    assert not finished.stopped and segment_ids(path) == 1 and rankings(path) == before
