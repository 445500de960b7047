"""The compacting base a new mode builds on (`strategies/compacting.py`): it runs only at its
trigger share of the budget (or when forced), an edit that does not shrink the prompt is rolled
back whole and logged, and one that does is kept with the prompt's size after it. Shown with a
mode defined only here, through the real ContextService and ledger."""

from __future__ import annotations

from slop.context.strategies.base import HistorySource, Maintenance, Selection, Upkeep
from slop.context.strategies.compacting import CompactingStrategy, shrink
from slop.records import SessionInfo
from slop.snapshot import ContextService
from slop.store import Store

from .conftest import SID, add_group, statuses


class OldestOut(CompactingStrategy):
    """Test mode: past half the budget, the oldest group goes to cold storage (with, when
    `padding` is set, a summary that is bigger than what it replaces)."""

    name = "oldest-out"
    help = "test mode"
    skipped_event = "oldest-out-skipped"

    def __init__(self, padding: str = "") -> None:
        self.padding = padding

    def trigger(self, session: SessionInfo) -> float:
        return 0.5

    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection:
        return Selection(tuple(source.window(session.name, 0)))

    def maintain(self, upkeep: Upkeep) -> Maintenance:
        used = upkeep.measure()
        if not self.due(upkeep, used):
            return Maintenance()
        oldest = upkeep.history.last_group_ids(upkeep.sid, 0)[-1]
        history = upkeep.history

        def write() -> int:
            history.archive_group(upkeep.sid, oldest, score=0.0, prompt=upkeep.query, reason="oldest", days=1)
            if not self.padding:
                return 0
            return history.compact(upkeep.sid, [], self.padding, kind="relevance", anchor_message_id=None)[1]

        done = shrink(upkeep, used, write, lambda after: history.log(upkeep.sid, "oldest-out", oldest, oldest))
        if not done.kept:
            return self.skipped(history, upkeep.sid, used, done.report("oldest-out"))
        return Maintenance(True, (f"{oldest} out: {done.before:,} -> {done.after:,} tokens",))


def _service(ledger: Store, service: ContextService, mode: OldestOut) -> ContextService:
    service.strategies[mode.name] = mode
    ledger.sessions.update_settings(SID, context_mode=mode.name, budget=2000)
    return service


def _fill(ledger: Store, groups: int) -> list[str]:
    return [add_group(ledger, f"question {i} " + "words " * 60, "answer " * 60) for i in range(groups)]


def test_below_its_trigger_nothing_runs_unless_forced(ledger: Store, service: ContextService) -> None:
    svc = _service(ledger, service, OldestOut())
    gids = _fill(ledger, 2)
    assert svc.maintain(SID, "openai", "") == Maintenance()
    assert statuses(ledger) == {"completed": 4}
    forced = svc.maintain(SID, "openai", "", force=True)
    assert forced.changed and forced.report[0].startswith(f"{gids[0]} out: ")
    assert statuses(ledger) == {"completed": 2, "archived": 2}


def test_an_edit_that_shrinks_the_prompt_is_kept_and_logged(ledger: Store, service: ContextService) -> None:
    svc = _service(ledger, service, OldestOut())
    gids = _fill(ledger, 8)
    done = svc.maintain(SID, "openai", "")
    assert done.changed
    before, after = (int(x.replace(",", "")) for x in done.report[0].split(": ")[1].split(" tokens")[0].split(" -> "))
    assert after < before
    assert ledger.history.window(SID, 0)[0].group_id == gids[1]
    assert any(entry.event == "oldest-out" for entry in ledger.archive.log_entries(SID, 10))


def test_an_edit_that_would_grow_the_prompt_is_rolled_back_whole(ledger: Store, service: ContextService) -> None:
    svc = _service(ledger, service, OldestOut(padding="padding " * 2000))
    gids = _fill(ledger, 8)
    rows_before = ledger.db.query("SELECT COUNT(*) FROM messages")[0][0]
    done = svc.maintain(SID, "openai", "")
    assert not done.changed
    assert done.report[0].startswith("oldest-out would not shrink the prompt (")
    assert done.report[0].endswith("tokens); nothing changed")
    # neither the archive nor the summary stayed: same rows, all visible, nothing in cold storage
    assert ledger.db.query("SELECT COUNT(*) FROM messages")[0][0] == rows_before
    assert statuses(ledger) == {"completed": 16}
    assert ledger.history.archived(SID) == [] and {m.group_id for m in ledger.history.window(SID, 1)} == {gids[-1]}
    log = ledger.archive.log_entries(SID, 10)
    assert [e.event for e in log].count("oldest-out-skipped") == 1 and "oldest-out" not in [e.event for e in log]
