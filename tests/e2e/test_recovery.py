"""Recovery really recovers: tool output stored whole, hints that page the stored row,
query_db pages that are never cut into a hint about themselves, memos readable by SQL,
disabled tools neither offered nor run. Real turns through the fake server."""

from __future__ import annotations

import re

from tests.e2e.conftest import AppFactory
from tests.e2e.wires import (
    both_wires,  # noqa: F401  (the `wire` fixture, both wires)
    contents_of,
    generation_requests,
    last_generation,
    tool_names,
)
from tests.fakellm import FakeLLM


def _tool_results(fake: FakeLLM) -> list[str]:
    return contents_of(last_generation(fake), "tool")


def test_long_output_is_stored_whole_and_the_hint_pages_it(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_tool_calls([("execute_bash", {"command": "seq 1 5000"})])
    fake_llm.enqueue_text("counted")
    app.engine.handle("count to 5000")
    # the summary: exit code and line count (exit line, header, all 5000), then the last lines (issue 12)
    assert "execute_bash completed exit 0 · 5002 lines\n" in rec.kinds("tool_done")[-1]
    row = next(m for m in app.store.messages.window("default", 0) if m.role == "tool")
    assert row.content.endswith("\n4999\n5000") and len(row.content.splitlines()) == 5002  # nothing cut
    # the next turn sees it truncated, with a query that pages the stored row from the first missing character
    fake_llm.enqueue_text("noted")
    app.engine.handle("what came out?")
    shown = _tool_results(fake_llm)[0]
    found = re.search(
        r"characters (\d+)-(\d+) of (\d+) not shown; page: query_db\(sql=\"(SELECT substr\(content, "
        r"\1, 4000\) FROM messages WHERE id=(\d+))\"\)",
        shown,
    )
    assert found is not None, shown
    start, end, length, sql, row_id = found.groups()
    assert int(length) == len(row.content) and int(row_id) == row.id and int(start) < int(end) < int(length)
    # the model follows the hint: the page is exactly the missing text, and it is not cut again
    fake_llm.enqueue_tool_calls([("query_db", {"sql": sql})])
    fake_llm.enqueue_text("read the page")
    app.engine.handle("read the rest")
    page = _tool_results(fake_llm)[-1]
    assert row.content[int(start) - 1 : int(start) - 1 + 4000] in page
    assert "TRUNCATED" not in page


def test_query_db_pages_are_never_truncated_in_the_running_turn(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _rec = make_app()
    app.store.sessions.set_scratchpad("default", "x" * 30000)
    calls = [("query_db", {"sql": f"SELECT substr(scratchpad, {1 + i * 3000}, 3000) FROM sessions"}) for i in range(8)]
    fake_llm.enqueue_tool_calls(calls)
    fake_llm.enqueue_text("all read")
    app.engine.handle("read the scratchpad in pages")
    results = _tool_results(fake_llm)
    assert len(results) == 8 and all("TRUNCATED" not in r and len(r) > 3000 for r in results)


def test_a_big_query_result_is_one_page_with_the_way_on(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _rec = make_app()
    sql = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150) "
        "SELECT 'row ' || i || ' ' || printf('%.80c', 'y') FROM n"
    )
    fake_llm.enqueue_tool_calls([("query_db", {"sql": sql})])
    fake_llm.enqueue_text("ok")
    app.engine.handle("list things")
    result = _tool_results(fake_llm)[-1]
    assert len(result) <= 4900 and "TRUNCATED" not in result
    assert "output cut at 4600 characters" in result and "LIMIT/OFFSET" in result


def test_memos_the_model_sees_are_readable_with_query_db(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _rec = make_app()
    app.ctx.memos.add("the staging server listens on 8443", ["staging", "port"])
    fake_llm.enqueue_tool_calls(
        [("query_db", {"sql": "SELECT content, semantic_tags FROM llm_memos"}), ("describe_db", {})]
    )
    fake_llm.enqueue_text("found it")
    app.engine.handle("which port does staging use?")
    memo_rows, schema = _tool_results(fake_llm)
    assert "the staging server listens on 8443" in memo_rows and "(1 row)" in memo_rows
    assert "view llm_memos" in schema


def test_a_disabled_tool_is_neither_offered_nor_run(make_app: AppFactory, fake_llm: FakeLLM, project) -> None:  # type: ignore[no-untyped-def]
    app, rec = make_app()
    assert app.engine.handle("/tool disable execute_bash").ok
    fake_llm.enqueue_tool_calls([("execute_bash", {"command": "touch ran.txt"})])
    fake_llm.enqueue_text("could not")
    app.engine.handle("make a file")
    first = generation_requests(fake_llm)[-2]
    assert "execute_bash" not in tool_names(first)
    assert not (project / "ran.txt").exists()
    assert "disabled in this project (/tool enable execute_bash)" in _tool_results(fake_llm)[-1]
    app.engine.handle("/tool list")
    assert any(line.startswith("execute_bash") and line.endswith("no") for line in rec.kinds("table")[-1].splitlines())
    assert app.engine.handle("/tool enable execute_bash").ok
    fake_llm.enqueue_text("ok")
    app.engine.handle("again")
    assert "execute_bash" in tool_names(last_generation(fake_llm))
    assert not app.engine.handle("/tool disable no_such_tool").ok
