"""Where slop looks for the project's config and ledger: the git top level above the
folder it starts in (a worktree's `.git` file counts), and the `.slop/` folder it makes
there, kept out of the user's repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from slop.errors import ConfigError
from slop.settings import default_db_path, prepare_db_dir, project_root, user_home


def test_the_git_top_level_above_a_subfolder_is_the_project(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    deep = tmp_path / "repo" / "src" / "pkg" / "sub"
    deep.mkdir(parents=True)
    assert project_root(deep) == (tmp_path / "repo").resolve()


def test_a_worktree_whose_git_is_a_file_is_a_project_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "main" / ".git").mkdir(parents=True)
    worktree = tmp_path / "main" / "wt" / "feature"
    worktree.mkdir(parents=True)
    (worktree / ".git").write_text("gitdir: ../../.git/worktrees/feature\n")
    assert project_root(worktree / ".") == worktree.resolve()


def test_outside_any_repository_the_folder_itself_is_the_project(tmp_path: Path) -> None:
    lone = tmp_path / "scratch"
    lone.mkdir()
    assert project_root(lone) == lone.resolve()


def test_the_ledger_folder_is_private_and_ignored_by_git(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull})
    db = default_db_path(root)
    assert db == root / ".slop" / "slop.db"
    prepare_db_dir(db)
    assert (root / ".slop").stat().st_mode & 0o777 == 0o700
    db.write_text("")  # what the ledger would be
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True, text=True, check=True
    )
    assert status.stdout == ""  # nothing of slop's shows up in the user's repository
    prepare_db_dir(db)  # a second start keeps the user's own .gitignore edits
    (root / ".slop" / ".gitignore").write_text("# mine\n*\n")
    prepare_db_dir(db)
    assert (root / ".slop" / ".gitignore").read_text() == "# mine\n*\n"


def test_a_ledger_folder_of_the_user_s_choosing_is_only_created(tmp_path: Path) -> None:
    db = tmp_path / "ledgers" / "work.db"
    prepare_db_dir(db)
    assert db.parent.is_dir() and not (db.parent / ".gitignore").exists()


def test_a_ledger_folder_that_cannot_be_made_says_to_pass_db(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    db = blocker / "sub" / "slop.db"
    with pytest.raises(ConfigError) as caught:
        prepare_db_dir(db)
    message = str(caught.value)
    assert message.startswith(f"cannot use {db} as the ledger: its folder {db.parent} cannot be created (")
    assert message.endswith("); pass --db with a path in a writable folder")


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"SLOP_HOME": "/data/slop-home"}, "/data/slop-home"),
        ({"XDG_DATA_HOME": "/xdg/data"}, "/xdg/data/slop"),
        ({"SLOP_HOME": "/a", "XDG_DATA_HOME": "/b"}, "/a"),
    ],
)
def test_user_files_live_in_slop_home_else_the_data_folder(env: dict[str, str], expected: str) -> None:
    assert user_home(env) == Path(expected)


def test_without_either_the_user_files_are_under_the_home_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    assert user_home({}) == Path("/home/someone/.local/share/slop")
