"""grep_tool and git_grep_tool on real directories and a real git repo."""

from __future__ import annotations

from pathlib import Path

from slop.tools.base import ToolContext

from .conftest import git_init, run_tool

C_SOURCE = """int helper(int x)
{
    int y = x + 1;
    return y;
}

int other(void)
{
    return 0;
}
"""


def make_tree(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("import os\nfrom absl import StatusOr\nprint('absl only')\n")
    (root / "src" / "b.py").write_text("ToolExecutor = 1\nRetrieveMemos = 2\n")
    (root / "lib.c").write_text(C_SOURCE)
    (root / "node_modules").mkdir()
    (root / "node_modules" / "dep.js").write_text("ToolExecutor in dependency\n")
    (root / ".gitignore").write_text("node_modules/\n")


def test_plain_grep_outside_git(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    result = run_tool(ctx, "grep_tool", pattern="ToolExecutor")
    assert result.status == "completed"
    assert result.content == "src/b.py:1:ToolExecutor = 1"  # node_modules skipped


def test_no_matches_is_not_an_error(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    result = run_tool(ctx, "grep_tool", pattern="nothing_like_this")
    assert result.status == "completed" and result.content == "No matches."


def test_hostile_patterns_are_literal_argv(ctx: ToolContext, root: Path) -> None:
    (root / "t.txt").write_text("---\n-starting\n'foo bar'\n\"baz\"\n$(touch pwned)\n")
    for pattern in ["---", "-starting", "'foo bar'", '"baz"']:
        assert pattern in run_tool(ctx, "grep_tool", pattern=pattern).content, pattern
    run_tool(ctx, "grep_tool", pattern="$(touch pwned)", fixed_strings=True)
    assert not (root / "pwned").exists()


def test_grep_in_subdir_and_file(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    assert run_tool(ctx, "grep_tool", pattern="absl", path="src").content.count("src/a.py:") == 2
    assert run_tool(ctx, "grep_tool", pattern="^import", path="src/a.py").content == "src/a.py:1:import os"


def test_bad_regex_is_an_error(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    result = run_tool(ctx, "grep_tool", pattern="foo(")
    assert result.status == "error" and "search failed" in result.content


def test_grep_cap_500_lines(ctx: ToolContext, root: Path) -> None:
    (root / "many.txt").write_text("match\n" * 700)
    result = run_tool(ctx, "grep_tool", pattern="match")
    lines = result.content.splitlines()
    assert sum(1 for line in lines if line.startswith("many.txt:")) == 500
    assert "[... 200 more lines not shown; narrow the pattern or path]" in result.content
    assert "many.txt: 700" in result.content


def test_grep_in_git_uses_git_grep_and_untracked(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    (root / ".gitignore").write_text("node_modules/\nignored.txt\n")
    git_init(root)
    (root / "new.txt").write_text("ToolExecutor untracked\n")
    (root / "ignored.txt").write_text("ToolExecutor ignored\n")
    content = run_tool(ctx, "grep_tool", pattern="ToolExecutor").content
    assert "src/b.py:1:" in content and "new.txt:1:" in content
    assert "ignored.txt" not in content
    sub = run_tool(ctx, "grep_tool", pattern="ToolExecutor", path="src").content
    assert sub == "src/b.py:1:ToolExecutor = 1"


def test_git_grep_boolean_and_not(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    git_init(root)
    both = run_tool(ctx, "git_grep_tool", patterns=["absl", "--and", "StatusOr"]).content
    assert both == "src/a.py:2:from absl import StatusOr"
    without = run_tool(ctx, "git_grep_tool", patterns=["absl", "--and", "--not", "StatusOr"]).content
    assert without == "src/a.py:3:print('absl only')"
    either = run_tool(ctx, "git_grep_tool", patterns=["ToolExecutor", "--or", "RetrieveMemos"]).content
    assert either.splitlines() == ["src/b.py:1:ToolExecutor = 1", "src/b.py:2:RetrieveMemos = 2"]
    grouped = run_tool(
        ctx, "git_grep_tool", patterns=["(", "absl", "--and", "StatusOr", ")", "--or", "RetrieveMemos"]
    ).content
    assert len(grouped.splitlines()) == 2


def test_git_grep_function_context_and_pathspecs(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    git_init(root)
    result = run_tool(ctx, "git_grep_tool", patterns="x \\+ 1", function_context=True)
    assert "lib.c=1=int helper(int x)" in result.content or "lib.c-1-int helper(int x)" in result.content
    assert "lib.c-4-    return y;" in result.content
    assert "other" not in result.content
    spec = run_tool(ctx, "git_grep_tool", patterns="import", pathspecs=["src/*.py", "lib.c"]).content
    assert spec.splitlines() == ["src/a.py:1:import os", "src/a.py:2:from absl import StatusOr"]
    single = run_tool(ctx, "git_grep_tool", patterns="return", pathspecs="lib.c", context=1).content
    assert "lib.c-3-" in single


def test_git_grep_refuses_outside_and_non_git(ctx: ToolContext, root: Path) -> None:
    make_tree(root)
    assert "not inside a git work tree" in run_tool(ctx, "git_grep_tool", patterns="x").content
    git_init(root)
    assert "PERMISSION_DENIED" in run_tool(ctx, "git_grep_tool", patterns="x", pathspecs="../x").content
    assert "top" in run_tool(ctx, "git_grep_tool", patterns="x", pathspecs=":/").content
    assert "at least one pattern" in run_tool(ctx, "git_grep_tool", patterns=["--and"]).content
