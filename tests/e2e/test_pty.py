"""slop in a real pseudo-terminal, typed at like a person, against the fake server."""

from __future__ import annotations

import io
import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.fakellm import FakeLLM

CPR_REQUEST = "\x1b\\[6n"
SLOP = shutil.which("slop", path=str(Path(sys.executable).parent)) or "slop"


class Term:
    def __init__(self, child: pexpect.spawn, db: Path) -> None:
        self.child = child
        self.db = db

    def expect(self, pattern: str, timeout: float = 30) -> None:
        """Wait for `pattern`, answering cursor-position requests as a real terminal does
        (prompt_toolkit asks before drawing the prompt and its bottom toolbar)."""
        deadline = time.monotonic() + timeout
        while True:
            index = self.child.expect([pattern, CPR_REQUEST], timeout=max(0.1, deadline - time.monotonic()))
            if index == 0:
                return
            self.child.send("\x1b[1;1R")

    def prompt(self) -> None:
        self.expect("slop <W:")

    def type(self, text: str) -> None:
        self.child.send(text)

    def enter(self, line: str) -> None:
        self.child.send(line + "\r")

    def rows(self, sql: str) -> list[tuple[object, ...]]:
        conn = sqlite3.connect(self.db)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()


@pytest.fixture
def term(tmp_path: Path, fake_llm: FakeLLM) -> Iterator[callable]:  # type: ignore[valid-type]
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("alpha\nbeta\n")
    db = tmp_path / "ledger.db"
    children: list[pexpect.spawn] = []

    def start(*args: str, **env: str) -> Term:
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE"))}
        environ.update(
            OPENAI_API_KEY="sk-test-pty-123456",
            OPENAI_BASE_URL=fake_llm.openai_base_url,
            SLOP_MAX_RETRIES="0",
            TERM="xterm-256color",
            SLOP_HOME=str(tmp_path / "home"),
            **env,
        )
        child = pexpect.spawn(
            SLOP,
            ["--db", str(db), "--model", "fake-gpt", *args],
            cwd=str(project),
            env=environ,
            dimensions=(40, 120),
            encoding="utf-8",
            timeout=30,
        )
        children.append(child)
        return Term(child, db)

    yield start
    for child in children:
        if child.isalive():
            child.terminate(force=True)


def test_chat_quit_and_come_back(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]
    fake_llm.enqueue_text("Hello from the **fake** model.\n\n- one\n- two\n")
    t = term()
    t.prompt()
    t.enter("hello there")
    t.expect("Hello from the")
    t.expect("two")
    t.prompt()
    t.enter("/exit")
    t.child.expect(pexpect.EOF, timeout=30)
    assert t.rows("SELECT role, content FROM messages ORDER BY id") == [
        ("user", "hello there"),
        ("assistant", "Hello from the **fake** model.\n\n- one\n- two\n"),
    ]
    again = term()
    again.expect("hello there")  # the last exchange is shown on return
    again.prompt()
    again.child.sendcontrol("d")
    again.child.expect(pexpect.EOF, timeout=30)


def test_completion_of_commands(term) -> None:  # type: ignore[no-untyped-def]
    t = term()
    t.prompt()
    t.type("/con\t")
    t.expect("text")  # the screen gets the completed rest of "/context"
    t.type(" wi\t")
    t.expect("ndow")
    t.enter(" 3")
    t.expect("last 3 group")  # "/con<Tab> wi<Tab> 3" ran as /context window 3
    assert t.rows("SELECT context_size FROM sessions WHERE id='default'") == [(3,)]


def test_help_completes_and_explains_a_sub_command(term) -> None:  # type: ignore[no-untyped-def]
    t = term()
    t.prompt()
    t.type("/help mes\t")
    t.expect("sage")  # the screen gets the completed rest of "message"
    t.type(" rem\t")
    t.expect("ove")
    t.enter("")  # "/help mes<Tab> rem<Tab>" ran as /help message remove
    t.expect("/message remove GID")
    t.expect("Delete a group from the ledger")


