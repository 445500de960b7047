"""A screenshot dragged into the terminal arrives as a path, written the way the terminal
writes it (quoted, or with escaped spaces); slop sends no images, so it asks first. Only
existing image files count: a word that merely ends in .png is not a question."""

from __future__ import annotations

from pathlib import Path

import pytest

from slop.commands.paste import image_paths, image_question


@pytest.fixture
def shots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "diagram.png").write_bytes(b"\x89PNG")
    desktop = tmp_path / "home" / "Desktop"
    desktop.mkdir(parents=True)
    (desktop / "Screen Shot 1.PNG").write_bytes(b"\x89PNG")
    (desktop / "photo.jpeg").write_bytes(b"\xff\xd8")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return root


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("look at docs/diagram.png please", ["diagram.png"]),
        ("what is wrong here? '{home}/Desktop/Screen Shot 1.PNG'", ["Screen Shot 1.PNG"]),
        ('see "{home}/Desktop/Screen Shot 1.PNG"', ["Screen Shot 1.PNG"]),
        ("see {home}/Desktop/Screen\\ Shot\\ 1.PNG now", ["Screen Shot 1.PNG"]),
        ("~/Desktop/photo.jpeg and docs/diagram.png and ~/Desktop/photo.jpeg", ["photo.jpeg", "diagram.png"]),
    ],
)
def test_an_image_path_written_as_a_terminal_pastes_it_is_found(shots: Path, text: str, names: list[str]) -> None:
    home = shots.parent / "home"
    found = image_paths(text.format(home=home), shots)
    assert [p.name for p in found] == names
    assert all(p.is_absolute() and p.is_file() for p in found)


@pytest.mark.parametrize(
    "text",
    [
        "rename logo.png to icon.png",  # no such files
        "docs/diagram.png.bak is a backup",  # not an image suffix
        "the docs folder",
        "an unclosed 'quote.png",
        "x" * 5000 + ".png",  # a name too long for the file system
    ],
)
def test_words_that_are_not_existing_images_ask_nothing(shots: Path, text: str) -> None:
    assert image_paths(text, shots) == []
    assert image_question(text, shots) is None


def test_the_question_names_the_images_and_says_the_model_sees_only_the_path(shots: Path) -> None:
    question = image_question("docs/diagram.png", shots)
    assert question == (
        f"This message names an image ({shots / 'docs' / 'diagram.png'}); slop cannot send images, "
        "so the model would see only the path. Send it anyway?"
    )


def test_many_images_are_named_three_then_counted(shots: Path) -> None:
    for i in range(5):
        (shots / f"s{i}.gif").write_bytes(b"GIF8")
    question = image_question(" ".join(f"s{i}.gif" for i in range(5)), shots)
    assert question is not None and "s2.gif and 2 more);" in question and "s3.gif" not in question
