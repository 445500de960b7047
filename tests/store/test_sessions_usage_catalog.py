"""Session settings, what the providers billed, and the skills and tools catalog: what
/session, /context, `slop logs`, /skill and /tool read back from the ledger."""

from __future__ import annotations

from pathlib import Path

import pytest

from slop.errors import StoreError
from slop.logs import format_line
from slop.records import SessionDefaults, ToolSpec, Usage
from slop.store import Store
from slop.store.sessions import LARGEST_SETTING
from tests.store.turns import turn

# ---- sessions ---------------------------------------------------------------------


def test_a_new_session_starts_from_the_configured_defaults(tmp_path: Path) -> None:
    defaults = SessionDefaults(context_size=8, context_mode="ranked", budget=40_000, options=(("layout", "cache"),))
    store = Store.open(str(tmp_path / "l.db"), defaults=defaults)
    try:
        info = store.sessions.get("fresh")  # never written
        assert (info.context_size, info.context_mode, info.budget, info.options) == (
            8,
            "ranked",
            40_000,
            {"layout": "cache"},
        )
        turn(store, "fresh", "hello")
        # the window is written into the row, where std::slop's SQL reads it
        assert store.db.scalar("SELECT context_size FROM sessions WHERE id='fresh'") == 8
        store.sessions.update_settings("fresh", layout="seed")
        assert store.sessions.get("fresh").options == {"layout": "seed"}  # the session's own choice wins
    finally:
        store.close()


def test_settings_merge_and_unknown_ones_are_kept_as_options(store: Store) -> None:
    store.sessions.update_settings("s", provider="gemini", model="gemini-2.5-pro")
    info = store.sessions.update_settings("s", budget=9000, throttle=1.5, verbose="full")
    assert (info.provider, info.model, info.budget, info.throttle) == ("gemini", "gemini-2.5-pro", 9000, 1.5)
    assert info.options == {"verbose": "full"}


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("settings", "{not json"),
        ("settings", '["a", "list"]'),
        ("settings", '{"budget": "lots", "throttle": -3, "context_mode": null}'),
        ("settings", f'{{"budget": {LARGEST_SETTING + 1}}}'),
        ("context_size", "'five'"),
        ("context_size", "-2"),
        ("active_skills", "'planner'"),
    ],
)
def test_a_session_row_edited_by_hand_reads_as_the_defaults(store: Store, column: str, value: str) -> None:
    store.sessions.ensure("s")
    store.db.execute(f"UPDATE sessions SET {column}=? WHERE id='s'", (value.strip("'"),))
    info = store.sessions.get("s")
    assert (info.context_size, info.context_mode, info.budget, info.throttle) == (5, "window", 0, 0.0)
    assert info.active_skills == ()


def test_the_window_cannot_be_negative(store: Store) -> None:
    with pytest.raises(StoreError, match=r"^the window size cannot be negative$"):
        store.sessions.set_context_size("s", -1)
    store.sessions.set_context_size("s", 0)  # 0 = the whole history
    assert store.sessions.get("s").context_size == 0


def test_active_skills_are_kept_in_order(store: Store) -> None:
    store.sessions.set_active_skills("s", ["dba", "planner"])
    assert store.sessions.get("s").active_skills == ("dba", "planner")
    store.sessions.set_active_skills("s", [])
    assert store.sessions.get("s").active_skills == ()


def test_the_session_list_counts_messages_and_puts_the_latest_first(store: Store) -> None:
    turn(store, "older", "a")
    turn(store, "newer", "b")
    turn(store, "newer", "c")
    store.sessions.ensure("empty")  # created by /session new, nothing said yet
    listed = store.sessions.list()
    assert [(s["id"], s["messages"]) for s in listed] == [("newer", 4), ("older", 2), ("empty", 0)]


def test_the_overview_shows_the_first_prompt_size_and_bill(store: Store) -> None:
    turn(store, "s", "fix the heron bug", "fixed")
    turn(store, "s", "now the tests")
    store.usage.record("s", None, Usage(1000, 200, 1200, "gpt-x"))
    store.usage.record("s", None, Usage(1500, 100, 1600, "gpt-x"))
    turn(store, "quiet", "just looking")
    [quiet, busy] = store.sessions.overview(10)
    assert (busy.name, busy.messages, busy.first_prompt, busy.billed_tokens) == ("s", 4, "fix the heron bug", 2800)
    assert busy.cost is None  # this ledger's usage table records no cost
    assert busy.tokens == sum(m.content_tokens for m in store.messages.window("s", 0))
    assert (quiet.name, quiet.billed_tokens) == ("quiet", 0)
    assert "2,800 billed tok" in format_line(busy, 120) and "fix the heron bug" in format_line(busy, 120)
    assert "no usage" in format_line(quiet, 120)
    assert [o.name for o in store.sessions.overview(1)] == ["quiet"]


