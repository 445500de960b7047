"""The per-session context settings a user changes (/context budget, mode, set, log): what
each says, that bad values are refused with one line and change nothing, that they persist
for a second process on the same ledger, and that the budget changes the next request.
Real turns through both wires."""

from __future__ import annotations

from slop.app import App
from tests.e2e.conftest import AppFactory
from tests.e2e.wires import (
    Wire,
    both_wires,  # noqa: F401  (the `wire` fixture, both wires)
    contents_of,
    last_generation,
)
from tests.fakellm import FakeLLM
from tests.recording import Recorder


def _run(app: App, line: str) -> bool:
    return app.engine.handle(line).ok


def _last(rec: Recorder) -> tuple[str, str]:
    return rec.events[-1]


def test_budget_is_shown_set_refused_and_reset(make_app: AppFactory, wire: Wire) -> None:
    app, rec = make_app()
    assert _run(app, "/context budget")
    kind, text = _last(rec)
    assert kind == "info" and text.startswith("context budget: the model's default, ") and f"for {wire.model}" in text
    assert _run(app, "/context budget 12,000")
    assert _last(rec) == ("success", "context budget: 12,000 tokens")
    for line, why in (
        ("/context budget 100", "a budget under 256 tokens cannot hold the system prompt"),
        ("/context budget -5", "the budget cannot be negative"),
        ("/context budget lots", "the budget"),
    ):
        assert not _run(app, line)
        kind, text = _last(rec)
        assert kind == "error" and why in text and "\n" not in text
    assert _run(app, "/context budget")
    assert _last(rec) == ("info", "context budget: 12,000 tokens (this session)")  # the refusals changed nothing
    assert _run(app, "/context budget 0")
    kind, text = _last(rec)
    assert kind == "success" and text.startswith("context budget: the model's default") and wire.model in text
    assert _run(app, "/context log")
    log = rec.kinds("table")[-1]
    assert "budget 0 -> 12,000 tokens" in log and "budget 12,000 -> 0 tokens" in log


def test_a_small_budget_leaves_old_turns_out_of_the_next_request(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _rec = make_app()
    assert _run(app, "/context window 0")  # every group: only the budget limits the request
    for i in range(6):
        fake_llm.enqueue_text(f"answer {i} " + "lorem ipsum dolor " * 220)  # ~1,000 tokens each
        assert _run(app, f"question {i}")
    fake_llm.enqueue_text("ok")
    assert _run(app, "question 6")
    everything = [u.split("\n")[-1] for u in contents_of(last_generation(fake_llm), "user")]
    assert everything == [f"question {i}" for i in range(7)]
    assert _run(app, "/context budget 3000")
    fake_llm.enqueue_text("ok")
    assert _run(app, "question 7")
    sent = [u.split("\n")[-1] for u in contents_of(last_generation(fake_llm), "user")]
    assert sent[-1] == "question 7" and "question 0" not in sent and len(sent) < len(everything)
    assert sent == [f"question {i}" for i in range(8 - len(sent), 8)]  # the newest turns, in order
    assert app.store.messages.count("default") == 16  # left out of the request, still in the ledger
    assert _run(app, "/context budget 0")
    fake_llm.enqueue_text("ok")
    assert _run(app, "question 8")
    assert len(contents_of(last_generation(fake_llm), "user")) == 9  # back: all of them fit the default


def test_mode_and_settings_persist_for_a_second_process(make_app: AppFactory) -> None:
    first, rec = make_app()
    assert _run(first, "/context mode")
    assert rec.kinds("info")[-1].splitlines()[:2] == ["context mode: window", rec.kinds("info")[-1].splitlines()[1]]
    assert rec.kinds("info")[-1].splitlines()[1].startswith("  * window")
    assert not _run(first, "/context mode bogus")
    assert _last(rec) == (
        "error",
        "unknown context mode 'bogus' (usage: /context mode window|messages|ranked|compact|relevance)",
    )
    assert _run(first, "/context mode MESSAGES")  # names are not case-sensitive
    assert _run(first, "/context set messages 4")
    assert _last(rec) == ("success", "messages = 4")
    second, rec2 = make_app()  # another slop on the same ledger
    assert _run(second, "/context mode")
    listing = rec2.kinds("info")[-1].splitlines()
    assert listing[0] == "context mode: messages"
    assert [line[2] for line in listing[1:]] == [" ", "*", " ", " ", " "]  # the star marks messages
    assert _run(second, "/context set")
    table = rec2.kinds("table")[-1].splitlines()
    assert any(line.startswith("messages | 4 | 10 | messages") for line in table)
    assert _run(second, "/context set messages default")
    assert _last(rec2) == ("success", "messages = 10")


def test_bad_settings_are_one_line_and_change_nothing(make_app: AppFactory) -> None:
    app, rec = make_app()
    assert _run(app, "/context set messages 7")
    for line, why in (
        ("/context set nosuch 3", "unknown setting 'nosuch'; known: messages,"),
        ("/context set messages", "missing value for messages"),
        ("/context set messages -2", "messages must be between 1 and 10000, got -2"),
        ("/context log 0", "N must be positive"),
        ("/context recover", "say what the dropped turns were about"),
        ("/context unpin", "missing GID"),
        ("/context pin 1", "no group 1"),
    ):
        assert not _run(app, line), line
        kind, text = _last(rec)
        assert kind == "error" and why in text and "\n" not in text, (line, text)
    assert _run(app, "/context set")
    assert any(line.startswith("messages | 7 |") for line in rec.kinds("table")[-1].splitlines())
