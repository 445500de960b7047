"""What the strategies share: a cut never separates a tool call from its results, summaries
sit where the history they replace began, the current request is the latest user message;
and the words a request is searched by (no stop words, no "continue")."""

from __future__ import annotations

import json

import pytest

from slop.context.selecting import current_group, group_map, pair_bundles, pair_safe_cut, place_summaries
from slop.context.textsearch import fts_query, informative_terms, jaccard, keywords
from slop.records import Message, Role, Status


def _call(mid: int, gid: str, *ids: str) -> Message:
    native = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "read_file", "arguments": "{}"}} for i in ids
        ],
    }
    return Message(mid, "s", Role.ASSISTANT, json.dumps(native), Status.TOOL_CALL, gid)


def _rows() -> list[Message]:
    return [
        Message(1, "s", Role.USER, "first", group_id="a"),
        _call(2, "a", "c1", "c2"),
        Message(3, "s", Role.TOOL, "one", group_id="a", tool_call_id="c1"),
        Message(4, "s", Role.TOOL, "two", group_id="a", tool_call_id="c2"),
        Message(5, "s", Role.ASSISTANT, "done", group_id="a"),
        Message(6, "s", Role.USER, "second", group_id="b"),
        _call(7, "b", "c3"),
        Message(8, "s", Role.TOOL, "three", group_id="b", tool_call_id="c3"),
    ]


@pytest.mark.parametrize(("cut", "expected"), [(0, 0), (1, 1), (2, 1), (3, 1), (4, 4), (5, 5), (7, 6), (8, 8), (99, 8)])
def test_a_cut_moves_back_to_the_call_of_the_results_it_would_start_with(cut: int, expected: int) -> None:
    rows = _rows()
    assert pair_safe_cut(rows, cut) == expected
    kept = rows[expected:]
    kept_ids = {m.tool_call_id for m in kept if m.role == Role.TOOL}
    calls_kept = {c["id"] for m in kept if m.status == Status.TOOL_CALL for c in json.loads(m.content)["tool_calls"]}
    assert kept_ids <= calls_kept  # no result without its call


def test_pair_bundles_are_the_units_that_can_be_dropped_alone() -> None:
    bundles = pair_bundles(_rows())
    assert [[m.id for m in b] for b in bundles] == [[1], [2, 3, 4], [5], [6], [7, 8]]


def test_a_stray_result_joins_the_bundle_before_it_only_after_a_call_or_result() -> None:
    rows = [
        Message(1, "s", Role.USER, "q", group_id="a"),
        Message(2, "s", Role.TOOL, "orphan", group_id="a", tool_call_id="x"),
    ]
    assert [[m.id for m in b] for b in pair_bundles(rows)] == [[1], [2]]


def test_groups_keep_their_first_appearance_order() -> None:
    extra = [Message(9, "s", Role.SYSTEM, "note", group_id=None), Message(10, "s", Role.USER, "x", group_id="a")]
    rows = [*_rows(), *extra]
    groups = group_map(rows)
    assert list(groups) == ["a", "b", None]
    assert [m.id for m in groups["a"]] == [1, 2, 3, 4, 5, 10]


def test_a_summary_sits_right_before_the_message_it_was_anchored_to() -> None:
    rows = [*_rows(), Message(9, "s", Role.SYSTEM, "summary of a", group_id="sum")]
    placed = place_summaries(rows, {9: 6})
    assert [m.id for m in placed] == [1, 2, 3, 4, 5, 9, 6, 7, 8]
    # a summary without an anchor (it replaced everything) stays where its id puts it
    assert [m.id for m in place_summaries(rows, {9: None})] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert place_summaries(rows, {}) is rows


def test_the_current_group_is_the_latest_user_messages_even_after_a_summary() -> None:
    rows = [*_rows(), Message(9, "s", Role.SYSTEM, "summary", group_id="sum")]
    assert current_group(rows) == "b"
    assert current_group([Message(1, "s", Role.SYSTEM, "only", group_id="z")]) == "z"
    assert current_group([]) is None


@pytest.mark.parametrize(
    ("request_text", "terms"),
    [
        ("continue", []),
        ("ok go on, please", []),
        ("yes do it", []),
        ("Fix the parser_cache bug in parse_row()", ["fix", "parser", "cache", "bug", "parse", "row"]),
        ("What port did we pick for the dev server?", ["port", "pick", "dev", "server"]),
        ("port 8443 PORT", ["port", "8443"]),
        ("Ünïcödé straße naïve", ["ünïcödé", "straße", "naïve"]),
    ],
)
def test_only_informative_words_are_searched(request_text: str, terms: list[str]) -> None:
    assert informative_terms(request_text) == terms


def test_a_long_request_keeps_its_longest_words_in_their_order() -> None:
    text = " ".join(f"w{'x' * i}" for i in range(30))
    terms = informative_terms(text, limit=4)
    assert terms == [f"w{'x' * i}" for i in range(26, 30)]


def test_the_fts_query_quotes_every_term_so_no_input_is_a_syntax_error() -> None:
    assert fts_query(["port", 'say "hi"', "NOT"]) == '"port" OR "say ""hi""" OR "NOT"'


def test_keywords_and_their_overlap() -> None:
    a = keywords("the parser cache misses on every row")
    b = keywords("a cache for the parser")
    assert a == {"parser", "cache", "misses", "row"}
    assert jaccard(a, b) == pytest.approx(2 / 4)
    assert jaccard(a, set()) == 0.0
