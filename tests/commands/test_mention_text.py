"""Which `@words` of a message become attachments: existing paths only, sentence
punctuation left out, each path once, an e-mail address or a decorator left alone, and
a binary file refused before anything is sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from slop.commands.mentions import MAX_MENTIONS, attach_mentions, mentioned_paths
from slop.errors import CommandError
from tests.commands.conftest import Harness


@pytest.fixture
def files(harness: Harness) -> Path:
    root = harness.root
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / "README.md").write_text("# readme\n")
    return root


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("look at @src/main.py", ["src/main.py"]),
        ("(see @README.md)", ["README.md)"]),  # the punctuation goes when the path is looked up
        ("mail me@example.com about it", []),  # not after a blank: an address
        ("@dataclass\nclass X: ...", ["dataclass"]),  # looks like one, but names no file: left as text
        ("@a @a @b", ["a", "b"]),
        ("'@quoted' and [@bracketed]", ["quoted'", "bracketed]"]),
    ],
)
def test_the_mentioned_words(text: str, found: list[str]) -> None:
    assert mentioned_paths(text) == found


def test_punctuation_after_a_path_is_not_part_of_it(harness: Harness, files: Path) -> None:
    text, attached = attach_mentions(harness.ctx, "Why does @src/main.py, and @README.md? fail")
    assert [(a.path, a.kind) for a in attached] == [("src/main.py", "file"), ("README.md", "file")]
    assert text.startswith("Why does @src/main.py, and @README.md? fail\n\n")  # the user's words stay as typed
    assert text.count('<attachment path="src/main.py" kind="file">') == 1


def test_a_path_mentioned_twice_is_attached_once(harness: Harness, files: Path) -> None:
    _, attached = attach_mentions(harness.ctx, "@README.md then again @README.md")
    assert [a.path for a in attached] == ["README.md"]


def test_words_that_name_no_file_leave_the_message_as_it_is(harness: Harness, files: Path) -> None:
    text = "use @dataclass and mail me@example.com or @nobody"
    assert attach_mentions(harness.ctx, text) == (text, [])


def test_a_directory_is_attached_as_its_listing(harness: Harness, files: Path) -> None:
    _, [listing] = attach_mentions(harness.ctx, "what is in @src")
    assert (listing.path, listing.kind) == ("src/", "directory")
    assert "main.py" in listing.body


def test_a_binary_file_is_refused_and_nothing_is_sent(harness: Harness, files: Path) -> None:
    (files / "logo.bin").write_bytes(b"\x00\x01\x02binary\x00")
    with pytest.raises(CommandError) as caught:
        attach_mentions(harness.ctx, "what is @logo.bin")
    assert str(caught.value).startswith("@logo.bin: ") and str(caught.value).endswith("(nothing sent)")


def test_at_most_twenty_mentions_are_attached(harness: Harness, files: Path) -> None:
    for i in range(MAX_MENTIONS + 5):
        (files / f"f{i}.txt").write_text(f"file {i}\n")
    _, attached = attach_mentions(harness.ctx, " ".join(f"@f{i}.txt" for i in range(MAX_MENTIONS + 5)))
    assert len(attached) == MAX_MENTIONS == 20
    assert attached[-1].path == f"f{MAX_MENTIONS - 1}.txt"
