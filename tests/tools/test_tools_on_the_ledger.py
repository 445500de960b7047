"""The model's memory tools on the real ledger and the real user-level memo store, as a
turn runs them (`SessionToolStore`, the store a turn hands its tools): what they write
is what /undo, /memo, query_db and the next session see."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from slop.records import NewMessage, Role, ToolCall, ToolResult
from slop.store import Store, open_memo_store
from slop.store.memos import Memos
from slop.toolrunner import SessionToolStore
from slop.tools.base import ToolContext
from slop.tools.dispatch import dispatch
from slop.tools.registry import ToolRegistry


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Store]:
    store = Store.open(str(tmp_path / "project" / ".slop" / "slop.db"))
    yield store
    store.close()


@pytest.fixture
def memos(tmp_path: Path) -> Memos:
    return open_memo_store(str(tmp_path / "home" / "memos.db"))


def in_turn(ledger: Store, memos: Memos, prompt: str = "do it") -> ToolContext:
    """A turn has started: its user row is stored and its tools get the turn's store."""
    gid = ledger.messages.new_group_id()
    ledger.messages.append("s", gid, NewMessage(Role.USER, prompt))
    store = SessionToolStore(ledger, memos, gid, project="/work/app")
    return ToolContext(root=Path(ledger.path).parents[1], session_id="s", store=store)


def call(ctx: ToolContext, tool: str, /, **args: object) -> ToolResult:
    (result,) = dispatch([ToolCall("c1", tool, json.dumps(args))], ToolRegistry(), ctx, None)
    return result


# ---- scratchpad ----------------------------------------------------------------------


def test_the_scratchpad_the_model_writes_is_undone_with_its_turn(ledger: Store, memos: Memos) -> None:
    ledger.sessions.set_scratchpad("s", "- [ ] plan")
    ctx = in_turn(ledger, memos)
    assert call(ctx, "manage_scratchpad", action="append", content="- [x] step 1").content == (
        "Scratchpad appended to (23 characters now)."
    )
    assert call(ctx, "manage_scratchpad", action="read").content == "- [ ] plan\n- [x] step 1"
    ledger.undo("s")
    assert ledger.sessions.scratchpad("s") == "- [ ] plan"


def test_update_replaces_the_scratchpad_and_reading_an_empty_one_says_so(ledger: Store, memos: Memos) -> None:
    ctx = in_turn(ledger, memos)
    assert call(ctx, "manage_scratchpad", action="read").content == "The scratchpad is empty."
    assert call(ctx, "manage_scratchpad", action="update", content="only this").content == (
        "Scratchpad updated (9 characters now)."
    )
    assert ledger.sessions.scratchpad("s") == "only this"
    refused = call(ctx, "manage_scratchpad", action="update")
    assert refused.status == "error"
    assert refused.content == "Error: INVALID_ARGUMENT: content is required for action 'update'"
    assert ledger.sessions.scratchpad("s") == "only this"


# ---- memos ---------------------------------------------------------------------------


def test_a_memo_the_model_saves_is_found_by_its_tags_in_the_next_session(ledger: Store, memos: Memos) -> None:
    ctx = in_turn(ledger, memos)
    saved = call(ctx, "save_memo", content="Run tests with `uv run pytest`.", tags=["Testing", " build tools ", ""])
    assert saved.content == "Memo 1 saved with tags: testing, build-tools."
    [memo] = memos.all()
    assert (memo.source, memo.project, memo.tags) == ("model", "/work/app", ("testing", "build-tools"))
    later = SessionToolStore(ledger, memos, None)  # another session, another day
    found = call(ToolContext(root=ctx.root, session_id="t", store=later), "retrieve_memos", tags=["build"])
    assert found.content.startswith("1 memo found:\n\n## Memo 1 (tags: testing, build-tools; ")
    assert found.content.endswith("\nRun tests with `uv run pytest`.")


def test_retrieving_with_tags_nobody_used_says_which(ledger: Store, memos: Memos) -> None:
    memos.add("unrelated", ["style"])
    result = call(in_turn(ledger, memos), "retrieve_memos", tags=["deploy", "kubernetes"])
    assert result.content == "No memos found for tags: deploy, kubernetes."


def test_memos_are_refused_in_read_only_mode_and_nothing_is_saved(ledger: Store, memos: Memos) -> None:
    ctx = in_turn(ledger, memos)
    ctx.read_only = True
    result = call(ctx, "save_memo", content="remember this", tags=["x"])
    assert result.status == "error" and "save_memo refused: slop runs with --read-only" in result.content
    assert memos.all() == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({"content": "   ", "tags": ["x"]}, "content must not be empty"),
        ({"content": "note", "tags": ["", "  "]}, "tags must contain at least one non-empty tag"),
    ],
)
def test_an_empty_memo_or_tag_list_is_refused(ledger: Store, memos: Memos, args: dict[str, object], says: str) -> None:
    result = call(in_turn(ledger, memos), "save_memo", **args)
    assert result.content == f"Error: INVALID_ARGUMENT: {says}"
    assert memos.all() == []


