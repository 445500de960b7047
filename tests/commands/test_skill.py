"""/skill: list, activate/deactivate (several, by id, per session), add/edit/delete via the editor."""

from __future__ import annotations

import pytest

from slop.commands.skill import format_skill, parse_skill
from slop.errors import CommandError
from tests.commands.conftest import Harness


def _active(harness: Harness, session: str = "default") -> tuple[str, ...]:
    return harness.store.sessions.get(session).active_skills


def _count(harness: Harness, name: str) -> int:
    skill = harness.store.catalog.skill(name)
    assert skill is not None
    return skill.activation_count


def test_parse_skill_format() -> None:
    text = "<!-- hint -->\n#name:  rust_expert \n# Description:  Idiomatic   Rust\n\n# Heading\nUse clippy.\n"
    parsed = parse_skill(text)
    assert (parsed.name, parsed.description) == ("rust_expert", "Idiomatic   Rust")
    assert parsed.patch == "# Heading\nUse clippy."
    old_style = "# Name: x\n# Description: d\n\n# System Prompt Patch\nBe brief.\n"
    assert parse_skill(old_style).patch == "Be brief."
    assert parse_skill(format_skill("a", "b", "c")) == parse_skill("# Name: a\n# Description: b\n\nc")


def test_list_shows_the_shipped_skills(harness: Harness) -> None:
    harness.run("/skill list")
    _, columns, rows = harness.io.last_table()
    assert columns == ["ID", "Name", "Description", "Activations", "Active"]
    assert {"planner", "code_reviewer", "dba", "python_expert"} <= {r[1] for r in rows}


def test_activate_several_and_by_id(harness: Harness) -> None:
    dba = harness.store.catalog.skill("dba")
    assert dba is not None
    harness.run("/skill activate planner python_expert")
    harness.run(f"/skill activate {dba.id}")
    assert _active(harness) == ("planner", "python_expert", "dba")
    assert _count(harness, "planner") == 1 and _count(harness, "dba") == 1
    harness.run("/skill activate planner")  # already active: no second count
    assert _count(harness, "planner") == 1
    assert "already active" in harness.io.of("info")[-1]
    harness.run("/skill list")
    _, _, rows = harness.io.last_table()
    assert {r[1] for r in rows if r[4] == "●"} == {"planner", "python_expert", "dba"}


def test_active_skills_reach_the_prompt(harness: Harness) -> None:
    harness.run("/skill activate dba")
    prompt = harness.ctx.orchestrator.prompt_for("default")
    assert prompt is not None
    patch = harness.store.catalog.skill("dba").patch  # type: ignore[union-attr]
    assert patch[:40] in prompt.system_text


def test_deactivate(harness: Harness) -> None:
    harness.run("/skill activate planner dba")
    harness.run("/skill deactivate planner")
    assert _active(harness) == ("dba",)
    harness.run("/skill deactivate planner")
    assert "not active" in harness.io.of("info")[-1]


def test_active_skills_belong_to_the_session(harness: Harness) -> None:
    harness.run("/skill activate planner")
    harness.run("/session switch other")
    assert _active(harness, "other") == ()
    harness.run("/skill activate dba")
    assert _active(harness, "default") == ("planner",)
    assert _active(harness, "other") == ("dba",)


def test_unknown_skill_is_a_clear_error(harness: Harness) -> None:
    with pytest.raises(CommandError, match=r"no skill 'planer'; did you mean planner\?"):
        harness.run("/skill activate planer")
    with pytest.raises(CommandError, match="no skill '999'"):
        harness.run("/skill activate dba 999")
    assert _active(harness) == (), "nothing is activated when one name is wrong"


def test_show(harness: Harness) -> None:
    harness.run("/skill show planner")
    page = harness.io.of("markdown")[-1]
    assert "### Skill planner" in page and "not active" in page


def test_add_with_the_editor(harness: Harness) -> None:
    def write(template: str) -> str:
        assert "# Name: go_expert" in template
        return "# Name: go_expert\n# Description: Idiomatic Go\n\nRun go vet and go test after each change.\n"

    harness.io.edits.append(write)
    harness.run("/skill add go_expert")
    skill = harness.store.catalog.skill("go_expert")
    assert skill is not None
    assert skill.description == "Idiomatic Go" and skill.patch == "Run go vet and go test after each change."
    harness.run("/skill activate go_expert")
    assert _active(harness) == ("go_expert",)


def test_add_untouched_template_saves_nothing(harness: Harness) -> None:
    before = len(harness.store.catalog.skills())
    harness.io.edits.append(lambda template: template)
    harness.run("/skill add")
    assert len(harness.store.catalog.skills()) == before
    assert "nothing saved" in harness.io.of("info")[-1]


def test_add_invalid_offers_to_edit_again(harness: Harness) -> None:
    harness.io.edits.extend(
        ["# Name: planner\n# Description: dup\n\nText.\n", lambda text: text.replace("planner", "planner2")]
    )
    harness.io.confirms.append(True)
    harness.run("/skill add")
    assert "exists already" in harness.io.questions[-1]
    assert harness.io.edited[-1][0].startswith("# Name: planner\n"), "the second round shows what was written"
    assert harness.store.catalog.skill("planner2") is not None
    harness.io.edits.append("# Name: has space\n\nText.")
    harness.io.confirms.append(False)
    harness.run("/skill add")
    assert harness.store.catalog.skill("has space") is None


def test_edit_updates_and_renames_keeping_id_count_and_active_lists(harness: Harness) -> None:
    harness.run("/skill activate dba")
    dba = harness.store.catalog.skill("dba")
    assert dba is not None
    harness.io.edits.append(lambda text: text.replace("# Name: dba", "# Name: sqlite_dba") + "\nAlso VACUUM.\n")
    harness.run("/skill edit dba")
    renamed = harness.store.catalog.skill("sqlite_dba")
    assert renamed is not None and renamed.id == dba.id and renamed.activation_count == 1
    assert renamed.patch.endswith("Also VACUUM.")
    assert harness.store.catalog.skill("dba") is None
    assert _active(harness) == ("sqlite_dba",)
    assert "renamed from 'dba'" in harness.io.of("success")[-1]


def test_edit_unchanged_and_blank(harness: Harness) -> None:
    harness.io.edits.append(lambda text: text)
    harness.run("/skill edit planner")
    assert harness.io.of("info")[-1] == "no changes"
    harness.run("/skill activate planner")
    harness.io.edits.append("  \n")
    harness.io.confirms.append(True)
    harness.run("/skill edit planner")
    assert harness.store.catalog.skill("planner") is None
    assert _active(harness) == ()


def test_delete_removes_from_active_lists(harness: Harness) -> None:
    harness.run("/skill activate code_reviewer planner")
    harness.run("/skill delete code_reviewer")
    assert harness.store.catalog.skill("code_reviewer") is None
    assert _active(harness) == ("planner",)
    assert "comes back" in harness.io.of("success")[-1]
