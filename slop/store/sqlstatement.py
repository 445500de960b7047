"""The statement check in front of query_db: exactly one statement, and one that starts
like a read. Quoted strings, identifiers and comments are skipped, so a `;` inside them
is never taken for the end of a statement. (The authorizer in `readonly.py` is what
enforces read-only; this check gives the model a clear message before SQLite runs.)

Why not leave it to sqlite3, which refuses a second statement too: it also refuses a
stray `;` or a comment-then-`;` after the first, which models often write;
tests/tools/test_readonly.py shows the cases."""

from __future__ import annotations

from collections.abc import Iterator

from slop.errors import ToolError

READ_ONLY_MESSAGE = "query_db is read-only: writes, ATTACH, PRAGMA changes and multiple statements are refused"
_READ_KEYWORDS = frozenset({"SELECT", "WITH", "VALUES", "PRAGMA", "EXPLAIN"})


def _skip_quoted(sql: str, i: int, close: str) -> int:
    """Index after the quoted token starting at i (doubled closers are escapes)."""
    j = i + 1
    while j < len(sql):
        if sql[j] == close:
            if close != "]" and j + 1 < len(sql) and sql[j + 1] == close:
                j += 2
                continue
            return j + 1
        j += 1
    return len(sql)


def _skip_comment(sql: str, i: int) -> int | None:
    """Index after a comment starting at i, or None when there is none."""
    if sql.startswith("--", i):
        end = sql.find("\n", i)
        return len(sql) if end == -1 else end + 1
    if sql.startswith("/*", i):
        end = sql.find("*/", i + 2)
        return len(sql) if end == -1 else end + 2
    return None


def sql_tokens(sql: str) -> Iterator[tuple[int, str]]:
    """Yield (index, token): a quoted string or identifier is one token (so a `;`
    inside it is never seen), a comment is a single space, anything else is one character."""
    quotes = {"'": "'", '"': '"', "`": "`", "[": "]"}
    i = 0
    while i < len(sql):
        after_comment = _skip_comment(sql, i)
        if after_comment is not None:
            yield i, " "
            i = after_comment
            continue
        end = _skip_quoted(sql, i, quotes[sql[i]]) if sql[i] in quotes else i + 1
        yield i, sql[i:end]
        i = end


def single_statement(sql: str) -> str:
    """The one statement in `sql`; raises ToolError when there are several, none, or
    it does not start like a read. After the first top-level `;` only whitespace,
    `;` and comments may follow."""
    first_end = None
    for index, token in sql_tokens(sql):
        if first_end is None:
            if token == ";":
                first_end = index
        elif not token.isspace() and token != ";":
            raise ToolError(f"{READ_ONLY_MESSAGE} (found more than one statement; send them one at a time)")
    statement = sql if first_end is None else sql[:first_end]
    tokens = [token for _, token in sql_tokens(statement)]
    if all(token.isspace() for token in tokens):
        raise ToolError("query_db got an empty query: send one SELECT statement")
    keyword = _first_keyword(tokens)
    if keyword not in _READ_KEYWORDS:
        shown = keyword or next(t for t in tokens if not t.isspace())[:20]
        raise ToolError(f"{READ_ONLY_MESSAGE} (not a SELECT: {shown})")
    return statement


def _first_keyword(tokens: list[str]) -> str:
    """The first word, upper-cased, after leading whitespace and opening parentheses."""
    word = ""
    for token in tokens:
        if not word and (token.isspace() or token == "("):
            continue
        if len(token) == 1 and (token.isalpha() or (word and (token.isalnum() or token == "_"))):
            word += token
        else:
            break
    return word.upper()
