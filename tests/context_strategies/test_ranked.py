"""The ranked strategy: FTS index upkeep, RRF, subset rule, low-information fallback,
mandatory groups, chronological order with a gaps note."""

from __future__ import annotations

from slop.context.rankfusion import rrf
from slop.context.strategies.ranked import GAPS_LAYER
from slop.context.textsearch import informative_terms
from slop.records import NewMessage, Role
from slop.snapshot import ContextService
from slop.store import Store

from .conftest import SID, add_group

TOPICS = [
    "set up the postgres database connection pool",
    "the websocket server drops clients after thirty seconds",
    "write unit tests for the invoice calculator",
    "bump the docker base image",
    "rename the logging helper module",
    "document the deployment checklist",
    "the invoice calculator rounds totals wrongly",
    "add retries to the http client",
]


def history(store: Store) -> list[str]:
    return [add_group(store, t, f"done: {t}") for t in TOPICS]


def use(store: Store, **options: object) -> None:
    store.sessions.update_settings(SID, context_mode="ranked", **options)


def groups_of(service: ContextService) -> list[str]:
    return list(dict.fromkeys(m.group_id for m in service.snapshot(SID, "openai", "").history if m.group_id))


def test_fts_index_follows_writes_and_deletes(ledger: Store) -> None:
    search = ledger.history
    assert search.search_groups(SID, '"flamingo"', 5) == []
    gid = add_group(ledger, "the flamingo parser fails", "fixed the flamingo parser")
    assert [g for g, _ in search.search_groups(SID, '"flamingo"', 5)] == [gid]
    ledger.drop_group(SID, gid)  # hidden groups are not ranked...
    assert search.search_groups(SID, '"flamingo"', 5) == []
    ledger.restore_group(SID, gid)
    ledger.undo(SID)  # ...and deleted rows leave the index
    assert search.search_groups(SID, '"flamingo"', 5) == []
    assert ledger.db.scalar("SELECT COUNT(*) FROM history_fts WHERE history_fts MATCH 'flamingo'") == 0
    # external content: the index stores no copy of the texts
    assert ledger.db.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name='history_fts_content'") == 0


def test_malformed_search_finds_nothing_instead_of_failing(ledger: Store) -> None:
    add_group(ledger, "anything")
    assert ledger.history.search_groups(SID, 'AND OR "', 5) == []


def test_rrf_fuses_ranks_with_k_and_weights() -> None:
    ranked = rrf(["a", "b", "c"], ["c", "b", "a"], k=60, w_bm25=1.5, w_recency=1.0)
    scores = {r.group_id: r.score for r in ranked}
    assert abs(scores["a"] - (1.5 / 61 + 1 / 63)) < 1e-12
    assert abs(scores["c"] - (1.5 / 63 + 1 / 61)) < 1e-12
    assert [r.group_id for r in ranked] == ["a", "b", "c"]  # BM25 weighs 1.5x
    assert rrf(["a", "b", "c"], ["c", "b", "a"], w_bm25=1.0, w_recency=3.0)[0].group_id == "c"
    only_recent = rrf([], ["z", "y"])
    assert [r.group_id for r in only_recent] == ["z", "y"] and only_recent[0].bm25_rank is None


def test_selection_ranks_matches_keeps_mandatory_groups_and_reorders(ledger: Store, service: ContextService) -> None:
    gids = history(ledger)
    current = add_group(ledger, "why does the invoice calculator round totals?")
    use(ledger)
    ledger.sessions.set_context_size(SID, 2)  # top N = 2 ranked groups
    chosen = groups_of(service)
    assert current in chosen and gids[-1] in chosen  # current group + the last K=2 groups
    assert gids[2] in chosen and gids[6] in chosen  # the two invoice-calculator groups
    assert gids[0] not in chosen and gids[3] not in chosen
    assert chosen == sorted(chosen)  # chronological again
    snapshot = service.snapshot(SID, "openai", "")
    assert snapshot.strategy_layer == GAPS_LAYER
    assert "invoice" in snapshot.notes[0] and "matching group" in snapshot.notes[0]