def test_the_overview_sums_the_cost_a_std_slop_usage_table_records(store: Store) -> None:
    store.db.execute("ALTER TABLE usage ADD COLUMN cost REAL")
    turn(store, "s", "priced work")
    store.db.execute("INSERT INTO usage(session_id, model, total_tokens, cost) VALUES ('s', 'm', 10, 0.25)")
    store.db.execute("INSERT INTO usage(session_id, model, total_tokens, cost) VALUES ('s', 'm', 10, 0.5)")
    [entry] = store.sessions.overview(5)
    assert entry.cost == pytest.approx(0.75)
    assert "$0.7500" in format_line(entry, 120)


def test_a_prompt_with_terminal_escapes_is_one_clean_line_in_the_overview(store: Store) -> None:
    turn(store, "s", "first line\n\x1b]0;owned\x07second line")
    line = format_line(store.sessions.overview(1)[0], 200)
    assert "\x1b" not in line and "\x07" not in line and "\n" not in line
    assert line.endswith("first line ]0;owned second line")


def test_a_long_first_prompt_is_cut_to_the_terminal(store: Store) -> None:
    turn(store, "s", "word " * 200)
    line = format_line(store.sessions.overview(1)[0], 120)
    assert line.endswith("wo…") and len(line) == 120


# ---- usage ------------------------------------------------------------------------


def test_usage_is_summed_per_model_in_name_order_and_per_session(store: Store) -> None:
    store.usage.record("s", None, Usage(100, 10, 110, "zeta", cached_tokens=40))
    store.usage.record("s", None, Usage(50, 5, 55, "alpha", reasoning_tokens=3))
    store.usage.record("s", None, Usage(100, 20, 120, "zeta", cached_tokens=60))
    store.usage.record("other", None, Usage(7, 7, 14, "zeta"))
    alpha, zeta = store.usage.by_model("s")
    assert (alpha.model, alpha.total_tokens, alpha.reasoning_tokens) == ("alpha", 55, 3)
    assert (zeta.model, zeta.prompt_tokens, zeta.completion_tokens, zeta.cached_tokens) == ("zeta", 200, 30, 100)
    assert store.usage.session_total("s") == 285 and store.usage.session_total("other") == 14
    last = store.usage.last("s")
    assert last is not None and (last.model, last.total_tokens) == ("zeta", 120)


def test_a_session_without_usage_has_none(store: Store) -> None:
    assert store.usage.by_model("s") == [] and store.usage.session_total("s") == 0
    assert store.usage.last("s") is None


def test_recording_usage_creates_the_session_with_the_default_window(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "l.db"), defaults=SessionDefaults(context_size=3))
    try:
        store.usage.record("billed", None, Usage(1, 1, 2, "m"))
        assert store.sessions.exists("billed") and store.sessions.get("billed").context_size == 3
    finally:
        store.close()


# ---- skills and tools ---------------------------------------------------------------


def test_default_skills_come_back_but_the_user_s_edits_stay(tmp_path: Path) -> None:
    path = str(tmp_path / "l.db")
    store = Store.open(path)
    store.catalog.save_skill("planner", "my planner", "plan my way")
    assert store.catalog.delete_skill("dba") is True
    store.close()
    store = Store.open(path)  # the next start
    try:
        planner, dba = store.catalog.skill("planner"), store.catalog.skill("dba")
        assert planner is not None and (planner.description, planner.patch) == ("my planner", "plan my way")
        assert dba is not None and dba.description == "Careful steward of SQLite databases"
    finally:
        store.close()


def test_a_skill_is_found_by_name_or_id_and_renamed_in_place(store: Store) -> None:
    store.catalog.save_skill("writer", "writes docs", "be terse")
    writer = store.catalog.skill("writer")
    assert writer is not None and store.catalog.skill(str(writer.id)) == writer
    store.catalog.count_activation("writer")
    store.catalog.count_activation("writer")
    store.catalog.rename_skill(writer.id, "editor")
    edited = store.catalog.skill("editor")
    assert edited is not None and (edited.id, edited.activation_count, edited.patch) == (writer.id, 2, "be terse")
    assert store.catalog.skill("writer") is None
    assert store.catalog.skill("9" * 30) is None  # an id no integer column holds
    assert store.catalog.delete_skill("writer") is False


def test_tools_are_registered_counted_and_disabled_by_name(store: Store) -> None:
    specs = [ToolSpec("read_file", "reads", {"type": "object"}), ToolSpec("grep", "finds", {"type": "object"})]
    store.catalog.register_tools(specs)
    store.catalog.register_tools([ToolSpec("grep", "finds text", {"type": "object", "properties": {}})])
    assert store.db.scalar("SELECT description FROM tools WHERE name='grep'") == "finds text"
    for name in ("grep", "read_file", "grep", "no_such_tool"):
        store.catalog.count_tool_call(name)
    assert store.catalog.tool_counts() == [("grep", 2), ("read_file", 1)]
    assert store.catalog.set_tool_enabled("grep", False) is True
    assert store.catalog.set_tool_enabled("no_such_tool", False) is False
    assert store.catalog.disabled_tools() == {"grep"}
    store.catalog.register_tools(specs)  # registering again at the next start keeps the user's choice
    assert store.catalog.disabled_tools() == {"grep"}
    store.catalog.set_tool_enabled("grep", True)
    assert store.catalog.disabled_tools() == set()
