"""What a compaction asks the model for and what it stores (the length the budget allows, the
continuation header once, a readable transcript of calls and results), the extractive stand-in
the benchmarks use, and the per-session settings every mode reads through `Option` values."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from slop.context.options import ASSEMBLY_OPTIONS, TRUNCATE_ONCE, WINDOW_STEP, Option, all_options, option, parse_option
from slop.context.strategies.catalog import builtin_strategies
from slop.context.summarize import (
    CONTINUATION_HEADER,
    EXTRACTIVE_LABEL,
    compact_instructions,
    extractive_summary,
    summary_words,
    transcript,
    with_header,
)
from slop.records import Message, Role, SessionInfo, Status


@pytest.mark.parametrize(("budget", "words"), [(0, 800), (2_000, 148), (1_000, 100), (4_000, 296), (200_000, 800)])
def test_the_summary_gets_a_tenth_of_the_budget_within_100_to_800_words(budget: int, words: int) -> None:
    assert summary_words(budget) == words
    assert f"at most {words} words" in compact_instructions(budget)


def test_the_instructions_start_the_summary_with_the_continuation_header() -> None:
    text = compact_instructions(8000)
    assert f"Start with exactly this line:\n{CONTINUATION_HEADER}" in text
    assert "## Analysis" in text and "## Summary" in text and "{" not in text  # every placeholder filled


def test_the_header_is_stored_exactly_once() -> None:
    once = with_header("  ## Analysis\n1. x  ")
    assert once == f"{CONTINUATION_HEADER}\n\n## Analysis\n1. x"
    assert with_header(once) == once
    assert with_header(f"{CONTINUATION_HEADER}\n\nbody").count(CONTINUATION_HEADER) == 1


def _turn() -> list[Message]:
    call = {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps({"path": "src/app.py"})},
            }
        ],
    }
    return [
        Message(1, "s", Role.USER, "Why does app.py crash?", group_id="g1"),
        Message(2, "s", Role.ASSISTANT, json.dumps(call), Status.TOOL_CALL, "g1", parsing_strategy="openai"),
        Message(3, "s", Role.TOOL, "line\n" * 2000, Status.ERROR, "g1", tool_call_id="c1"),
        Message(4, "s", Role.ASSISTANT, "It divides by zero on line 3.", group_id="g1"),
    ]


def test_the_transcript_shows_calls_by_name_and_shortens_results() -> None:
    text = transcript(_turn(), result_chars=300)
    assert "[user #1 GID g1]\nWhy does app.py crash?" in text
    assert '[assistant #2 GID g1]\nLet me look.\n-> read_file({"path": "src/app.py"})' in text
    result = text.split("[tool #3 GID g1] result (error):\n", 1)[1].split("\n\n[assistant #4", 1)[0]
    assert " [...] " in result and len(result) <= 300 + len(" [...] ")
    assert text.endswith("[assistant #4 GID g1]\nIt divides by zero on line 3.")


def test_a_long_transcript_keeps_its_beginning_and_end() -> None:
    rows = [Message(i, "s", Role.USER, f"request {i} " + "x" * 500, group_id=str(i)) for i in range(1, 200)]
    text = transcript(rows, limit=4000)
    assert len(text) <= 4000 + 40 and "[... transcript shortened ...]" in text
    assert text.startswith("[user #1 GID 1]") and text.rstrip("x").endswith("request 199 ")


def test_unreadable_call_arguments_are_shown_as_sent() -> None:
    call = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "grep_tool", "arguments": "{not json"}}],
    }
    row = Message(1, "s", Role.ASSISTANT, json.dumps(call), Status.TOOL_CALL, "g", parsing_strategy="openai")
    assert "-> grep_tool({not json)" in transcript([row])


def test_the_extractive_stand_in_is_labelled_keeps_the_request_and_the_stated_length() -> None:
    text = transcript(_turn() * 5)
    summary = extractive_summary("Write at most 60 words.", text)
    assert summary.startswith(EXTRACTIVE_LABEL)
    assert "1. Initial Request: Why does app.py crash?" in summary
    assert "app.py" in summary.split("3. Artifacts: ", 1)[1]
    body = summary.split("Key sentences, in order:", 1)[1].split("3. Artifacts", 1)[0]
    assert len(body.split()) <= 60
    assert extractive_summary("no length stated", text) == extractive_summary("x", text)  # deterministic


def _session(**options: object) -> SessionInfo:
    return SessionInfo(name="s", options=options)


def test_a_setting_reads_the_sessions_value_or_its_default() -> None:
    assert option(_session(), WINDOW_STEP) == 1
    assert option(_session(window_step=8), WINDOW_STEP) == 8
    assert isinstance(option(_session(window_step=8.0), WINDOW_STEP), int)


@pytest.mark.parametrize("stored", ["lots", None, [1], 10**9, -1])
def test_a_hand_edited_unreadable_or_out_of_range_value_falls_back_to_the_default(stored: object) -> None:
    assert option(_session(window_step=stored), WINDOW_STEP) == WINDOW_STEP.default
    assert option(_session(truncate_once=stored), TRUNCATE_ONCE) == TRUNCATE_ONCE.default


def test_every_mode_declares_its_own_settings_and_none_is_declared_twice() -> None:
    strategies = builtin_strategies()
    table = all_options(s.options for s in strategies.values())
    declared = [o.name for s in strategies.values() for o in s.options] + [o.name for o in ASSEMBLY_OPTIONS]
    assert sorted(declared) == sorted(table) and len(declared) == len(set(declared))
    for strategy in strategies.values():
        assert all(o.mode == strategy.name for o in strategy.options), strategy.name
        assert all(o.low <= o.default <= o.high for o in strategy.options), strategy.name
    assert {"messages", "ranked_k", "compact_threshold", "relevance_trigger", "truncate_once"} <= set(table)


def test_set_values_are_validated_with_a_message_the_user_can_act_on() -> None:
    table = all_options([(Option("n", 3, int, 1, 10, "demo", "a count"),), ASSEMBLY_OPTIONS])
    assert parse_option(table, "n", "4") == 4 and isinstance(parse_option(table, "n", "4.0"), int)
    assert parse_option(table, "window_step", "2") == 2
    for name, text, message in (
        ("n", "4.5", "n must be a number (whole), got '4.5'"),
        ("n", "eleven", "n must be a number (whole), got 'eleven'"),
        ("n", "11", "n must be between 1 and 10, got 11"),
        ("nope", "1", "unknown setting 'nope'; known: n, truncate_once, window_step"),
    ):
        with pytest.raises(ValueError) as caught:
            parse_option(table, name, text)
        assert str(caught.value) == message


def test_a_later_mode_does_not_replace_a_shared_setting() -> None:
    first = Option("shared", 1, int, 0, 9, "one", "first")
    second = replace(first, default=5, mode="two")
    assert all_options([(first,), (second,)])["shared"] is first
