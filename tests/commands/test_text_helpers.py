"""The text helpers commands share: a tool result put in a code fence comes out of any
markdown reader exactly as it went in (exports, /review, !command outputs), names are
checked the same way everywhere, and R: comments are found where a reviewer writes them."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from slop.commands.helpers import check_name, fence, review_comments, snippet, strip_header
from slop.errors import CommandError


def fenced_content(markdown: str) -> tuple[str, str]:
    """(info string, content) of the one code fence a markdown reader finds in `markdown`."""
    [token] = [t for t in MarkdownIt().parse(markdown) if t.type == "fence"]
    return token.info, token.content


@pytest.mark.parametrize(
    "text",
    [
        "plain output",
        "a ``` fence inside",
        "````\nfour backticks on their own line\n````",
        "`` two ` one",
        "```python\nprint('nested block')\n```\n\nafter it",
        "trailing newlines\n\n\n",
        "# not a heading\n- not a list\n<b>not html</b>",
    ],
)
def test_a_fenced_text_reads_back_exactly(text: str) -> None:
    info, content = fenced_content(fence(text, "text"))
    assert info == "text"
    assert content == text.rstrip("\n") + "\n"


def test_text_after_the_fence_is_not_swallowed_by_it() -> None:
    block = fence("has ````` five backticks")
    tokens = MarkdownIt().parse(block + "\n\nnext paragraph")
    assert [t.type for t in tokens][-3:] == ["paragraph_open", "inline", "paragraph_close"]
    assert tokens[-2].content == "next paragraph"


@pytest.mark.parametrize(
    ("text", "width", "shown"),
    [
        ("short", 60, "short"),
        ("  many\n\nlines\tand   spaces ", 60, "many lines and spaces"),
        ("a" * 80, 10, "a" * 9 + "…"),
        ("word " * 10, 12, "word word w…"),
        ("word " * 10, 11, "word word…"),  # no blank before the ellipsis
    ],
)
def test_snippet_is_one_line_cut_with_an_ellipsis(text: str, width: int, shown: str) -> None:
    assert snippet(text, width) == shown
    assert len(snippet(text, width)) <= width


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("", "missing session name"),
        ("   ", "missing session name"),
        ("x" * 101, "the session name is too long (101 characters, at most 100)"),
        ("bell\x07", "the session name contains a control character ('\\x07'); use printable characters"),
        ("zero\u200bwidth", "contains a control character ('\\u200b')"),
        ("line\u2028sep", "contains a control character ('\\u2028')"),
    ],
)
def test_a_bad_name_is_refused_with_why(name: str, says: str) -> None:
    with pytest.raises(CommandError) as caught:
        check_name(name, "session", "/session switch NAME")
    assert says in str(caught.value)
    assert caught.value.usage == "/session switch NAME"


@pytest.mark.parametrize("name", ["feature-x", "  padded  ", "ünïcödé", "with space", "x" * 100])
def test_a_good_name_comes_back_trimmed(name: str) -> None:
    assert check_name(name, "skill", "/skill add NAME") == name.strip()


def test_review_comments_are_the_lines_starting_with_r_colon() -> None:
    edited = (
        "diff --git a/x.py b/x.py\n"
        "+    retry = 3\n"
        "R: why three retries?\n"
        "   R:   name this constant  \n"
        "-R: a removed line that happens to say R: is code, not a comment\n"
        " context line mentioning R: in the middle\n"
        "R:\n"
    )
    assert review_comments(edited) == ["why three retries?", "name this constant", ""]


def test_the_instruction_header_is_taken_off_what_the_user_saved() -> None:
    header = "# Write R: lines under what you want changed.\n# Save and quit to send."
    assert strip_header(f"{header}\n\ndiff body\n", header) == "diff body\n"
    # the user edited the header itself: every leading comment and blank line still goes
    assert strip_header("# my own note\n\n# another\ndiff body\n# kept", header) == "diff body\n# kept"
    assert strip_header("diff body", "") == "diff body"