def test_subset_rule_ranks_only_matching_groups_by_recency(ledger: Store, service: ContextService) -> None:
    gids = history(ledger)
    add_group(ledger, "the websocket server again")
    use(ledger, ranked_keep_last=1)
    ledger.sessions.set_context_size(SID, 1)
    chosen = groups_of(service)
    assert gids[1] in chosen and gids[-1] not in chosen  # the recent non-matching group gets no recency credit


def test_system_messages_are_always_kept(ledger: Store, service: ContextService) -> None:
    gid = ledger.messages.new_group_id()
    ledger.messages.append(SID, gid, NewMessage(Role.SYSTEM, "house rules: never push to main"))
    history(ledger)
    add_group(ledger, "the websocket server again")
    use(ledger, ranked_keep_last=1)
    ledger.sessions.set_context_size(SID, 1)
    assert gid in groups_of(service)


def test_low_information_prompts_fall_back_to_the_window(ledger: Store, service: ContextService) -> None:
    assert informative_terms("continue") == [] and informative_terms("ok, go on") == []
    assert informative_terms("next please") == [] and informative_terms("go on with the parser") == ["parser"]
    gids = history(ledger)
    current = add_group(ledger, "continue")
    use(ledger)
    ledger.sessions.set_context_size(SID, 3)
    snapshot = service.snapshot(SID, "openai", "")
    assert groups_of(service) == [gids[-2], gids[-1], current]  # the plain window
    assert "no informative words" in snapshot.notes[0] and snapshot.strategy_layer == ""


def test_budget_fill_stays_within_the_room(ledger: Store, service: ContextService) -> None:
    for i in range(40):
        add_group(ledger, f"invoice detail number {i} " + "pad " * 60, "noted " * 40)
    add_group(ledger, "what about invoice totals?")
    use(ledger, budget=1500)
    ledger.sessions.set_context_size(SID, 0)
    prompt = service.prompt(SID, "openai", "")
    assert prompt.total_tokens <= 1500
    assert not any("Budget guard" in n for n in prompt.notes)  # the strategy fitted it itself
    assert len({e.message.group_id for e in prompt.history}) > 5


def test_query_expansion_takes_words_shared_by_the_top_hits(ledger: Store, service: ContextService) -> None:
    from slop.context.rankfusion import expansion_terms
    from slop.records import Message

    rows = [
        Message(i, SID, "user", text)
        for i, text in enumerate(
            ["invoice rounding uses decimal", "decimal context for invoice totals", "the decimal module"]
        )
    ]
    assert expansion_terms(rows, ["invoice"], 2)[0] == "decimal"
    assert expansion_terms(rows, ["invoice"], 0) == []
    history(ledger)
    add_group(ledger, "invoice calculator")
    use(ledger)
    notes = " ".join(service.snapshot(SID, "openai", "").notes)
    assert "Query expansion from the top 3 hits" in notes
    ledger.sessions.update_settings(SID, ranked_expansion_terms=0)
    assert "Query expansion" not in " ".join(service.snapshot(SID, "openai", "").notes)


def test_search_is_scoped_to_the_session_and_ignores_tool_call_json(ledger: Store) -> None:
    search = ledger.history
    mine = add_group(ledger, "open the flamingo parser", "done", tools=["def parse(): ..."])
    other = add_group(ledger, "the flamingo parser elsewhere", "done", sid="other")
    assert [g for g, _ in search.search_groups(SID, '"flamingo"', 5)] == [mine]
    assert [g for g, _ in search.search_groups("other", '"flamingo"', 5)] == [other]
    # the tool-call row's JSON keys and ids are not words of the session...
    for structure in ("tool_calls", "function", "arguments", "role", "type"):
        assert search.search_groups(SID, f'"{structure}"', 5) == [], structure
    # ...but what it says is: the tool's name and the argument values
    assert [g for g, _ in search.search_groups(SID, '"read_file"', 5)] == [mine]
    assert [g for g, _ in search.search_groups(SID, '"f0"', 5)] == [mine]
    hits = ledger.search.messages(SID, '"flamingo"', 5)
    assert hits and "[flamingo]" in hits[0].snippet


def test_search_bound_ranks_only_the_newest_matches(ledger: Store) -> None:
    gids = [add_group(ledger, f"pelican note {i}") for i in range(6)]
    found = ledger.history.search_groups(SID, '"pelican"', 10, newest=2)
    assert {g for g, _ in found} == set(gids[-2:])


