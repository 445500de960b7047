"""A very long message asks before it is sent (through the engine, fake server)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import AppFactory
from tests.e2e.wires import both_wires  # noqa: F401  (the `wire` fixture, both wires)
from tests.fakellm import FakeLLM

LONG = " ".join(f"pasted-log-line-{i}" for i in range(120))  # ~700 tokens, 30 %+ of a 2,000 budget


def test_yes_sends_it_whole_and_short_messages_are_not_asked(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    rec.height = 40  # a screen: questions can be asked
    rec.confirms = [False, True]
    assert app.engine.handle("/context budget 2000").ok
    assert app.engine.handle("!!echo waiting-output").ok
    assert not app.engine.handle(LONG).ok  # "n": nothing sent, nothing stored
    assert fake_llm.requests == [] and app.store.messages.last_user_text("default") == ""
    assert rec.kinds("info")[-1] == "message not sent"
    fake_llm.enqueue_text("Read your log.")
    assert app.engine.handle(LONG).ok
    assert "2,000-token prompt budget" in rec.kinds("confirm")[-1]
    stored = app.store.messages.last_user_text("default")
    assert stored.endswith(LONG) and "waiting-output" in stored  # the !! output waited for it
    fake_llm.enqueue_text("Short answer.")
    assert app.engine.handle("a short question").ok
    assert len(rec.kinds("confirm")) == 2
    batch_app, batch_rec = make_app(db_path=str(Path(str(app.store.path)).with_name("batch.db")))
    assert batch_app.engine.handle("/context budget 2000").ok
    fake_llm.enqueue_text("Batch answer.")
    assert batch_app.engine.handle(LONG).ok  # no screen (batch mode): nobody to ask, sent
    assert batch_rec.kinds("confirm") == []


def test_a_dropped_image_path_asks_first_since_the_model_would_see_only_the_path(
    make_app: AppFactory, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    app, rec = make_app()
    rec.height = 40
    shots = tmp_path / "My Shots"
    shots.mkdir()
    (shots / "error 1.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    rec.confirms = [False, True]
    escaped = str(shots / "error 1.png").replace(" ", "\\ ")  # as a terminal pastes a dropped file
    dropped = f"what is wrong here? {escaped}"
    assert not app.engine.handle(dropped).ok
    assert fake_llm.requests == [] and app.store.messages.last_user_text("default") == ""
    question = rec.kinds("confirm")[-1]
    assert f"{shots / 'error 1.png'}" in question and "cannot send images" in question
    fake_llm.enqueue_text("I can only see the path.")
    assert app.engine.handle(f"and this one? '{shots}/error 1.png'").ok  # quoted: asked again, sent on yes
    assert len(rec.kinds("confirm")) == 2
    fake_llm.enqueue_text("Sure.")
    assert app.engine.handle("rename logo.png to icon.png").ok  # names of files that do not exist: not asked
    assert len(rec.kinds("confirm")) == 2
