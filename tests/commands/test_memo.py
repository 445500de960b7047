"""/memo: editor format, add (editor and inline), search, edit (blank deletes), show, remove."""

from __future__ import annotations

import pytest

from slop.commands.memo import format_memo, parse_memo
from slop.errors import CommandError
from tests.commands.conftest import Harness


def test_parse_is_tolerant_and_normalises_tags() -> None:
    tags, content = parse_memo("#tags:Python ,  Web Dev,, python\n\n\n  Use uv.\n\nAlways.  \n")
    assert tags == ["python", "web-dev"]
    assert content == "Use uv.\n\nAlways."
    assert parse_memo("<!-- hint -->\n# TAGS : a\ntext") == (["a"], "text")
    assert parse_memo("no header at all") == ([], "no header at all")


def test_format_and_parse_round_trip() -> None:
    text = format_memo(["arch-decision", "sqlite"], "WAL mode, one writer.\n")
    assert text.startswith("# Tags: arch-decision, sqlite\n")
    assert parse_memo(text) == (["arch-decision", "sqlite"], "WAL mode, one writer.")


def test_add_with_the_editor(harness: Harness) -> None:
    def write(template: str) -> str:
        assert "# Tags:" in template
        return template.replace("# Tags: ", "# Tags: Build, CI") + "Run make ci before pushing.\n"

    harness.io.edits.append(write)
    harness.run("/memo add")
    (memo,) = harness.ctx.memos.all()
    assert memo.tags == ("build", "ci") and memo.content == "Run make ci before pushing."
    assert "saved with tags build, ci" in harness.io.of("success")[-1]


def test_add_with_an_untouched_template_saves_nothing(harness: Harness) -> None:
    harness.io.edits.append(lambda template: template)
    harness.run("/memo add")
    assert harness.ctx.memos.all() == []
    assert "nothing saved" in harness.io.of("info")[-1]


def test_add_inline(harness: Harness) -> None:
    harness.run("/memo add --tags python,packaging Use uv, not pip, in this project.")
    (memo,) = harness.ctx.memos.all()
    assert memo.tags == ("python", "packaging")
    assert memo.content == "Use uv, not pip, in this project."


def test_add_inline_hashtags_are_tags(harness: Harness) -> None:
    harness.run("/memo add the #staging port is 8443 #infra #ports")
    (memo,) = harness.ctx.memos.all()
    assert memo.tags == ("staging", "infra", "ports")
    assert memo.content == "the #staging port is 8443"


def test_a_plain_sentence_is_all_content(harness: Harness) -> None:
    # changed on purpose (issue 12): the first word used to become the tag ("remember")
    harness.run("/memo add remember that the port is 8443")
    (memo,) = harness.ctx.memos.all()
    assert memo.tags == () and memo.content == "remember that the port is 8443"
    assert "without tags" in harness.io.of("warning")[-1]


def test_add_inline_needs_text(harness: Harness) -> None:
    with pytest.raises(CommandError) as caught:
        harness.run("/memo add --tags onlytags")
    assert caught.value.usage.startswith("/memo add")


def _three(harness: Harness) -> None:
    memos = harness.ctx.memos
    memos.add("SQLite runs in WAL mode with one writer.", ["sqlite", "arch-decision"])
    memos.add("Deploys go through the staging cluster first.", ["deploy"])
    memos.add("The tokenizer cache lives in ~/.cache/slop.", ["cache"])


def test_search_by_tag(harness: Harness) -> None:
    _three(harness)
    harness.run("/memo search arch")  # part of the compound tag arch-decision
    _, _, rows = harness.io.last_table()
    assert [r[0] for r in rows] == ["1"]
    harness.run("/memo search deploy, cache")
    _, _, rows = harness.io.last_table()
    assert sorted(r[0] for r in rows) == ["2", "3"]


def test_search_by_keyword_in_the_text(harness: Harness) -> None:
    _three(harness)
    harness.run("/memo search staging cluster")
    _, _, rows = harness.io.last_table()
    assert [r[0] for r in rows] == ["2"]
    harness.run("/memo search nothing-like-this")
    assert "no memo matches" in harness.io.of("info")[-1]


def test_list_show_and_remove(harness: Harness) -> None:
    harness.run("/memo list")
    assert "no memos yet" in harness.io.of("info")[-1]
    _three(harness)
    harness.run("/memo list")
    _, columns, rows = harness.io.last_table()
    assert columns[:3] == ["ID", "Tags", "Memo"] and len(rows) == 3
    harness.run("/memo show 2")
    assert "staging cluster" in harness.io.of("markdown")[-1] and "`deploy`" in harness.io.of("markdown")[-1]
    harness.run("/memo remove 2")
    assert [m.id for m in harness.ctx.memos.all()] == [1, 3]
    with pytest.raises(CommandError, match="no memo 2"):
        harness.run("/memo delete 2")


def test_edit_changes_tags_and_text(harness: Harness) -> None:
    _three(harness)
    harness.io.edits.append(lambda text: text.replace("deploy", "deploy, Release Process") + "Also tag it.\n")
    harness.run("/memo edit 2")
    memo = harness.ctx.memos.get(2)
    assert memo is not None
    assert memo.tags == ("deploy", "release-process")
    assert memo.content.endswith("Also tag it.")
    assert harness.io.edited[-1][0].startswith("# Tags: deploy\n")


def test_edit_unchanged_says_no_changes(harness: Harness) -> None:
    _three(harness)
    harness.io.edits.append(lambda text: text.replace("# Tags: cache", "#Tags:   cache  ") + "\n\n")
    harness.run("/memo edit 3")
    assert harness.io.of("info")[-1] == "no changes"


def test_edit_blank_deletes_after_confirm(harness: Harness) -> None:
    _three(harness)
    harness.io.edits.append("")
    harness.io.confirms.append(False)
    harness.run("/memo edit 1")
    assert harness.ctx.memos.get(1) is not None
    harness.io.edits.append("# Tags: sqlite\n\n   \n")
    harness.io.confirms.append(True)
    harness.run("/memo edit 1")
    assert harness.ctx.memos.get(1) is None
    assert "Delete memo 1" in harness.io.questions[-1]


def test_memos_are_shared_across_sessions(harness: Harness) -> None:
    harness.run("/memo add --tags infra Everything runs on Kubernetes.")
    harness.run("/session switch elsewhere")
    harness.run("/memo list")
    _, _, rows = harness.io.last_table()
    assert len(rows) == 1


def test_search_finds_short_tags_exactly(harness: Harness) -> None:
    harness.run("/memo add --tags uv,ci Prefer the lock file.")
    harness.run("/memo add Nothing to see. #other")
    harness.run("/memo search uv")
    _, _, rows = harness.io.last_table()
    assert [r[0] for r in rows] == ["1"]
