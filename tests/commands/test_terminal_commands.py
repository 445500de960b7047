"""Names people bring from other agents, "did you mean" by meaning, /model without a provider."""

from __future__ import annotations

import pytest

from slop.errors import CommandError
from tests.commands.conftest import Harness


@pytest.mark.parametrize(
    ("typed", "suggested"),
    [("/instructions", "/init or /skill"), ("/reset", "/clear or /session"), ("/tokens", "/usage or /context")],
)
def test_did_you_mean_goes_by_meaning(harness: Harness, typed: str, suggested: str) -> None:
    with pytest.raises(CommandError, match=f"did you mean {suggested}\\?"):
        harness.run(typed)


def test_clear_is_session_clear(harness: Harness) -> None:
    harness.add_turn("hello", "hi")
    harness.io.confirms.append(True)
    harness.run("/clear")
    assert harness.store.messages.count("default") == 0
    assert "Clear session 'default'" in harness.io.questions[-1]


def test_cost_is_usage(harness: Harness) -> None:
    harness.run("/cost")
    by_cost = list(harness.io.calls)
    harness.run("/usage")
    assert by_cost and harness.io.calls[len(by_cost) :] == by_cost


def test_resume_lists_sessions_with_their_first_prompt(harness: Harness) -> None:
    harness.add_turn("fix the parser bug", "done", session="parser")
    harness.add_turn("write the docs", "done", session="docs")
    harness.run("/resume")
    _, columns, rows = harness.io.last_table()
    assert columns == ["#", "Session", "Last activity", "First prompt"]
    assert {(row[1], row[3]) for row in rows} == {("parser", "fix the parser bug"), ("docs", "write the docs")}
    harness.run("/resume parser")
    assert harness.ctx.session == "parser"


def test_model_without_a_provider_suggests_nothing_that_fails(harness: Harness) -> None:
    with pytest.raises(CommandError) as caught:
        harness.run("/model gpt-4o")
    message = str(caught.value)
    assert "OPENAI_API_KEY" in message and "/model openai:" not in message
    harness.run("/model")
    assert "/model openai:" not in harness.io.of("info")[-1]