def test_esc_cancels_a_long_tool_and_leaves_no_process(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    marker = tmp_path / "pid"
    fake_llm.enqueue_tool_calls([("execute_bash", {"command": f"echo $$ > {marker}; sleep 30"})])
    fake_llm.enqueue_text("never used")
    t = term("--yes")
    t.prompt()
    t.enter("run the slow thing")
    deadline = time.monotonic() + 10
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), "the command never started"
    time.sleep(0.2)
    started = time.monotonic()
    t.type("\x1b")
    t.expect("cancel", timeout=5)
    t.prompt()
    assert time.monotonic() - started < 5
    pid = int(marker.read_text())
    time.sleep(0.3)
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    results = t.rows("SELECT status, content FROM messages WHERE role='tool'")
    assert results == [("cancelled", "[Cancelled]")]


def test_ctrl_c_clears_then_double_exits(term) -> None:  # type: ignore[no-untyped-def]
    t = term()
    t.prompt()
    t.type("some half-typed text")
    t.child.sendcontrol("c")
    time.sleep(0.2)
    t.child.sendcontrol("c")
    time.sleep(0.1)
    t.child.sendcontrol("c")
    t.child.expect(pexpect.EOF, timeout=30)
    assert t.rows("SELECT COUNT(*) FROM messages") == [(0,)]