def test_query_db_reads_the_user_s_memos_not_the_ledger_s_old_table(ledger: Store, memos: Memos) -> None:
    memos.add("deploy with make release", ["deploy"])
    ledger.db.execute("INSERT INTO llm_memos(content, semantic_tags) VALUES ('a std::slop memo', '[]')")
    result = call(in_turn(ledger, memos), "query_db", sql="SELECT content, source FROM llm_memos")
    assert result.content.splitlines()[:3] == ["content | source", "--- | ---", "deploy with make release | user"]


# ---- query_db and describe_db on the ledger --------------------------------------------


def test_the_model_reads_a_whole_message_of_its_own_ledger(ledger: Store, memos: Memos) -> None:
    ctx = in_turn(ledger, memos, "look at the heron module")
    mid = ledger.messages.window("s", 0)[0].id
    result = call(ctx, "query_db", sql=f"SELECT role, content FROM messages WHERE id={mid}")
    assert result.content == "role | content\n--- | ---\nuser | look at the heron module\n(1 row)"


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM messages",
        "UPDATE sessions SET scratchpad='x'",
        "SELECT 1; DROP TABLE messages",
        "PRAGMA user_version=1",
        "ATTACH DATABASE '/tmp/x.db' AS x",
    ],
)
def test_query_db_cannot_change_the_ledger(ledger: Store, memos: Memos, sql: str) -> None:
    ctx = in_turn(ledger, memos)
    before = ledger.messages.count("s"), ledger.db.scalar("PRAGMA user_version")
    result = call(ctx, "query_db", sql=sql)
    assert result.status == "error" and "query_db is read-only" in result.content
    assert (ledger.messages.count("s"), ledger.db.scalar("PRAGMA user_version")) == before


def test_describe_db_lists_the_ledger_s_tables_with_their_rows_and_hides_index_internals(
    ledger: Store, memos: Memos
) -> None:
    ctx = in_turn(ledger, memos)
    text = call(ctx, "describe_db").content
    blocks = {block.splitlines()[0]: block for block in text.split("\n\n")}
    assert "table messages (1 row)" in blocks
    assert "  content TEXT NOT NULL" in blocks["table messages (1 row)"].splitlines()
    assert "  id INTEGER PRIMARY KEY" in blocks["table messages (1 row)"].splitlines()
    assert any(title.startswith("view llm_memos") for title in blocks)  # the user-level memos
    assert not any("_data" in title or "_idx" in title for title in blocks)  # FTS shadow tables


def test_a_query_that_reads_too_much_is_cut_with_how_to_page(ledger: Store, memos: Memos) -> None:
    ctx = in_turn(ledger, memos)
    ledger.messages.append_many("s", None, [NewMessage(Role.USER, f"note {i}") for i in range(250)])
    result = call(ctx, "query_db", sql="SELECT id FROM messages ORDER BY id")
    lines = result.content.splitlines()
    assert len(lines) == 2 + 200 + 1  # header, separator, the rows shown, the note
    assert lines[-1] == "[51 more rows not shown (200 shown); add LIMIT/OFFSET to page, e.g. LIMIT 200 OFFSET 200]"


# ---- skills ---------------------------------------------------------------------------


def test_use_skill_activates_for_the_session_and_counts_it(ledger: Store, memos: Memos) -> None:
    ctx = in_turn(ledger, memos)
    result = call(ctx, "use_skill", name="planner")
    assert result.content.startswith("Skill 'planner' activated. Follow these instructions from now on:\n\n")
    assert "checklist in the scratchpad" in result.content
    assert ledger.sessions.get("s").active_skills == ("planner",)
    call(ctx, "use_skill", name="planner")  # already active: not counted twice
    skill = ledger.catalog.skill("planner")
    assert skill is not None and skill.activation_count == 1
    assert call(ctx, "use_skill", name="planner", action="deactivate").content == "Skill 'planner' deactivated."
    assert ledger.sessions.get("s").active_skills == ()


def test_an_unknown_skill_lists_the_ones_there_are(ledger: Store, memos: Memos) -> None:
    result = call(in_turn(ledger, memos), "use_skill", name="astrologer")
    assert result.status == "error"
    assert result.content.startswith("Error: NOT_FOUND: no skill named 'astrologer'. Available skills: ")
    for name in ("planner", "code_reviewer", "dba", "python_expert"):
        assert name in result.content
    assert ledger.sessions.get("s").active_skills == ()


# ---- disabled tools -------------------------------------------------------------------


def test_a_disabled_tool_runs_nothing_and_says_how_to_enable_it(ledger: Store, memos: Memos) -> None:
    ctx = in_turn(ledger, memos)
    registry = ToolRegistry().with_disabled({"manage_scratchpad"})
    call_ = ToolCall("c1", "manage_scratchpad", json.dumps({"action": "update", "content": "x"}))
    (result,) = dispatch([call_], registry, ctx, None)
    assert result.content == (
        "Error: FAILED_PRECONDITION: the tool 'manage_scratchpad' is disabled in this project "
        "(/tool enable manage_scratchpad)"
    )
    assert ledger.sessions.scratchpad("s") == ""
    assert [t.spec.name for t in registry][: len(ToolRegistry().names())] == ToolRegistry().names()  # same order
