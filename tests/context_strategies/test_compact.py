"""The compact strategy: threshold, continuation summary, originals kept and readable,
undo of the summary group, files already read, failures that change nothing."""

from __future__ import annotations

from slop.context.strategies.base import Maintenance
from slop.context.strategies.compact import summary_tokens
from slop.context.summarize import CONTINUATION_HEADER, compact_instructions
from slop.orchestrator import Orchestrator
from slop.records import Role, Status
from slop.snapshot import ContextService
from slop.store import Store
from slop.store.readonly import run_readonly_query
from tests.recording import Recorder

from .conftest import SID, ScriptedProvider, add_group, statuses

SUMMARY = "## Analysis\n1. Initial Request: build the thing\n## Summary\n1. Primary Request and Intent: the thing"


def long_session(store: Store, turns: int = 12) -> list[str]:
    return [add_group(store, f"request {i}: " + "word " * 80, f"answer {i}: " + "text " * 80) for i in range(turns)]


def use(store: Store, budget: int = 3000, **options: object) -> None:
    store.sessions.update_settings(SID, context_mode="compact", budget=budget, **options)


def summarizer(calls: list[tuple[str, str]]):  # type: ignore[no-untyped-def]
    def summarize(instructions: str, transcript: str) -> str:
        calls.append((instructions, transcript))
        return SUMMARY

    return summarize


def test_below_the_threshold_nothing_happens(ledger: Store, service: ContextService) -> None:
    long_session(ledger, 3)
    use(ledger, budget=100_000)
    calls: list[tuple[str, str]] = []
    assert service.maintain(SID, "openai", "", summarizer(calls)) == Maintenance()
    assert calls == [] and Status.COMPACTED not in statuses(ledger)


def test_threshold_compacts_to_first_message_summary_and_recent(ledger: Store, service: ContextService) -> None:
    gids = long_session(ledger)
    use(ledger)
    before = service.prompt(SID, "openai", "")
    calls: list[tuple[str, str]] = []
    result = service.maintain(SID, "openai", "", summarizer(calls))
    assert result.changed and "compacted" in result.report[0]
    instructions, transcript = calls[0]
    # a tenth of the 3,000-token budget: 222 words (a fixed 800 would take a third of it)
    assert instructions == compact_instructions(3000) and "at most 222 words" in instructions
    assert "## Analysis" in instructions and "Open Tasks / Next Steps" in instructions
    assert "request 1:" in transcript and "answer 11" not in transcript  # the recent messages stay verbatim
    after = service.prompt(SID, "openai", "")
    assert after.total_tokens < before.total_tokens and after.total_tokens <= 0.5 * 3000 + 200
    rows = [e.message for e in after.history]
    assert rows[0].content.startswith(("## Begin", "request 0")) and "request 0" in rows[0].content  # first request
    assert rows[1].role == Role.ASSISTANT and rows[1].content.startswith(CONTINUATION_HEADER)
    # at least the last 6 messages, and as many more recent ones as fit the target, in order
    kept = list(dict.fromkeys(m.group_id for m in rows[2:]))
    assert len(rows[2:]) >= 6 and kept == gids[-len(kept) :] and len(kept) >= 3
    log = ledger.archive.log_entries(SID)
    assert log[-1].event == "compact" and log[-1].tokens_before and log[-1].tokens_after


def test_originals_stay_readable_and_undo_of_the_summary_restores_them(ledger: Store, service: ContextService) -> None:
    gids = long_session(ledger)
    use(ledger)
    visible_before = [m.id for m in ledger.messages.window(SID, 0)]
    service.maintain(SID, "openai", "", summarizer([]))
    compacted = statuses(ledger)[Status.COMPACTED]
    # all but the first request and the recent messages that fit the target (at least 6)
    assert 0 < compacted <= len(visible_before) - 7
    # still in the ledger: readable with query_db's read-only SQL and /message show's group()
    text = run_readonly_query(
        ledger.path,
        "SELECT content FROM messages WHERE status='compacted' ORDER BY id LIMIT 1",
        max_rows=5,
        max_chars=5000,
    )
    assert "answer 0" in text
    assert [m.status for m in ledger.messages.group(SID, gids[3])] == [Status.COMPACTED] * 2
    undone = ledger.undo(SID)  # the summary is the newest group
    assert undone is not None and undone.messages == 1
    assert Status.COMPACTED not in statuses(ledger)
    assert [m.id for m in ledger.messages.window(SID, 0)] == visible_before
    # the trigger's uncompact, then the undo itself (every manual undo is logged too)
    assert [e.event for e in ledger.archive.log_entries(SID)[-2:]] == ["uncompact", "undo"]


