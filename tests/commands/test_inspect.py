"""/schema, /tool and /throttle."""

from __future__ import annotations

import json

import pytest

from slop.errors import CommandError
from tests.commands.conftest import Harness


def test_schema_describes_the_ledger(harness: Harness) -> None:
    harness.run("/schema")
    text = harness.io.of("view")[-1]
    assert "table messages" in text and "table sessions" in text and "group_id" in text


def test_tool_list(harness: Harness) -> None:
    harness.store.catalog.count_tool_call("read_file")
    harness.run("/tool list")
    _, columns, rows = harness.io.last_table()
    assert columns == ["Tool", "What it does", "Approval", "Calls", "Enabled"]
    by_name = {r[0]: r for r in rows}
    assert by_name["read_file"][3] == "1"
    assert by_name["execute_bash"][2] == "asks" and by_name["read_file"][2] == "-"


def test_tool_show(harness: Harness) -> None:
    harness.run("/tool show read_file")
    page = harness.io.of("markdown")[-1]
    assert page.startswith("### Tool read_file")
    schema = page.split("```json\n", 1)[1].split("\n```", 1)[0]
    assert "path" in json.loads(schema)["properties"]


def test_tool_show_unknown_suggests(harness: Harness) -> None:
    with pytest.raises(CommandError, match="did you mean read_file"):
        harness.run("/tool show read_fil")


def test_throttle_show_set_and_persist(harness: Harness) -> None:
    harness.run("/throttle")
    assert "no pause" in harness.io.of("info")[-1]
    harness.run("/throttle 2")
    assert harness.store.sessions.get("default").throttle == 2.0
    harness.run("/throttle 0.5")
    harness.run("/throttle")
    assert "0.5 s pause" in harness.io.of("info")[-1]
    harness.run("/session switch other")
    assert harness.store.sessions.get("other").throttle == 0.0
    harness.run("/throttle 0")
    assert "throttle off" in harness.io.of("success")[-1]
    assert harness.store.sessions.get("default").throttle == 0.5


@pytest.mark.parametrize("arg", ["-1", "abc", "inf", "99999"])
def test_throttle_rejects_bad_values(shared_harness: Harness, arg: str) -> None:
    with pytest.raises(CommandError) as caught:
        shared_harness.run(f"/throttle {arg}")
    assert caught.value.usage.startswith("/throttle")
    assert shared_harness.store.sessions.get("default").throttle == 0.0
