"""The budget guard inside one long turn: the current group alone over the budget."""

from __future__ import annotations

import json

import pytest

from slop.context.assemble import Snapshot, assemble
from slop.context.truncate import TruncationConfig
from slop.parser import parse
from slop.providers.google_wire import gemini_contents, gemini_native
from slop.providers.openai_wire import openai_messages, openai_native
from slop.records import Message, Prompt, Role, SessionInfo, Status, ToolCall
from tests.context.test_assembly import Ledger

SESSION = SessionInfo("s")
REQUEST = "fix the failing test in calc.py " * 20


def long_turn(wire: str, steps: int = 12, output_chars: int = 4000) -> list[Message]:
    """One group: the request, then `steps` model replies each calling one command."""
    ledger = Ledger()
    ledger.add(Role.USER, "an earlier question " * 50, "0", parsing_strategy=wire)
    ledger.add(Role.ASSISTANT, "an earlier answer " * 50, "0", parsing_strategy=wire)
    ledger.add(Role.USER, REQUEST, "1", parsing_strategy=wire)
    for i in range(steps):
        call = ToolCall(f"c{i}", "execute_bash", json.dumps({"command": f"cat part{i}.py"}))
        thought = f"step {i}: I will now read part {i} carefully because " + "reasons " * 60
        if wire == "openai":
            native = openai_native(thought, [call])
        else:
            native = gemini_native(
                [{"text": thought}, {"functionCall": {"id": call.id, "name": call.name, "args": {"command": "x"}}}]
            )
        ledger.add(Role.ASSISTANT, native, "1", status=Status.TOOL_CALL, parsing_strategy=wire)
        ledger.add(Role.TOOL, f"output {i} " + "x" * output_chars, "1", tool_call_id=call.id, parsing_strategy=wire)
    return ledger.rows


def build(rows: list[Message], wire: str, budget: int) -> Prompt:
    return assemble(Snapshot(SESSION, tuple(rows), wire=wire, budget=budget))


def unbounded(rows: list[Message], wire: str) -> Prompt:
    return build(rows, wire, 0)


def last_step(prompt: Prompt) -> list[str]:
    i = max(k for k, e in enumerate(prompt.history) if e.message.role == Role.ASSISTANT)
    return [e.content for e in prompt.history[i:]]


def check_pairs_and_wire(prompt: Prompt, wire: str) -> None:
    """Every result still has its call, and the provider can render the request."""
    called = {c.id for e in prompt.history for c in parse(e.message).tool_calls}
    assert all(e.message.tool_call_id in called for e in prompt.history if e.message.role == Role.TOOL)
    rendered = openai_messages(prompt) if wire == "openai" else gemini_contents(prompt)
    assert rendered


@pytest.mark.parametrize("wire", ["openai", "gemini"])
def test_older_results_go_to_the_short_tier_first(wire: str) -> None:
    rows = long_turn(wire)
    full = unbounded(rows, wire)
    budget = full.total_tokens - 1500
    prompt = build(rows, wire, budget)
    assert prompt.total_tokens <= budget < full.total_tokens
    assert next(e.message.group_id for e in prompt.history) == "1"  # the older group went first
    request = next(e for e in prompt.history if e.message.role == Role.USER)
    assert request.content.endswith("\n" + REQUEST)  # whole, after its marker
    assert last_step(prompt) == last_step(full)  # the last step is untouched
    cut = [e for e in prompt.history if e.message.role == Role.TOOL and e.content != last_step(full)[-1]]
    assert cut[0].truncated and len(cut[0].content) <= TruncationConfig().inactive_limit
    assert "query_db" in cut[0].content  # the recovery hint
    assert all(parse(e.message).text for e in prompt.history if e.message.status == Status.TOOL_CALL)
    assert any("current turn alone was over the budget" in n for n in prompt.notes)
    check_pairs_and_wire(prompt, wire)


@pytest.mark.parametrize("wire", ["openai", "gemini"])
def test_then_older_steps_lose_their_text_then_go_out_whole(wire: str) -> None:
    rows = long_turn(wire, steps=30)
    full = unbounded(rows, wire)
    n_calls = sum(1 for e in full.history if e.message.status == Status.TOOL_CALL)
    seen = set()
    for budget in range(full.total_tokens, 2000, -400):
        prompt = build(rows, wire, budget)
        assert prompt.total_tokens <= budget
        assert last_step(prompt) == last_step(full)
        assert [e for e in prompt.history if e.message.role == Role.USER][-1].content.endswith("\n" + REQUEST)
        check_pairs_and_wire(prompt, wire)
        calls = [e for e in prompt.history if e.message.status == Status.TOOL_CALL]
        older_results = [e for e in prompt.history if e.message.role == Role.TOOL][:-1]
        stripped = [e for e in calls[:-1] if not parse(e.message).text]
        assert parse(calls[-1].message).text  # the last step keeps its text
        if stripped:  # pass 2 only after pass 1 cut every older result
            assert all(e.truncated for e in older_results)
            seen.add("texts")
        if len(calls) < n_calls:  # pass 3 only after pass 2 stripped every older step
            assert len(stripped) == len(calls) - 1
            assert any("older step(s) left out" in n for n in prompt.notes)
            seen.add("dropped")
        elif older_results and older_results[0].truncated:
            seen.add("results")
    assert seen == {"results", "texts", "dropped"}


def test_a_turn_within_budget_is_not_touched() -> None:
    rows = long_turn("openai", steps=3)
    full = unbounded(rows, "openai")
    assert build(rows, "openai", full.total_tokens + 100).history == full.history
