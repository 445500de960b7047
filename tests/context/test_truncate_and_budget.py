"""Three-tier truncation as the model reads it (a cut result keeps its head and tail and says
exactly how to page the rest back with query_db) and the prompt budget each model gets."""

from __future__ import annotations

import re
import sqlite3

import pytest

from slop.context.budget import DEFAULT_LIMIT, model_limits, output_limit, prompt_budget
from slop.context.truncate import PAGE, TruncationConfig, limit_for, sandwich

_HINT = re.compile(
    r"\[TRUNCATED: characters (\d+)-(\d+) of (\d+) not shown; page: "
    r'query_db\(sql="SELECT substr\(content, (\d+), (\d+)\) FROM messages WHERE id=(\d+)"\)'
)


def _numbered(n: int) -> str:
    """Text whose every position can be checked: line i holds its own number."""
    return "".join(f"{i:07d}\n" for i in range(n // 8 + 1))[:n]


def test_text_that_fits_is_returned_unchanged() -> None:
    assert sandwich("short output", 300, 7) == "short output"
    assert sandwich("x" * 300, 300, 7) == "x" * 300


@pytest.mark.parametrize("limit", [300, 1000, 5000])
@pytest.mark.parametrize("length", [5001, 12_345, 123_457])
def test_a_cut_result_is_exactly_the_limit_and_its_hint_names_what_is_missing(limit: int, length: int) -> None:
    text = _numbered(length)
    cut = sandwich(text, limit, 42)
    assert len(cut) == limit
    match = _HINT.search(cut)
    assert match is not None, cut
    start, end, total, page_from, page_len, row = map(int, match.groups())
    assert (total, row, page_len) == (length, 42, PAGE)
    assert page_from == start
    head, _, rest = cut.partition("\n\n... [TRUNCATED")
    tail = rest.split("] ...\n\n", 1)[1]
    # what is shown plus what the hint says is missing is the whole text, in order
    assert text.startswith(head) and text.endswith(tail)
    assert len(head) == start - 1 and length - len(tail) == end
    assert len(tail) > len(head)  # the end of a command's output carries most of its signal


def test_the_hint_pages_the_stored_row_from_the_first_hidden_character() -> None:
    text = _numbered(20_000)
    cut = sandwich(text, 1000, 1)
    match = _HINT.search(cut)
    assert match is not None
    start = int(match.group(1))
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE messages(id INTEGER PRIMARY KEY, content TEXT)")
    db.execute("INSERT INTO messages VALUES (1, ?)", (text,))
    sql = re.search(r'query_db\(sql="([^"]+)"\)', cut)
    assert sql is not None
    (page,) = db.execute(sql.group(1)).fetchone()
    assert page == text[start - 1 : start - 1 + PAGE]  # the model's next read continues where the head stopped


def test_a_tiny_limit_still_keeps_the_hint_whole() -> None:
    cut = sandwich("y" * 10_000, 50, 3)
    assert cut.startswith("y" * 47 + "...") and "[TRUNCATED: characters 48-10000 of 10000" in cut
    assert 'WHERE id=3"' in cut


def test_multibyte_text_is_cut_between_characters() -> None:
    text = "é" * 3000 + "終" * 3000
    cut = sandwich(text, 1000, 9)
    assert len(cut) == 1000 and cut.encode("utf-8").decode("utf-8") == cut
    assert cut.endswith("終")


@pytest.mark.parametrize(
    ("position", "active", "expected"),
    [(0, True, 5000), (4, True, 5000), (5, True, 1000), (40, True, 1000), (0, False, 300), (9, False, 300)],
)
def test_the_three_tiers(position: int, active: bool, expected: int) -> None:
    assert limit_for(position, active, TruncationConfig()) == expected


def test_the_tiers_follow_the_configuration() -> None:
    config = TruncationConfig(full_limit=800, full_count=2, degraded_limit=400, inactive_limit=100)
    assert [limit_for(i, True, config) for i in range(4)] == [800, 800, 400, 400]
    assert limit_for(0, False, config) == 100


@pytest.mark.parametrize(
    ("model", "window", "reserve"),
    [
        ("gpt-4o-mini", 128_000, 16_384),
        ("gpt-4.1-nano", 1_047_576, 32_768),
        ("gpt-4", 8_192, 2_048),
        ("openai/gpt-4o", 128_000, 16_384),  # a router's provider prefix is ignored
        ("GEMINI-2.5-PRO", 1_048_576, 65_536),
        ("gemini-1.5-pro-002", 2_097_152, 8_192),
        ("Qwen2.5-Coder-7B", 32_768, 8_192),
        ("my-local-model", *DEFAULT_LIMIT),
    ],
)
def test_model_limits_by_name(model: str, window: int, reserve: int) -> None:
    assert model_limits(model) == (window, reserve)
    assert output_limit(model) == reserve
    assert prompt_budget(model) == window - reserve


def test_a_session_budget_wins_over_everything() -> None:
    assert prompt_budget("gpt-4o", 4000, server_window=32_000) == 4000


def test_a_servers_reported_window_wins_over_the_models_name() -> None:
    # a local server says 8k whatever its model is called; at most a quarter goes to the answer
    assert prompt_budget("gpt-4o", server_window=8192) == 8192 - 2048
    assert prompt_budget("qwen2.5-coder", server_window=65_536) == 65_536 - 8192


def test_an_explicit_output_reserve() -> None:
    assert prompt_budget("gpt-4", output_reserve=1000) == 8192 - 1000
