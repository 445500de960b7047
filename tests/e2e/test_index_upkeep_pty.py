"""slop merges a fragmented history index while it waits for the user, in a real terminal:
a question typed meanwhile is answered, the merge goes on after it, and every search
answers as before."""

from __future__ import annotations

import time
from pathlib import Path

import pexpect

from tests.e2e.test_pty import term  # noqa: F401 - the pty fixture
from tests.fakellm import FakeLLM
from tests.store.fragmented import integrity_ok, segment_ids, write_rows
from tests.store.test_index_upkeep import rankings


def test_the_index_is_merged_at_idle_around_a_turn(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    ledger = str(tmp_path / "ledger.db")
    write_rows(ledger, 4000, words=300, per_commit=10)  # ~1,200 pages in 15 pieces, past the floor
    pieces = segment_ids(ledger)
    before = rankings(ledger)
    fake_llm.enqueue_text("The answer, while the index waits.")
    t = term()
    t.prompt()
    t.enter("a question first")  # typed at once: the upkeep waits for the turn
    t.expect("while the index waits")
    t.prompt()
    deadline = time.monotonic() + 60
    while segment_ids(ledger) > 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert pieces > 5 and segment_ids(ledger) == 1
    t.enter("/exit")
    t.child.expect(pexpect.EOF, timeout=30)
    assert integrity_ok(ledger) and rankings(ledger) == before
    rows = t.rows("SELECT role, content FROM messages WHERE session_id = 'default' ORDER BY id")
    assert rows == [("user", "a question first"), ("assistant", "The answer, while the index waits.")]
