"""The token arithmetic the strategies choose with is the arithmetic assembly charges:
a selection that fits the budget by `costs` also fits once assembled."""

from __future__ import annotations

import json

import pytest

from slop.context.assemble import Snapshot, assemble
from slop.context.costs import cost, marker_tokens, own_tokens
from slop.providers.openai_wire import openai_native
from slop.records import Message, Role, SessionInfo, Status, ToolCall
from slop.tokenestimate import estimate

SESSION = SessionInfo("s")


def _rows(output: str, *, finished: bool) -> list[Message]:
    """One tool turn whose result is `output`, then (when `finished`) a new request."""
    call = ToolCall("c1", "read_file", json.dumps({"path": "big.log"}))
    rows = [
        Message(1, "s", Role.USER, "read big.log", group_id="1"),
        Message(2, "s", Role.ASSISTANT, openai_native("", [call]), status=Status.TOOL_CALL, group_id="1"),
        Message(3, "s", Role.TOOL, output, group_id="1", tool_call_id="c1", content_tokens=estimate(output) + 7),
    ]
    if finished:
        rows.append(Message(4, "s", Role.USER, "and now?", group_id="2"))
    return rows


@pytest.mark.parametrize("finished", [True, False], ids=["finished group", "running group"])
@pytest.mark.parametrize("size", [10, 299, 301, 1_000, 4_999, 5_001, 80_000])
def test_a_tool_results_reckoned_cost_covers_what_assembly_charges(size: int, finished: bool) -> None:
    rows = _rows("line of output\n" * (size // 15) + "x" * (size % 15), finished=finished)
    result = rows[2]
    prompt = assemble(Snapshot(SESSION, tuple(rows)))
    charged = next(e.tokens for e in prompt.history if e.message.id == result.id)
    reckoned = cost(result, active=not finished)
    assert charged <= reckoned <= own_tokens(result)
    if len(result.content) <= (300 if finished else 5_000):
        assert charged == reckoned == own_tokens(result)  # whole: its stored count, as is


def test_the_markers_cost_what_assembly_adds_for_them() -> None:
    rows = [Message(1, "s", Role.USER, "hi", group_id="1"), Message(2, "s", Role.USER, "next", group_id="2")]
    prompt = assemble(Snapshot(SESSION, tuple(rows)))
    added = sum(e.tokens for e in prompt.history) - sum(own_tokens(m) for m in rows)
    assert added == marker_tokens() == marker_tokens(estimate)
    assert marker_tokens(len) > marker_tokens()  # a caller's exact counter is used when given
