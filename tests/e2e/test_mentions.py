"""`@path` mentions: typed in a real pseudo-terminal and through the engine against the
fake server; what is sent, what is stored, confinement, and a big file's query_db page."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from tests.e2e.conftest import AppFactory
from tests.e2e.test_pty import term  # noqa: F401 - the pty fixture
from tests.e2e.wires import (
    both_wires,  # noqa: F401  (the `wire` fixture, both wires)
    last_sent,
)
from tests.fakellm import FakeLLM


def test_at_file_in_a_real_terminal_is_sent_stored_and_counted(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fake_llm.enqueue_text("Seen both.")
    t = term()
    t.prompt()
    t.enter("summarise @notes.txt and mail me@example.com about @dataclass")
    t.expect(r"attached notes.txt \(file, [0-9,]+ tokens\)")
    t.expect("Seen both")
    t.prompt()
    sent = last_sent(fake_llm)
    assert '<attachment path="notes.txt" kind="file">' in sent and "1 | alpha\n    2 | beta\n</attachment>" in sent
    assert "example.com" in sent and "dataclass" not in sent.split("<attachment", 1)[1]
    [(content, tokens)] = t.rows("SELECT content, content_tokens FROM messages WHERE role='user'")
    assert str(content).startswith("summarise @notes.txt and mail me@example.com about @dataclass\n\n<attachment")
    assert "beta" in str(content) and int(tokens) > 10  # type: ignore[call-overload]


def test_a_directory_mention_attaches_its_listing(make_app: AppFactory, fake_llm: FakeLLM, project: Path) -> None:
    (project / "pkg").mkdir()
    (project / "pkg" / "mod.py").write_text("x = 1\n")
    app, _rec = make_app()
    fake_llm.enqueue_text("ok")
    assert app.engine.handle("what is in @pkg/?").ok
    sent = last_sent(fake_llm)
    assert '<attachment path="pkg/" kind="directory">' in sent and "File: pkg/mod.py" in sent


def test_a_mention_outside_the_project_is_refused_and_nothing_is_sent(
    make_app: AppFactory, fake_llm: FakeLLM, project: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n")
    (project / "link.txt").symlink_to(secret)
    app, rec = make_app()
    for line in (f"read @{secret}", "read @../secret.txt", "read @link.txt"):
        outcome = app.engine.handle(line)
        assert not outcome.ok
        assert "outside the project" in rec.kinds("error")[-1] and "nothing sent" in rec.kinds("error")[-1]
    assert fake_llm.requests == []
    assert app.store.messages.last_user_text("default") == ""


def test_a_big_file_is_stored_whole_and_sent_cut_with_a_page_query(
    make_app: AppFactory, fake_llm: FakeLLM, project: Path, tmp_path: Path
) -> None:
    lines = [f"line {i:05d} " + "z" * 40 for i in range(1, 1501)]
    (project / "big.log").write_text("\n".join(lines) + "\n")
    app, _rec = make_app()
    fake_llm.enqueue_text("ok")
    assert app.engine.handle("explain @big.log").ok
    sent = last_sent(fake_llm)
    assert "explain @big.log" in sent and "line 01500" in sent and "line 00750" not in sent
    page = re.search(r'query_db\(sql="(SELECT substr\(content, (\d+), 4000\) FROM messages WHERE id=\d+)"\)', sent)
    assert page, sent[:2000]
    conn = sqlite3.connect(tmp_path / "ledger.db")
    [(chunk,)] = conn.execute(page.group(1)).fetchall()
    [(stored,)] = conn.execute("SELECT content FROM messages WHERE role='user'").fetchall()
    conn.close()
    assert "line 00750" in stored  # the ledger keeps the whole file
    start = int(page.group(2))
    assert chunk == stored[start - 1 : start - 1 + 4000]  # the hint pages exactly the part not shown


def test_tab_completes_paths_after_at_in_a_real_terminal(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    project = tmp_path / "project"
    (project / "src").mkdir()
    (project / "src" / "websocket_server.py").write_text("PORT = 8443\n")
    fake_llm.enqueue_text("It listens on 8443.")
    t = term()
    t.prompt()
    t.type("which port does @sr\t")
    t.expect("c/")  # the screen gets the completed rest of "src/"
    t.type("we\t")
    t.expect("bsocket_server.py")
    t.enter(" use")
    t.expect(r"attached src/websocket_server.py \(file")
    t.expect("It listens on 8443")
    assert "PORT = 8443" in last_sent(fake_llm)
    [(content,)] = t.rows("SELECT content FROM messages WHERE role='user'")
    assert str(content).startswith("which port does @src/websocket_server.py use")
