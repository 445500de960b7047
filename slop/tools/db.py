"""query_db and describe_db: read-only access to the slop ledger.

The store runs the SQL on a separate read-only connection (see
slop.store.readonly), so the model can inspect its own history, memos and
skills but cannot change or corrupt the ledger.
"""

from __future__ import annotations

from typing import Any

from slop.errors import ToolError
from slop.records import ToolSpec
from slop.tools.base import ErrorCode, Tool, ToolContext, ToolFailure, ToolOutput

MAX_ROWS = 200
# One page: below the 5,000-character limit of the active turn's newest results, so a
# query_db result is paged by the model (LIMIT/OFFSET, substr) and never truncated by
# assembly into a hint that points back at itself.
MAX_CHARS = 4_600  # a 4,000-character substr page, its header and the row note


def query_db(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    sql: str = args["sql"]
    if not sql.strip():
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "sql must not be empty")
    try:
        return ToolOutput(ctx.store.query_readonly(sql, max_rows=MAX_ROWS, max_chars=MAX_CHARS))
    except ToolFailure:
        raise
    except ToolError as exc:  # refused or failing SQL: the model should fix its query
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, str(exc)) from None


def describe_db(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    return ToolOutput(ctx.store.describe())


QUERY_DB = Tool(
    spec=ToolSpec(
        name="query_db",
        description=(
            "Run one read-only SQL SELECT on slop's SQLite ledger (tables such as messages, sessions, "
            "memos, skills; full-text search: history_search WHERE query MATCH '...', joined to messages "
            "on message_id; see describe_db). Writes are refused. Results come as a '|'-separated table, "
            f"at most {MAX_ROWS} rows and {MAX_CHARS} characters: use LIMIT/OFFSET or substr() to page."
        ),
        parameters={
            "type": "object",
            "properties": {"sql": {"type": "string", "description": "One SELECT statement (WITH ... SELECT allowed)."}},
            "required": ["sql"],
        },
    ),
    run=query_db,
)

DESCRIBE_DB = Tool(
    spec=ToolSpec(
        name="describe_db",
        description="Show the tables and columns of slop's SQLite ledger, to write query_db queries.",
        parameters={"type": "object", "properties": {}, "required": []},
    ),
    run=describe_db,
)