def test_second_compaction_folds_the_first_summary_in_and_undo_unwinds_one(
    ledger: Store, service: ContextService
) -> None:
    long_session(ledger)
    use(ledger)
    service.maintain(SID, "openai", "", summarizer([]))
    long_session(ledger, 10)
    calls: list[tuple[str, str]] = []
    assert service.maintain(SID, "openai", "", summarizer(calls)).changed
    assert CONTINUATION_HEADER in calls[0][1]  # the first summary is part of what the second one replaces
    assert len(ledger.history.active_summaries(SID)) == 1
    ledger.undo(SID)
    assert len(ledger.history.active_summaries(SID)) == 1  # the first summary is back


def test_failure_no_summarizer_and_no_shrink_change_nothing(ledger: Store, service: ContextService) -> None:
    long_session(ledger)
    use(ledger)
    ids = [m.id for m in ledger.messages.window(SID, 0)]

    def unchanged() -> None:
        assert [m.id for m in ledger.messages.window(SID, 0)] == ids
        assert Status.COMPACTED not in statuses(ledger)

    def broken(instructions: str, transcript: str) -> str:
        raise RuntimeError("model unreachable")

    result = service.maintain(SID, "openai", "", broken)
    assert not result.changed and "failed" in result.report[0] and "nothing changed" in result.report[0]
    unchanged()
    result = service.maintain(SID, "openai", "", lambda i, t: "   ")
    assert not result.changed and "empty summary" in result.report[0]
    unchanged()
    result = service.maintain(SID, "openai", "", None)
    assert not result.changed and "no model provider" in result.report[0]
    unchanged()
    result = service.maintain(SID, "openai", "", lambda i, t: "huge " * 20_000)
    assert not result.changed and "would not shrink" in result.report[0]
    unchanged()
    events = [e.event for e in ledger.archive.log_entries(SID)]
    assert events == ["compact-skipped"] * 4


def test_forced_compaction_reports_when_there_is_nothing_to_compact(ledger: Store, service: ContextService) -> None:
    add_group(ledger, "only request", "only answer")
    use(ledger)
    result = service.maintain(SID, "openai", "", summarizer([]), force=True)
    assert not result.changed and "nothing to compact" in result.report[0]


def test_files_read_are_listed_and_reset_by_compaction(ledger: Store, service: ContextService) -> None:
    long_session(ledger)
    use(ledger)
    archive = ledger.archive
    for path in ["src/a.py", "src/b.py", "src/a.py"]:
        archive.record_file_read(SID, path)
    prompt = service.prompt(SID, "openai", "")
    layer = next(layer for layer in prompt.layers if layer.name == "files read")
    assert "- src/b.py\n- src/a.py" in layer.text
    service.maintain(SID, "openai", "", summarizer([]))
    assert all(layer.name != "files read" for layer in service.prompt(SID, "openai", "").layers)
    ledger.undo(SID)  # undoing the compaction brings the list back
    assert any(layer.name == "files read" for layer in service.prompt(SID, "openai", "").layers)
    for n in range(25):
        archive.record_file_read(SID, f"f{n}.py")
    assert len(archive.files_read(SID, 20)) == 20 and archive.files_read(SID, 20)[-1] == "f24.py"


def test_a_turn_compacts_through_the_provider_before_calling_the_model(
    ledger: Store, orchestrator: Orchestrator, provider: ScriptedProvider
) -> None:
    long_session(ledger, turns=30)  # a transcript longer than one summarization request may be
    use(ledger)
    sink = Recorder()
    assert orchestrator.run_turn(SID, "next request about the thing", sink).ok
    *summary_calls, turn_call = provider.prompts
    assert summary_calls and all(
        c.layers[0].text == compact_instructions(3000) and c.tools == () for c in summary_calls
    )
    # every summarization request fits the 3,000-token budget (with room for the reply):
    # the transcript went in chunks, each call folding one more into the summary so far
    assert all(c.total_tokens + summary_tokens(3000) <= 3000 for c in summary_calls) and len(summary_calls) > 1
    assert "Summary of the transcript so far" in summary_calls[-1].history[0].content
    assert any(e.content.startswith(CONTINUATION_HEADER) for e in turn_call.history)
    assert any("context compacted" in line for line in sink.kinds("info"))
    assert ledger.usage.session_total(SID) > 0  # the summary call's usage is recorded


def test_a_failing_summary_call_is_reported_and_the_turn_goes_on(
    ledger: Store, orchestrator: Orchestrator, provider: ScriptedProvider
) -> None:
    long_session(ledger)
    use(ledger)
    provider.fail_summary = True
    sink = Recorder()
    assert orchestrator.run_turn(SID, "next request", sink).ok
    assert any("compaction failed" in line for line in sink.kinds("info"))
    assert Status.COMPACTED not in statuses(ledger)