def test_the_recent_flow_comes_first_when_the_search_points_at_it(ledger: Store, service: ContextService) -> None:
    old = [add_group(ledger, f"old chat {i} about gardening and tomatoes " + "pad " * 40) for i in range(12)]
    recent = [
        add_group(ledger, "the staging server keeps dropping websocket clients " + "pad " * 40),
        add_group(ledger, "maybe it is the load balancer idle setting " + "pad " * 40),  # no query word at all
        add_group(ledger, "websocket clients drop after thirty seconds on staging " + "pad " * 40),
    ]
    add_group(ledger, "why does staging drop websocket clients?")
    use(ledger, budget=900)
    ledger.sessions.set_context_size(SID, 0)
    chosen = groups_of(service)
    assert set(recent) <= set(chosen)  # the paraphrase in between came with the recent flow
    notes = " ".join(service.snapshot(SID, "openai", "").notes)
    assert "Recent flow first" in notes
    # a question about old turns: the search points away from the recent window
    ledger.undo(SID)
    add_group(ledger, "what did we say about gardening tomatoes?")
    chosen = groups_of(service)
    assert sum(1 for g in old if g in chosen) >= 3


def test_an_old_strong_match_beats_newer_weak_ones_when_the_search_points_away_from_recent_turns(
    ledger: Store, service: ContextService
) -> None:
    answer = add_group(ledger, "we picked port 8443 for the kestrel staging server")
    weak = [add_group(ledger, f"kestrel came up in passing, note {i} " + "pad " * 60) for i in range(6)]
    for i in range(12):  # the recent turns are about something else
        add_group(ledger, f"recent work {i} on the invoice totals " + "pad " * 60)
    add_group(ledger, "which port did we pick for the kestrel staging server?")
    use(ledger, budget=700)
    ledger.sessions.set_context_size(SID, 0)
    assert answer in groups_of(service)
    notes = " ".join(service.snapshot(SID, "openai", "").notes)
    assert "recency among the hits weighs 0.00" in notes
    # first in the fused ranking, ahead of the newer, weaker matches (with recency at
    # full weight the newest of those came first)
    assert f"expanded-query rank): {answer} (" in notes
    assert all(g in notes for g in weak[-2:])


def test_the_budget_fill_goes_on_into_further_hits_before_the_recent_flow(
    ledger: Store, service: ContextService
) -> None:
    """Past the fused candidates the fill takes the further BM25 hits (read only when
    the fill gets there), then the most recent groups."""
    matching = [add_group(ledger, f"zebra stripes note {i}", "ok " * 30) for i in range(12)]
    for i in range(30):
        add_group(ledger, f"unrelated chore {i} " + "pad " * 30, "done " * 30)
    add_group(ledger, "what about the zebra stripes?")
    use(ledger, budget=2000, ranked_candidates=2, ranked_recent_share=0, ranked_expansion_terms=0)
    ledger.sessions.set_context_size(SID, 0)
    prompt = service.prompt(SID, "openai", "")
    chosen = {e.message.group_id for e in prompt.history}
    # 2 fused hits + 6 further ones (4x the candidates in all); the 4 oldest are past the tail
    assert len(chosen & set(matching)) == 8
    assert set(matching[-8:]) <= chosen
    assert prompt.total_tokens <= 2000
    assert len(chosen - set(matching)) > 3  # the room left went to the recent flow


def test_query_expansion_reads_a_tool_result_as_a_finished_turn_shows_it() -> None:
    """A tool result feeds the expansion its first 300 characters (a finished turn shows
    no more of it): words buried in a long file or log are not expansion words."""
    from slop.context.rankfusion import FEEDBACK_RESULT_CHARS, expansion_terms
    from slop.records import Message

    padding = "lorem " * (FEEDBACK_RESULT_CHARS // 6)
    results = [Message(i, SID, "tool", f"gizmo {padding} zeppelin", tool_call_id=f"c{i}") for i in range(3)]
    assert expansion_terms(results, ["query"], 5)[0] == "gizmo"
    assert "zeppelin" not in expansion_terms(results, ["query"], 5)
    answers = [Message(i, SID, "assistant", f"gizmo {padding} zeppelin") for i in range(3)]
    assert "zeppelin" in expansion_terms(answers, ["query"], 5)