def test_approval_prompt_refuse_and_allow(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    fake_llm.enqueue_tool_calls([("write_file", {"path": "new.txt", "content": "hi\n"})])
    fake_llm.enqueue_text("ok, not written")
    fake_llm.enqueue_tool_calls([("write_file", {"path": "new.txt", "content": "hi\n"})])
    fake_llm.enqueue_text("written")
    t = term()
    t.prompt()
    t.enter("write it")
    t.expect("\\+hi")  # the diff of what would be written, then the question
    t.expect("Allow\\?")
    t.enter("n")
    t.expect("not written")
    t.prompt()
    assert not (tmp_path / "project" / "new.txt").exists()
    t.enter("write it now")
    t.expect("Allow\\?")
    t.enter("y")
    t.expect("written")
    t.prompt()
    assert (tmp_path / "project" / "new.txt").read_text() == "hi\n"


def _editor_script(tmp_path: Path, name: str, body: str) -> str:
    """A small program standing in for the user's editor: it edits the file it is given."""
    script = tmp_path / name
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    return str(script)


def test_session_clone_and_undo_are_isolated(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]
    fake_llm.enqueue_text("first answer")
    fake_llm.enqueue_text("second answer")
    fake_llm.enqueue_text("clone answer")
    t = term()
    t.prompt()
    t.enter("first question")
    t.expect("first answer")
    t.prompt()
    t.enter("second question")
    t.expect("second answer")
    t.prompt()
    t.enter("/session clone experiment")
    t.expect("experiment")
    t.prompt()
    t.enter("clone question")
    t.expect("clone answer")
    t.prompt()
    t.enter("/undo")
    t.expect("undid group")
    t.prompt()
    t.enter("/undo")
    t.expect("undid group")
    t.prompt()
    t.enter("/session switch default")
    t.prompt()
    t.enter("/message list")
    t.expect("second question")
    t.prompt()
    by_session = t.rows("SELECT session_id, content FROM messages WHERE role='user' ORDER BY id")
    assert by_session == [
        ("default", "first question"),
        ("default", "second question"),
        ("experiment", "first question"),
    ]


def test_memo_add_through_a_scripted_editor(term, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    memo = 'printf "# Tags: sqlite, locking\\nUse WAL and a busy timeout.\\n" > "$1"'
    editor = _editor_script(tmp_path, "memo-editor", memo)
    t = term(EDITOR=editor)
    t.prompt()
    t.enter("/memo add")
    t.expect("saved with tags sqlite, locking", timeout=30)
    t.prompt()
    t.enter("/memo search sqlite")
    t.expect("Use WAL and a busy timeout")
    t.prompt()


def test_review_comments_reach_the_next_request(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import subprocess

    project = tmp_path / "project"
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    editor = _editor_script(tmp_path, "review-editor", 'printf "R: this should add, not subtract\\n" >> "$1"')
    fake_llm.enqueue_text("I will fix the sign.")
    t = term(EDITOR=editor)
    t.prompt()
    t.enter("/review")
    t.expect("I will fix the sign", timeout=30)
    t.prompt()
    sent = fake_llm.last_request("chat").json["messages"][-1]["content"]
    assert "R: this should add, not subtract" in sent and "+    return a - b" in sent


def test_ctrl_c_during_a_reply_keeps_the_partial_text(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]
    fake_llm.enqueue_text("word " * 60, chunks=["word "] * 60, delay=0.1)
    t = term()
    t.prompt()
    t.enter("talk for a while")
    t.expect("word word")
    t.child.sendcontrol("c")
    t.expect("cancel")
    t.prompt()
    [(status, content)] = t.rows("SELECT status, content FROM messages WHERE role='assistant'")
    assert status == "interrupted" and 0 < len(content) < len("word " * 60)
    t.enter("/exit")
    t.child.expect(pexpect.EOF, timeout=30)


def _ctx(t: Term) -> float:
    """The modeline's `ctx` figure drawn with the next prompt, in tokens."""
    t.expect(r"ctx ([0-9.]+k?)/")
    figure = t.child.match.group(1)
    return float(figure[:-1]) * 1000 if figure.endswith("k") else float(figure)


def test_modeline_ctx_is_the_next_request_and_follows_surgery(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]
    fake_llm.enqueue_text("long answer " + "word " * 3000 + "end-of-long")
    fake_llm.enqueue_text("short answer")
    t = term()
    t.prompt()
    t.enter("first question")
    t.expect("end-of-long")
    t.prompt()
    t.enter("second question")
    t.expect("short answer")
    with_both = _ctx(t)
    first = t.rows("SELECT group_id FROM messages ORDER BY id LIMIT 1")[0][0]
    t.enter(f"/context drop {first}")
    t.expect("dropped from context")
    dropped = _ctx(t)
    assert dropped < with_both - 2000  # the 3,000-word answer left the next request at once
    t.enter(f"/context restore {first}")
    t.expect("restored to context")
    assert _ctx(t) == with_both
    t.enter("/context window 1")
    t.expect("last 1 group")
    assert _ctx(t) < with_both - 2000


def test_context_show_full_opens_the_editor_and_says_so(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    copy = tmp_path / "seen.txt"
    editor = _editor_script(tmp_path, "viewer", f'cp "$1" "{copy}"')
    fake_llm.enqueue_text("an answer")
    t = term(EDITOR=editor)
    t.prompt()
    t.enter("hello there")
    t.expect("an answer")
    t.prompt()
    t.enter("/context show --full what next")
    t.expect(r"the full request \(\d+ lines\) was opened in a read-only copy in ")
    shown = copy.read_text()
    assert shown.startswith("=== Next request ===") and "### CURRENT REQUEST\nwhat next" in shown
    t.prompt()
    t.enter("/context show --brief")
    t.expect("current request")
    t.expect(r"/context show --full \(opens \$EDITOR or a pager\)")


def test_modeline_shows_the_session_cost_when_the_price_is_known(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]
    # 4,000 prompt tokens, 2,000 of them cached, 100 out: (2000*2 + 2000*0.5 + 100*8) / 1e6 = $0.0058
    fake_llm.enqueue_text("priced answer", usage=(4000, 100, 0, 2000))
    t = term(SLOP_PRICES="fake-gpt=2/0.5/8")
    t.prompt()
    t.enter("what does it cost")
    t.expect("priced answer")
    t.expect(r"session 4\.1k tok · \$0\.0058")
    t.enter("/exit")
    t.child.expect(pexpect.EOF, timeout=30)


def test_modeline_shows_tokens_only_for_a_model_without_a_price(term, fake_llm: FakeLLM) -> None:  # type: ignore[no-untyped-def]
    fake_llm.enqueue_text("unpriced answer", usage=(4000, 100))
    t = term()
    screen = io.StringIO()
    t.child.logfile_read = screen
    t.prompt()
    t.enter("what does it cost")
    t.expect("unpriced answer")
    t.expect(r"session 4\.1k tok")
    t.enter("/usage")
    t.expect("no price known for fake-gpt: tokens only")
    t.prompt()
    t.enter("/exit")
    t.child.expect(pexpect.EOF, timeout=30)
    assert "session 4.1k tok" in screen.getvalue() and "tok · $" not in screen.getvalue()
