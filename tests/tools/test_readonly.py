"""query_db's read-only connection: hostile SQL is refused and the file never changes."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from slop.errors import ToolError
from slop.store.readonly import describe_schema, run_readonly_query, single_statement
from slop.tools.base import ToolContext

from .conftest import make_ledger, run_tool

HOSTILE = [
    "DELETE FROM messages",
    "UPDATE messages SET content = 'x'",
    "DROP TABLE messages",
    "INSERT INTO messages(content) VALUES ('x')",
    "REPLACE INTO messages(id, content) VALUES (1, 'x')",
    "INSERT OR REPLACE INTO memos(id, content) VALUES (1, 'x')",
    "CREATE TABLE t(x)",
    "CREATE INDEX i ON messages(role)",
    "CREATE VIEW v AS SELECT 1",
    "CREATE TRIGGER tr AFTER INSERT ON messages BEGIN DELETE FROM messages; END",
    "ALTER TABLE messages ADD COLUMN y",
    "ALTER TABLE messages RENAME TO m2",
    "ATTACH DATABASE '/tmp/slop_attack.db' AS x",
    "ATTACH ':memory:' AS x",
    "DETACH DATABASE main",
    "PRAGMA writable_schema=1",
    "PRAGMA journal_mode=delete",
    "PRAGMA journal_mode=wal",
    "PRAGMA user_version=5",
    "PRAGMA query_only=0",
    "PRAGMA foreign_keys=ON",
    "VACUUM",
    "VACUUM INTO '/tmp/slop_vacuum_copy.db'",
    "SELECT 1; DELETE FROM messages",
    "SELECT 1;DELETE FROM messages;",
    "SELECT ';'; DROP TABLE messages",
    "SELECT 1 -- comment\n; DELETE FROM messages",
    "WITH x AS (SELECT 1) DELETE FROM messages",
    "WITH x AS (SELECT 1) UPDATE messages SET content = 'x'",
    "WITH x AS (SELECT 1) INSERT INTO messages(content) SELECT * FROM x",
    "SELECT load_extension('x')",
    "SELECT load_extension('/tmp/evil.so', 'init')",
    "SELECT writefile('/tmp/slop_pwned', 'x')",
    "SELECT readfile('/etc/passwd')",
    "REINDEX",
    "REINDEX messages",
    "ANALYZE",
    "BEGIN",
    "BEGIN IMMEDIATE",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT sp",
    "RELEASE sp",
    "CREATE TEMP TABLE t(x)",
    "CREATE TEMP VIEW tv AS SELECT 1",
    "CREATE TEMP TRIGGER tt AFTER INSERT ON messages BEGIN SELECT 1; END",
    "INSERT INTO temp.t VALUES (1)",
    "CREATE VIRTUAL TABLE f USING fts5(x)",
    "SELECT * FROM pragma_journal_mode('delete')",
    "SELECT * FROM pragma_user_version(5)",
    "DELETE FROM messages RETURNING *",
    "",
    "   ;  ",
]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("sql", HOSTILE)
def test_hostile_sql_refused_and_file_unchanged(ledger: Path, sql: str) -> None:
    before = digest(ledger)
    with pytest.raises(ToolError):
        run_readonly_query(str(ledger), sql, max_rows=10, max_chars=1000)
    assert digest(ledger) == before
    assert not Path("/tmp/slop_vacuum_copy.db").exists()
    assert not Path("/tmp/slop_attack.db").exists()


def test_refusal_message_is_clear(ledger: Path) -> None:
    with pytest.raises(ToolError, match="query_db is read-only: writes, ATTACH, PRAGMA changes"):
        run_readonly_query(str(ledger), "DELETE FROM messages", max_rows=10, max_chars=1000)


def test_select_table_format(ledger: Path) -> None:
    out = run_readonly_query(
        str(ledger), "SELECT id, role, NULL AS n FROM messages ORDER BY id", max_rows=10, max_chars=1000
    )
    assert out.splitlines() == [
        "id | role | n",
        "--- | --- | ---",
        "1 | user | NULL",
        "2 | assistant | NULL",
        "3 | user | NULL",
        "(3 rows)",
    ]


def test_row_cap_note(tmp_path: Path) -> None:
    db = make_ledger(tmp_path / "big.db", messages=250)
    out = run_readonly_query(str(db), "SELECT id FROM messages", max_rows=200, max_chars=20_000)
    assert out.count("\n") == 202  # header, separator, 200 rows, note
    assert "50 more rows not shown" in out and "LIMIT/OFFSET" in out


def test_char_cap_note(tmp_path: Path) -> None:
    db = make_ledger(tmp_path / "big.db", messages=250)
    out = run_readonly_query(str(db), "SELECT id, content FROM messages", max_rows=200, max_chars=300)
    assert len(out) < 600 and "output cut at 300 characters" in out


def test_full_content_of_one_row(ledger: Path) -> None:
    long_text = "first line | with pipe\n" + "x" * 15_000 + "\nlast line"
    with sqlite3.connect(ledger) as conn:
        conn.execute("UPDATE messages SET content = ? WHERE id = 2", (long_text,))
    conn.close()
    out = run_readonly_query(str(ledger), "SELECT content FROM messages WHERE id=2", max_rows=200, max_chars=20_000)
    assert long_text in out


def test_read_pragmas_and_recursive_cte_allowed(ledger: Path) -> None:
    assert "session_id" in run_readonly_query(str(ledger), "PRAGMA table_info(messages)", max_rows=50, max_chars=5000)
    cte = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5) SELECT sum(x) FROM c"
    assert "15" in run_readonly_query(str(ledger), cte, max_rows=5, max_chars=1000)
    assert "1" in run_readonly_query(str(ledger), "SELECT 1; -- trailing comment\n;", max_rows=5, max_chars=100)


def test_runaway_query_stopped(ledger: Path) -> None:
    sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    with pytest.raises(ToolError, match="stopped the query"):
        run_readonly_query(str(ledger), sql, max_rows=5, max_chars=100, timeout=0.3)


def test_sql_error_is_one_line(ledger: Path) -> None:
    with pytest.raises(ToolError, match="no such table: nope"):
        run_readonly_query(str(ledger), "SELECT * FROM nope", max_rows=5, max_chars=100)


def test_single_statement_respects_literals() -> None:
    assert single_statement("SELECT 'a;b', \"c;d\", [e;f] ;") == "SELECT 'a;b', \"c;d\", [e;f] "
    assert single_statement("SELECT 1 /* ; */") == "SELECT 1 /* ; */"
    with pytest.raises(ToolError):
        single_statement("SELECT 'it''s'; SELECT 2")


def test_describe_schema(ledger: Path) -> None:
    text = describe_schema(str(ledger))
    assert "table messages (3 rows)" in text
    assert "  id INTEGER PRIMARY KEY" in text and "  content TEXT" in text
    assert "table memos" in text and "table skills" in text


def test_query_db_tool(ctx: ToolContext, ledger: Path) -> None:
    before = digest(ledger)
    ok = run_tool(ctx, "query_db", sql="SELECT content FROM messages WHERE id = 1")
    assert ok.status == "completed" and "message 1" in ok.content
    refused = run_tool(ctx, "query_db", sql="DROP TABLE messages")
    assert refused.status == "error"
    assert refused.content.startswith("Error: INVALID_ARGUMENT: query_db is read-only")
    assert "table messages" in run_tool(ctx, "describe_db").content
    assert digest(ledger) == before


def test_wal_database_with_open_writer(tmp_path: Path) -> None:
    db = make_ledger(tmp_path / "wal.db")
    writer = sqlite3.connect(db, isolation_level=None)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("INSERT INTO messages(session_id, role, content) VALUES ('s1', 'user', 'fresh row')")
        out = run_readonly_query(
            str(db), "SELECT content FROM messages WHERE content = 'fresh row'", max_rows=5, max_chars=500
        )
        assert "fresh row" in out
        with pytest.raises(ToolError):
            run_readonly_query(str(db), "DELETE FROM messages", max_rows=5, max_chars=500)
        writer.execute("INSERT INTO messages(content) VALUES ('writer still works')")
    finally:
        writer.close()


def test_a_value_too_long_for_one_page_says_so() -> None:
    from slop.store.readonly import format_table

    text = format_table(["content"], [("z" * 9000,)], 0, True, max_rows=200, max_chars=4600)
    assert len(text) < 4900
    assert "the first row is 9000 characters and only its start is shown" in text
    assert "substr(content, 1, 4000)" in text


@pytest.mark.parametrize(
    "sql",
    ["SELECT 1;;", "SELECT 1;\n-- the model's closing remark\n;", "SELECT 1; /* done */ ;", "SELECT ';' AS semi;  ;"],
)
def test_statement_check_accepts_what_sqlite3_alone_refuses(ledger: Path, sql: str) -> None:
    """Why slop keeps its own statement check (store/sqlstatement.py) although sqlite3
    already refuses several statements: models end SQL with stray `;` and comments, which
    sqlite3 rejects as "one statement at a time"; the check cuts them off and runs the
    one real statement, while a second real statement is still refused (HOSTILE above)."""
    with sqlite3.connect(ledger) as conn, pytest.raises(sqlite3.ProgrammingError, match="one statement"):
        conn.execute(sql)
    conn.close()
    out = run_readonly_query(str(ledger), sql, max_rows=5, max_chars=200)
    assert "1" in out or "semi" in out
