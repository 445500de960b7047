"""/session: switch, list, clone (with /undo isolation), remove, clear, scratchpad."""

from __future__ import annotations

import pytest

from slop.errors import CommandError, SlopError
from tests.commands.conftest import Harness


def test_switch_creates_and_changes_the_current_session(harness: Harness) -> None:
    assert harness.ctx.session == "default"
    harness.run("/session switch feature-x")
    assert harness.ctx.session == "feature-x"
    assert harness.store.sessions.exists("feature-x")
    (line,) = harness.io.of("success")
    assert "new session 'feature-x'" in line and "\n" not in line


def test_switch_summarises_an_existing_session(harness: Harness) -> None:
    harness.add_turn("hello", "hi there", session="work", state="### STATE\nGoal: test")
    harness.run("/session switch work")
    (line,) = harness.io.of("success")
    assert "switched to session 'work'" in line
    assert "2 messages in 1 group" in line and "STATE: yes" in line


def test_switch_to_the_current_session_says_so(harness: Harness) -> None:
    harness.run("/session switch default")
    assert "already here" in harness.io.of("info")[-1]


@pytest.mark.parametrize("name", ["session[1]", "session' OR '1'='1", "with space", "ünïcode"])
def test_switch_takes_names_literally(harness: Harness, name: str) -> None:
    harness.run(f"/session switch {name}")
    assert harness.ctx.session == name
    assert harness.store.sessions.exists(name)


@pytest.mark.parametrize("name", ["bad\x07name", "tab\tname", "x" * 101])
def test_switch_rejects_bad_names(shared_harness: Harness, name: str) -> None:
    with pytest.raises(CommandError) as caught:
        shared_harness.run(f"/session switch {name}")
    assert caught.value.usage.startswith("/session switch")
    assert shared_harness.ctx.session == "default"


def test_list_marks_the_current_session(harness: Harness) -> None:
    harness.add_turn("q", "a", session="other")
    harness.run("/session switch mine")
    harness.run("/session list")
    _, columns, rows = harness.io.last_table()
    assert columns[1:3] == ["Session", "Messages"]
    marked = {row[1]: row[0] for row in rows}
    assert marked["mine"] == "●" and marked["other"] == ""
    assert next(r for r in rows if r[1] == "other")[2] == "2"


def _fill(harness: Harness) -> tuple[str, str]:
    g1 = harness.add_turn("first question", "first answer", state="### STATE\nGoal: one")
    g2 = harness.add_turn("second question", "second answer", state="### STATE\nGoal: two")
    harness.store.sessions.set_scratchpad("default", "- [ ] plan")
    harness.store.sessions.update_settings("default", throttle=2.5)
    harness.store.sessions.set_context_size("default", 7)
    harness.store.sessions.set_active_skills("default", ["planner"])
    return g1, g2


def test_clone_copies_everything_and_switches(harness: Harness) -> None:
    g1, g2 = _fill(harness)
    harness.run("/session clone copy")
    assert harness.ctx.session == "copy"
    info = harness.store.sessions.get("copy")
    assert info.scratchpad == "- [ ] plan" and info.throttle == 2.5 and info.context_size == 7
    assert info.active_skills == ("planner",)
    assert harness.store.sessions.state("copy") == "### STATE\nGoal: two"
    assert harness.store.messages.count("copy") == 4
    copy_gids = harness.store.messages.last_group_ids("copy", 0)
    assert len(copy_gids) == 2 and not set(copy_gids) & {g1, g2}, "a clone needs fresh group ids"
    assert "cloned 'default' to 'copy'" in harness.io.of("success")[-1]


def test_undo_in_a_clone_never_touches_the_source_and_vice_versa(harness: Harness) -> None:
    _fill(harness)
    harness.run("/session clone copy")
    harness.run("/undo")
    assert harness.store.messages.count("copy") == 2
    assert harness.store.sessions.state("copy") == "### STATE\nGoal: one"
    assert harness.store.messages.count("default") == 4
    assert harness.store.sessions.state("default") == "### STATE\nGoal: two"
    harness.run("/session switch default")
    harness.run("/undo")
    harness.run("/undo")
    assert harness.store.messages.count("default") == 0
    assert harness.store.messages.count("copy") == 2


def test_clone_refuses_an_existing_name(harness: Harness) -> None:
    harness.add_turn("q", "a", session="taken")
    with pytest.raises(SlopError, match="already exists"):
        harness.run("/session clone taken")
    assert harness.ctx.session == "default"


def test_clone_of_a_fresh_session_works(harness: Harness) -> None:
    harness.run("/session clone empty-copy")
    assert harness.ctx.session == "empty-copy"


def test_remove_asks_first(harness: Harness) -> None:
    harness.add_turn("q", "a", session="old")
    harness.io.confirms.append(False)
    harness.run("/session remove old")
    assert "Delete session 'old'" in harness.io.questions[-1]
    assert harness.store.messages.count("old") == 2
    harness.io.confirms.append(True)
    harness.run("/session remove old")
    assert harness.store.messages.count("old") == 0
    assert not harness.store.sessions.exists("old")


def test_removing_the_current_session_returns_to_default(harness: Harness) -> None:
    harness.run("/session switch temp")
    harness.add_turn("q", "a")
    harness.io.confirms.append(True)
    harness.run("/session remove temp")
    assert harness.ctx.session == "default"
    assert "back in session 'default'" in harness.io.of("success")[-1]


def test_remove_unknown_session_is_an_error(harness: Harness) -> None:
    with pytest.raises(CommandError, match="no session 'ghost'"):
        harness.run("/session remove ghost")


def test_clear_asks_first(harness: Harness) -> None:
    _fill(harness)
    harness.io.confirms.append(False)
    harness.run("/session clear")
    assert harness.store.messages.count("default") == 4
    harness.io.confirms.append(True)
    harness.run("/session clear")
    assert harness.store.messages.count("default") == 0
    assert harness.store.sessions.scratchpad("default") == ""
    assert harness.store.sessions.state("default") == ""


def test_scratchpad_read_and_edit(harness: Harness) -> None:
    harness.run("/session scratchpad read")
    assert "empty" in harness.io.of("info")[-1]
    harness.io.edits.append("# Plan\n- [ ] step one\n")
    harness.run("/session scratchpad edit")
    assert harness.io.edited[-1] == ("", ".md")
    assert harness.store.sessions.scratchpad("default") == "# Plan\n- [ ] step one\n"
    harness.run("/session scratchpad read")
    assert "step one" in harness.io.of("markdown")[-1]
    harness.io.edits.append(lambda text: text)
    harness.run("/session scratchpad edit")
    assert harness.io.of("info")[-1] == "no changes"
    harness.io.edits.append("   \n")
    harness.io.confirms.append(True)
    harness.run("/session scratchpad edit")
    assert harness.store.sessions.scratchpad("default") == ""


def test_scratchpad_editor_failure_changes_nothing(harness: Harness) -> None:
    harness.store.sessions.set_scratchpad("default", "keep me")
    harness.io.edits.append(None)
    harness.run("/session scratchpad edit")
    assert harness.store.sessions.scratchpad("default") == "keep me"
