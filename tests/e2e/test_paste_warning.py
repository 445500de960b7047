"""A very long message asks before it is sent (real pseudo-terminal, fake server)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import AppFactory
from tests.e2e.test_pty import term  # noqa: F401 - the pty fixture
from tests.fakellm import FakeLLM

LONG = " ".join(f"pasted-log-line-{i}" for i in range(120))  # ~700 tokens, 30 %+ of a 2,000 budget


def test_a_long_paste_asks_no_keeps_it_unsent_yes_sends(term, fake_llm: FakeLLM, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    t = term()
    t.prompt()
    t.enter("/context budget 2000")
    t.expect("context budget: 2,000 tokens")
    t.prompt()
    t.enter(LONG)
    t.expect(r"of the 2,000-token prompt budget \(warning above 25%, SLOP_PASTE_WARN_SHARE\). Send it\? \[y/N\]")
    t.enter("n")
    t.expect("message not sent")
    assert fake_llm.requests == []
    assert t.rows("SELECT count(*) FROM messages") == [(0,)]


def test_yes_sends_it_whole_and_short_messages_are_not_asked(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    rec.height = 40  # a screen: questions can be asked
    rec.confirms = [True]
    assert app.engine.handle("/context budget 2000").ok
    fake_llm.enqueue_text("Read your log.")
    assert app.engine.handle(LONG).ok
    assert "2,000-token prompt budget" in rec.kinds("confirm")[-1]
    assert app.store.messages.last_user_text("default") == LONG
    fake_llm.enqueue_text("Short answer.")
    assert app.engine.handle("a short question").ok
    assert len(rec.kinds("confirm")) == 1
    batch_app, batch_rec = make_app(db_path=str(Path(str(app.store.path)).with_name("batch.db")))
    assert batch_app.engine.handle("/context budget 2000").ok
    fake_llm.enqueue_text("Batch answer.")
    assert batch_app.engine.handle(LONG).ok  # no screen (batch mode): nobody to ask, sent
    assert batch_rec.kinds("confirm") == []
