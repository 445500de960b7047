"""The relevance strategy: scoring, KEEP / SUMMARIZE / DROP, cold storage with expiry,
recovery by query, pins, and the log."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from slop.context.strategies.relevance import (
    DROP,
    KEEP,
    SUMMARIZE,
    GroupScore,
    Weights,
    classify,
    recover,
    score_groups,
)
from slop.records import Message, Status
from slop.snapshot import ContextService
from slop.store import Store

from .conftest import NOW, SID, add_group, statuses

FRESH = (NOW - timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M:%S.000")
OLD = (NOW - timedelta(days=3)).strftime("%Y-%m-%d %H:%M:%S.000")


def msg(gid: str, when: datetime) -> Message:
    return Message(1, SID, "user", "x", group_id=gid, created_at=when.strftime("%Y-%m-%d %H:%M:%S.%f"))


def test_score_is_similarity_plus_recency_decay_plus_importance() -> None:
    w = Weights()
    hours = {"a": 0, "b": 4, "c": 8}
    groups = {g: [msg(g, NOW - timedelta(hours=h))] for g, h in hours.items()}
    scores = {s.group_id: s for s in score_groups(groups, {"a": 1.0, "b": 0.5}, {"c"}, NOW, w)}  # type: ignore[arg-type]
    assert abs(scores["a"].score - (0.6 + 0.2)) < 1e-9
    assert abs(scores["b"].recency - 0.1) < 1e-9 and abs(scores["b"].similarity - 0.3) < 1e-9  # one half-life
    assert abs(scores["c"].score - (0.05 + 0.1)) < 1e-9  # two half-lives + pinned bonus


def test_classification_thresholds_and_minimum_kept() -> None:
    w = Weights(min_keep=0)
    scores = [GroupScore(g, 0, 0, 0, s) for g, s in [("k", 0.7), ("s", 0.5), ("d", 0.3), ("d2", 0.1)]]
    actions = {s.group_id: s.action for s in classify(scores, w, always_keep={}, no_summary=set())}
    assert actions == {"k": KEEP, "s": SUMMARIZE, "d": DROP, "d2": DROP}
    promoted = {s.group_id: s.action for s in classify(scores, Weights(min_keep=3), always_keep={}, no_summary=set())}
    assert promoted == {"k": KEEP, "s": SUMMARIZE, "d": SUMMARIZE, "d2": DROP}  # the best DROP is promoted
    kept = {
        s.group_id: (s.action, s.reason) for s in classify(scores, w, always_keep={"d2": "pinned"}, no_summary={"s"})
    }
    assert kept["d2"] == (KEEP, "pinned") and kept["s"][0] == KEEP  # summaries are not summarized again


def session(store: Store) -> dict[str, str]:
    gids = {
        "db": add_group(store, "configure the postgres database pool size", "pool size is 20 now " * 30, when=OLD),
        "css": add_group(store, "make the navbar css sticky", "navbar is sticky " * 30, when=OLD),
        "deploy": add_group(store, "write the deploy script", "deploy.sh written " * 30, when=OLD),
        "db2": add_group(store, "the postgres database pool times out", "raised the pool timeout " * 30, when=FRESH),
    }
    gids["now"] = add_group(store, "why does the postgres database pool time out again?")
    return gids


def use(store: Store, **options: object) -> None:
    store.sessions.update_settings(SID, context_mode="relevance", budget=1200, relevance_min_keep=1, **options)


def test_compaction_drops_to_cold_storage_with_expiry_and_logs(ledger: Store, service: ContextService) -> None:
    gids = session(ledger)
    use(ledger)
    result = service.maintain(SID, "openai", "", None)  # no summarizer: the middle band is kept
    assert result.changed
    archived = {a.group_id: a for a in ledger.history.archived(SID)}
    assert set(archived) == {gids["css"], gids["deploy"]}
    entry = archived[gids["css"]]
    assert entry.prompt_at_drop.startswith("why does the postgres") and entry.score is not None and entry.score <= 0.3
    days = (datetime.fromisoformat(entry.recoverable_until) - datetime.fromisoformat(entry.archived_at)).days
    assert days == 30
    assert [m.status for m in ledger.messages.group(SID, gids["css"])] == [Status.ARCHIVED] * 2
    visible = {m.group_id for m in ledger.messages.window(SID, 0)}
    assert {gids["db"], gids["db2"], gids["now"]} <= visible  # similar or current: kept
    events = [e.event for e in ledger.archive.log_entries(SID)]
    assert events.count("drop") == 2 and events[-1] == "relevance"


def test_middle_band_is_summarized_and_kept_recoverable_undo_takes_the_users_turn(
    ledger: Store, service: ContextService
) -> None:
    gids = session(ledger)
    # a low trigger: kept groups may fill only 10 % of the budget, so the band is summarized
    use(ledger, relevance_keep=0.75, relevance_cutoff=0.05, relevance_trigger=0.1)
    seen: list[str] = []

    def summarize(instructions: str, transcript: str) -> str:
        seen.append(transcript)
        return "[GID x] postgres pool settings discussed"

    assert service.maintain(SID, "openai", "", summarize).changed
    assert "Current request: why does the postgres" in seen[0]
    window = ledger.messages.window(SID, 0)
    assert any("Summary of earlier context" in m.content for m in window)
    archive = {a.group_id: a for a in ledger.history.archived(SID)}
    summarized = {r[0] for r in ledger.db.query("SELECT group_id FROM context_archive WHERE reason LIKE 'summarized%'")}
    assert summarized and gids["css"] in archive and gids["deploy"] in archive
    assert gids["now"] in {m.group_id for m in window}
    # the summary sorts before the current request: it is not the newest group
    summary_gid = next(m.group_id for m in window if "Summary of earlier" in m.content)
    assert summary_gid is not None and summary_gid < gids["now"]
    assert ledger.messages.last_group_id(SID) == gids["now"]
    # summarized groups stay recoverable from cold storage
    some = sorted(summarized)[0]
    back = recover(ledger.history, SID, ledger.messages.group(SID, some)[0].content)
    assert some in {r.group_id for r in back}
    # /undo takes back the user's turn, not the summary
    assert ledger.undo(SID) is not None
    remaining = {m.group_id for m in ledger.messages.window(SID, 0)}
    assert gids["now"] not in remaining and summary_gid in remaining


def test_a_clearly_relevant_old_group_is_kept_and_a_dropped_one_comes_back(
    ledger: Store, service: ContextService
) -> None:
    gids = session(ledger)
    use(ledger)
    service.maintain(SID, "openai", "", None)
    notes = " ".join(service.snapshot(SID, "openai", "").notes)
    assert gids["db"] in {m.group_id for m in ledger.messages.window(SID, 0)}  # old, but about the request
    assert re.search(gids["db"] + r" [0-9.+=]+ -> KEEP", notes)  # kept as it is, not summarized
    # a later request about a dropped topic brings it back without anyone asking
    add_group(ledger, "is the navbar css still sticky on mobile?")
    result = service.maintain(SID, "openai", "", None)
    assert gids["css"] in {m.group_id for m in ledger.messages.window(SID, 0)}
    assert any("back from cold storage" in line for line in result.report)


def test_recover_by_query_and_expired_entries_stay_out(ledger: Store, service: ContextService) -> None:
    gids = session(ledger)
    use(ledger)
    service.maintain(SID, "openai", "", None)
    history = ledger.history
    found = recover(history, SID, "navbar css")
    assert [r.group_id for r in found] == [gids["css"]] and found[0].overlap > 0
    assert all(m.status == Status.COMPLETED for m in ledger.messages.group(SID, gids["css"]))
    assert recover(history, SID, "navbar css") == []  # already back
    ledger.db.execute("UPDATE context_archive SET recoverable_until='2000-01-01 00:00:00.000'")
    assert recover(history, SID, "deploy script") == []  # expired: the rows stay archived in the ledger
    assert [m.status for m in ledger.messages.group(SID, gids["deploy"])] == [Status.ARCHIVED] * 2
    events = [e.event for e in ledger.archive.log_entries(SID)]
    assert "recover" in events and "expire" in events


def test_recovered_groups_are_kept_for_the_current_request(ledger: Store, service: ContextService) -> None:
    gids = session(ledger)
    use(ledger)
    service.maintain(SID, "openai", "", None)
    recover(ledger.history, SID, "navbar css")
    service.maintain(SID, "openai", "", None, force=True)
    assert gids["css"] in {m.group_id for m in ledger.messages.window(SID, 0)}


def test_pinned_groups_are_never_dropped(ledger: Store, service: ContextService) -> None:
    gids = session(ledger)
    use(ledger)
    ledger.archive.pin(SID, gids["deploy"])
    service.maintain(SID, "openai", "", None)
    assert {a.group_id for a in ledger.history.archived(SID)} == {gids["css"]}
    notes = " ".join(service.snapshot(SID, "openai", "").notes)
    assert "Pinned: " + gids["deploy"] in notes and "-> KEEP" in notes


def test_uninformative_prompt_or_low_usage_do_not_trigger(ledger: Store, service: ContextService) -> None:
    session(ledger)
    add_group(ledger, "continue")
    use(ledger)
    assert not service.maintain(SID, "openai", "", None).changed
    ledger.sessions.update_settings(SID, budget=1_000_000)
    add_group(ledger, "the postgres pool")
    assert not service.maintain(SID, "openai", "", None).changed
    assert Status.ARCHIVED not in statuses(ledger)
