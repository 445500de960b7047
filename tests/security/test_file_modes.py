"""The ledger, its WAL/SHM, the memos and slop's folders are readable only by the user,
whatever the umask, and looser ones left by an older slop are tightened on open."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from slop.settings import private_file, tighten

SLOP = [sys.executable, "-m", "slop"]


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def _run_slop(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE", "SLOP_"))}
    env["SLOP_HOME"] = str(home)
    return subprocess.run(
        [*SLOP, *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.umask(0o022),  # the usual umask: files 0644, folders 0755
    )


def test_a_fresh_project_gets_private_files(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    (project / ".git").mkdir()
    done = _run_slop(project, home, "--prompt", "/memo add build run make")
    assert done.returncode == 0, done.stderr
    slop_dir = project / ".slop"
    assert _mode(slop_dir) == 0o700 and _mode(home) == 0o700
    assert _mode(slop_dir / "slop.db") == 0o600 and _mode(home / "memos.db") == 0o600
    # WAL and SHM files, while a connection holds them open
    conn = sqlite3.connect(slop_dir / "slop.db")
    conn.execute("SELECT count(*) FROM messages").fetchall()
    for suffix in ("-wal", "-shm"):
        assert _mode(slop_dir / f"slop.db{suffix}") == 0o600
    conn.close()


def test_looser_files_are_tightened_when_slop_opens_them(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".slop").mkdir(parents=True)
    home.mkdir()
    assert _run_slop(project, home, "--prompt", "/message list").returncode == 0
    for path, mode in ((project / ".slop", 0o755), (home, 0o755), (project / ".slop" / "slop.db", 0o644)):
        os.chmod(path, mode)
    os.chmod(home / "memos.db", 0o666)
    assert _run_slop(project, home, "--prompt", "/message list").returncode == 0
    assert _mode(project / ".slop") == 0o700 and _mode(home) == 0o700
    assert _mode(project / ".slop" / "slop.db") == 0o600 and _mode(home / "memos.db") == 0o600


def test_a_ledger_in_the_users_own_folder_leaves_the_folder_alone(tmp_path: Path) -> None:
    project, shared = tmp_path / "project", tmp_path / "shared"
    project.mkdir()
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    assert (
        _run_slop(project, tmp_path / "home", "--prompt", "/message list", "--db", str(shared / "l.db")).returncode == 0
    )
    assert _mode(shared) == 0o755 and _mode(shared / "l.db") == 0o600


def test_tighten_skips_symlinks(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("x")
    os.chmod(target, 0o644)
    link = tmp_path / "link"
    link.symlink_to(target)
    tighten(link, 0o600)
    assert _mode(target) == 0o644
    private_file(tmp_path / "new")
    assert _mode(tmp_path / "new") == 0o600
