"""STATE extraction edge cases and memo keyword matching."""

from __future__ import annotations

import pytest

from slop.context.state import extract_state
from slop.store.memos import Memos, extract_keywords

GOOD = "### STATE\nGoal: fix bug\nContext: app.py\nResolved: none\nTechnical Anchors: port 8080"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Answer.\n\n" + GOOD, GOOD),
        ("Answer.\n\n" + GOOD + "\n\n## Next steps\nmore", GOOD),
        ("Answer.\n\n" + GOOD + "\n---\nFooter", GOOD),
        ("no state here", None),
        ("### STATEMENT\nGoal: x", None),
        ("We keep a ### STATE block in prose. Goal: x", None),
        ("### STATE\n\n", None),
        ("### STATE\njust words without fields", None),
        ("### STATE\nGoal: old\n\ntext\n\n### STATE\nGoal: new", "### STATE\nGoal: new"),
        (
            "### STATE\nGoal: a\n```\n# comment in code\n```\nContext: b",
            "### STATE\nGoal: a\n```\n# comment in code\n```\nContext: b",
        ),
        ("```md\n### STATE\nGoal: inside a fence\n```", None),
        ("## STATE\nGoal: level two", "### STATE\nGoal: level two"),
    ],
)
def test_extract_state(text: str, expected: str | None) -> None:
    assert extract_state(text) == expected


def test_keywords_drop_stop_words_and_short_words() -> None:
    words = extract_keywords("The quick brown fox jumps-over the lazy dog, arch-decision.")
    assert {"quick", "brown", "jumps", "over", "arch", "decision"} <= set(words)
    assert not {"the", "dog", "fox"} & set(words)


def test_memo_matching_ranks_by_hits_and_handles_compound_tags(store) -> None:  # type: ignore[no-untyped-def]
    memos = Memos(store.db)
    a = memos.add("use WAL mode", ["sqlite", "database"])
    b = memos.add("ADR 4", ["arch-decision"])
    memos.add("unrelated", ["frontend"])
    assert [m.id for m in memos.find(["the database is locked"])] == [a]
    assert [m.id for m in memos.find(["arch"])] == [b]
    assert [m.id for m in memos.find(["sqlite database decision"])] == [a, b]
    assert memos.find(["the and of"]) == []
    assert len(memos.find(["sqlite"], limit=5)) == 1
