"""query_db on the real ledger: bounded bytes, memory and time; FTS5 MATCH and json_each work."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from slop.errors import ToolError
from slop.records import NewMessage, Role
from slop.store import Store
from slop.store.readonly import MAX_VALUE_BYTES, describe_schema, run_readonly_query

# 60 rows of 4 MB each: fetching 200 rows at once, as query_db did, holds 240 MB
BIG_ROWS = (
    "WITH RECURSIVE r(i, s) AS (SELECT 1, hex(randomblob(2000000)) UNION ALL "
    "SELECT i + 1, s FROM r WHERE i < 60) SELECT i, s FROM r"
)
HUGE_VALUES = [
    "SELECT randomblob(1000000000)",
    "SELECT zeroblob(500000000)",
    "SELECT printf('%.*c', 900000000, 'x')",
    "SELECT length(group_concat(s)) FROM (" + BIG_ROWS.replace("i < 60", "i < 5") + ")",
    "SELECT length(printf('%.*c', 2000000000, 'x'))",
    "WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r",
]
FOREVER = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r"


@pytest.fixture
def ledger(tmp_path: Path) -> str:
    store = Store.open(str(tmp_path / "slop.db"))
    gid = store.messages.new_group_id()
    store.messages.append("default", gid, NewMessage(Role.USER, "the deploy uses blue green switching"))
    store.messages.append("default", gid, NewMessage(Role.ASSISTANT, '{"port": 8080, "hosts": ["a", "b"]}'))
    store.close()
    return str(tmp_path / "slop.db")


def query(ledger: str, sql: str, timeout: float = 10.0) -> str:
    return run_readonly_query(ledger, sql, max_rows=200, max_chars=20_000, timeout=timeout)


def test_fts5_match_on_the_history_index(ledger: str) -> None:
    # The index is contentless and keyed by session (migration 10): the history_search
    # view gives its message ids; texts come from `messages`.
    out = query(
        ledger,
        "SELECT m.id, m.content FROM history_search s JOIN messages m ON m.id = s.message_id "
        "WHERE s.query MATCH 'green' ORDER BY s.rank",
    )
    assert "blue green switching" in out and "(1 row)" in out
    assert "view history_search\n  message_id" in describe_schema(ledger)


def test_json_each_and_json_tree(ledger: str) -> None:
    sql = "SELECT j.value FROM messages m, json_each(m.content, '$.hosts') j WHERE json_valid(m.content)"
    assert query(ledger, sql).splitlines()[2:] == ["a", "b", "(2 rows)"]
    assert "8080" in query(ledger, "SELECT key, value FROM json_tree('{\"port\": 8080}')")


@pytest.mark.parametrize(
    "sql",
    [
        "WITH x AS (SELECT 1) UPDATE sqlite_master SET type = 'x'",
        "WITH j AS (SELECT * FROM json_each('[1]')) UPDATE messages SET content = 'x'",
        "WITH j AS (SELECT * FROM json_each('[1]')) DELETE FROM messages",
        "PRAGMA data_version = 5; DELETE FROM messages",
    ],
)
def test_the_virtual_table_allowance_lets_no_write_through(ledger: str, sql: str) -> None:
    with pytest.raises(ToolError):
        query(ledger, sql)
    assert "blue green" in query(ledger, "SELECT content FROM messages WHERE id = 1")


def test_many_big_rows_are_cut_to_the_byte_cap(ledger: str) -> None:
    out = query(ledger, BIG_ROWS)
    assert len(out) < 21_000 and "only its start is shown (60 rows in all)" in out


@pytest.mark.parametrize("sql", HUGE_VALUES)
def test_a_value_past_the_size_limit_is_refused_with_a_hint(ledger: str, sql: str) -> None:
    with pytest.raises(ToolError, match=f"exceed {MAX_VALUE_BYTES // 1_000_000} MB.*substr"):
        query(ledger, sql)


def test_the_deadline_stops_a_query_that_never_ends(ledger: str) -> None:
    with pytest.raises(ToolError, match=r"stopped the query after 0\.3 s"):
        query(ledger, FOREVER, timeout=0.3)


def test_memory_stays_bounded_whatever_the_query(ledger: str) -> None:
    """In a fresh process, so the peak resident size belongs to these queries alone."""
    script = textwrap.dedent(
        f"""
        import resource, sys
        from slop.store.readonly import run_readonly_query
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for sql in {[BIG_ROWS, *HUGE_VALUES]!r}:
            try:
                run_readonly_query({ledger!r}, sql, max_rows=200, max_chars=20_000, timeout=5)
            except Exception:
                pass
        print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 100, f"query_db grew the process by {done.stdout.strip()} MB"
