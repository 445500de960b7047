"""The user-level memo store: an older memo file gains the origin columns and keeps its
memos, a memo with broken tags still reads and is still found, and edits of memos that
are gone say so."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from slop.store import open_memo_store
from slop.store.memos import extract_keywords, normalise_tags


def old_memo_file(path: Path) -> None:
    """A memo database as std::slop (and early slop) wrote it: no source, project or announced."""
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE llm_memos (id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL,"
        " semantic_tags TEXT NOT NULL, created_at DATETIME DEFAULT CURRENT_TIMESTAMP)"
    )
    conn.execute("INSERT INTO llm_memos(content, semantic_tags) VALUES ('use tabs', ?)", (json.dumps(["style"]),))
    conn.commit()
    conn.close()


def hand_edit(path: Path, tags: str, memo_id: int) -> None:
    """The user fixes a memo's tags with the sqlite3 shell."""
    conn = sqlite3.connect(path)
    conn.execute("UPDATE llm_memos SET semantic_tags=? WHERE id=?", (tags, memo_id))
    conn.commit()
    conn.close()


def test_an_older_memo_file_gains_the_origin_columns_and_keeps_its_memos(tmp_path: Path) -> None:
    path = tmp_path / "memos.db"
    old_memo_file(path)
    memos = open_memo_store(str(path))
    [old] = memos.all()
    assert (old.content, old.tags, old.source, old.project) == ("use tabs", ("style",), "user", "")
    new = memos.add("prefer uv", ["python"], source="model", project="/work/app")
    assert memos.get(new) is not None and memos.get(new).source == "model"  # type: ignore[union-attr]
    assert [m.id for m in memos.take_unannounced(memos.all())] == [new]  # the old memo needs no announcement
    reopened = open_memo_store(str(path))  # opening again changes nothing
    assert [m.content for m in reopened.all()] == ["use tabs", "prefer uv"]


def test_a_memo_with_hand_edited_tags_still_reads_and_is_found(tmp_path: Path) -> None:
    memos = open_memo_store(str(tmp_path / "memos.db"))
    memo_id = memos.add("deploy with make", ["deploy"])
    hand_edit(tmp_path / "memos.db", "release, Deploy Steps", memo_id)
    memos.add("unrelated", ["style"])
    [memo] = [m for m in memos.all() if m.id == memo_id]
    assert memo.tags == ("release", "deploy-steps")
    assert [m.id for m in memos.find(["how do we deploy?"])] == [memo_id]


def test_tags_that_are_a_json_string_not_a_list_are_one_tag(tmp_path: Path) -> None:
    memos = open_memo_store(str(tmp_path / "memos.db"))
    memo_id = memos.add("x", ["placeholder"])
    hand_edit(tmp_path / "memos.db", json.dumps("Build Tools"), memo_id)
    assert memos.get(memo_id).tags == ("build-tools",)  # type: ignore[union-attr]


def test_editing_or_removing_a_memo_that_is_gone_says_so(tmp_path: Path) -> None:
    memos = open_memo_store(str(tmp_path / "memos.db"))
    memo_id = memos.add("temporary", ["tmp"])
    assert memos.update(memo_id, "changed", ["Tmp", "tmp ", "Other Tag"]) is True
    assert memos.get(memo_id).tags == ("tmp", "other-tag")  # type: ignore[union-attr]
    assert memos.remove(memo_id) is True
    assert memos.remove(memo_id) is False
    assert memos.update(memo_id, "again", ["x"]) is False
    assert memos.get(memo_id) is None


def test_the_best_matches_come_first_then_the_newest(tmp_path: Path) -> None:
    memos = open_memo_store(str(tmp_path / "memos.db"))
    one = memos.add("sqlite notes", ["sqlite"])
    both = memos.add("sqlite migrations", ["sqlite", "migrations"])
    newer = memos.add("more sqlite", ["sqlite"])
    found = memos.find(["sqlite migrations"])
    assert [m.id for m in found] == [both, newer, one]
    assert [m.id for m in memos.find(["sqlite"], limit=2)] == [newer, both]  # a tie: the newest first


def test_a_question_of_only_filler_words_finds_nothing(tmp_path: Path) -> None:
    memos = open_memo_store(str(tmp_path / "memos.db"))
    memos.add("anything", ["this", "that"])
    assert memos.find(["what is this and that?"]) == []  # stop words are no keywords, tagged or not
    assert memos.find(["   ", "a", "it"]) == []


def test_keywords_and_tags_are_spelled_one_way() -> None:
    # lower-cased, split at punctuation and dashes, first occurrence first; short and stop words out
    assert extract_keywords("Fix the PARSER: parser-errors (again), then the parser") == ["parser", "errors"]
    assert normalise_tags([" Build Tools ", "build tools", "", "CI"]) == ["build-tools", "ci"]


@pytest.mark.parametrize(
    "question",
    ["how do I run the tests?", "run the tests!", "what about `tests`", "**tests** fail", "see #tests"],
)
def test_a_question_s_punctuation_does_not_hide_its_keywords(tmp_path: Path, question: str) -> None:
    memos = open_memo_store(str(tmp_path / "memos.db"))
    memo_id = memos.add("run tests with `uv run pytest`", ["tests"])
    assert [m.id for m in memos.find([question])] == [memo_id]
