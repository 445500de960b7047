"""Slash commands with absurd arguments: a usage error (exit 2 in batch), never a
traceback; and a hypothesis fuzz of every command through the real engine."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fakellm import FakeLLM
from tests.hostile.conftest import Batch, EngineUnderTest

HUGE = "99999999999999999999999999"

ABSURD = [
    f"/context window {HUGE}",
    f"/context window -{HUGE}",
    "/context window 1e999",
    f"/context log {HUGE}",
    "/context log -1",
    f"/message list {HUGE}",
    "/message list " + "9" * 5000,
    "/message list 0",
    f"/context budget {HUGE}",
    "/context budget 1_000_000_000_000",
    "/context set messages 1e400",
    "/context set ranked_k nan",
    "/throttle 1e999",
    "/throttle inf",
    "/throttle -0.5",
    f"/memo show {HUGE}",
    "/memo show ²",
]


@pytest.mark.parametrize("line", ABSURD)
def test_absurd_numbers_are_usage_errors_exit_2(line: str, batch_for: Callable[[str], Batch]) -> None:
    batch = batch_for("openai")
    run = batch(line)
    assert run.code == 2, run.events
    (error,) = run.texts("error")
    assert "usage:" in error and "\n" not in error and len(error) < 300
    assert batch.crash_logs() == []


def _commands(engine: EngineUnderTest) -> list[tuple[str, tuple[str, ...]]]:
    """Every command of the registry with its sub-commands, minus the ones that run
    what they are given (/exec) or leave (/exit)."""
    skip = {"/exec", "/exit"}
    return [(c.name, tuple(c.subcommands)) for c in engine.app.registry.commands() if c.name not in skip]


NUMBERS = st.one_of(
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.sampled_from(["1e999", "-1e999", "nan", "inf", "0x10", "1_000", "٣", "²", "00", "-0", "9" * 5000, "1.5"]),
)
WORDS = st.one_of(
    NUMBERS,
    st.text(min_size=0, max_size=30),
    st.sampled_from(["default", "list", "show", "x" * 300, "'", '"', "\\", "\x1b[2J", "\ud800", "a\nb", "--help"]),
)


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)
@given(data=st.data())
def test_fuzzed_commands_never_hit_a_bug(data: st.DataObject, engine: EngineUnderTest, fake_llm: FakeLLM) -> None:
    name, subs = data.draw(st.sampled_from(_commands(engine)))
    parts = [name]
    if subs and data.draw(st.booleans()):
        parts.append(data.draw(st.sampled_from(subs)))
    parts += data.draw(st.lists(WORDS, max_size=3))
    line = " ".join(parts)
    outcome, events = engine.run(line)
    assert not outcome.internal, f"{line!r} hit a bug: {outcome.error}"
    for event in events:
        if event["type"] == "error":
            assert "\n" not in event["text"], f"{line!r}: a multi-line error {event['text']!r}"
    if outcome.usage_error:  # exit 2 in batch: one error line saying what was wrong
        assert [e["type"] for e in events].count("error") == 1, (line, events)
    assert engine.crash_logs() == []
