"""The messages strategy: last N messages, tool pairs whole, overflow trimming, input limit."""

from __future__ import annotations

from slop.context.history import enforce_pairs
from slop.orchestrator import Orchestrator
from slop.records import Role
from slop.snapshot import ContextService
from slop.store import Store
from tests.recording import Recorder

from .conftest import SID, add_group


def use(store: Store, **options: object) -> None:
    store.sessions.update_settings(SID, context_mode="messages", **options)


def test_last_n_messages_never_split_a_tool_call_from_its_results(ledger: Store, service: ContextService) -> None:
    add_group(ledger, "old request", "old answer")
    add_group(ledger, "read three files", "read them", tools=["one", "two", "three"])  # user, call, 3 results, answer
    add_group(ledger, "now this", "ok")
    use(ledger, messages=4)  # the cut falls between the results: the window grows back to the call row
    prompt = service.prompt(SID, "openai", "")
    rows = [e.message for e in prompt.history]
    assert [m.role for m in rows] == ["assistant", "tool", "tool", "tool", "assistant", "user", "assistant"]
    assert rows == enforce_pairs(rows)  # nothing orphaned, nothing reduced
    assert "more to keep a tool call with its results" in prompt.notes[0]


def test_current_request_is_kept_even_when_older_than_the_window(ledger: Store, service: ContextService) -> None:
    add_group(ledger, "the task", tools=["a", "b", "c", "d", "e"])
    use(ledger, messages=3)
    rows = [e.message for e in service.prompt(SID, "openai", "").history]
    assert rows[0].role == Role.USER and rows[0].content == "the task"
    assert "older than the window" in " ".join(service.snapshot(SID, "openai", "").notes)


def test_overflow_trimming_drops_oldest_first(ledger: Store, service: ContextService) -> None:
    for i in range(6):
        add_group(ledger, f"question {i} " + "x" * 400, f"answer {i} " + "y" * 400)
    use(ledger, messages=10, budget=700)
    snapshot = service.snapshot(SID, "openai", "")
    texts = [m.content.split()[1] for m in snapshot.history]
    assert texts[-1] == "5" and texts[0] != "1"  # the newest stays, the oldest went first
    assert any("Overflow trimming" in n for n in snapshot.notes)
    assert service.prompt(SID, "openai", "").total_tokens <= 700


def test_over_long_input_is_rejected_and_nothing_is_stored(ledger: Store, orchestrator: Orchestrator) -> None:
    use(ledger, max_input_chars=20)
    sink = Recorder()
    result = orchestrator.run_turn(SID, "x" * 21, sink)
    assert not result.ok and "at most 20" in result.error and "max_input_chars" in result.error
    assert sink.kinds("error") == [result.error]
    assert ledger.messages.count(SID) == 0
    assert orchestrator.run_turn(SID, "short enough", Recorder()).ok
    assert ledger.messages.count(SID) == 2


def test_default_limit_is_the_seeds_500_characters_and_other_modes_have_none(
    ledger: Store, service: ContextService
) -> None:
    use(ledger)
    assert service.validate_input(SID, "y" * 500) is None
    assert "500" in (service.validate_input(SID, "y" * 501) or "")
    ledger.sessions.update_settings(SID, context_mode="window")
    assert service.validate_input(SID, "y" * 5000) is None
