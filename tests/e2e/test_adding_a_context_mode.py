"""docs/architecture.md's recipe "Adding a context mode", followed by a test: a strategy
defined only here, given to `app.build`, is listed, chosen and tuned by the /context
commands like a built-in one, its input check refuses a message before it is stored, and
the request the server receives (both wires) holds exactly what it selected, which is
also what /context show shows."""

from __future__ import annotations

from slop.app import App
from slop.context.options import Option, option
from slop.context.strategies.base import ContextStrategy, HistorySource, Selection
from slop.records import Role, SessionInfo
from tests.e2e.conftest import AppFactory
from tests.e2e.wires import (
    Wire,
    both_wires,  # noqa: F401  (the `wire` fixture, both wires)
    contents_of,
    last_generation,
)
from tests.fakellm import FakeLLM
from tests.recording import Recorder

QUESTIONS_KEEP = Option("questions_keep", 3, int, 1, 100, "questions", "earlier questions sent, newest first")


class QuestionsStrategy(ContextStrategy):
    """Sends the newest earlier questions without their answers, then the current turn."""

    name = "questions"
    help = "earlier questions only (no answers), then the current turn"
    options = (QUESTIONS_KEEP,)

    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection:
        keep = int(option(session, QUESTIONS_KEEP))
        groups = source.last_group_ids(session.name, keep + 1)  # newest first
        rows = source.messages_of_groups(session.name, groups)
        current = groups[0] if groups else None
        chosen = tuple(m for m in rows if m.group_id == current or m.role == Role.USER)
        return Selection(chosen, (f"Strategy questions: {len(groups) - 1} earlier question(s), no answers.",))

    def validate_input(self, session: SessionInfo, text: str) -> str | None:
        return "message not sent: the questions mode wants a question (end it with '?')" if "?" not in text else None


def _app(make_app: AppFactory) -> tuple[App, Recorder]:
    return make_app(strategies={"questions": QuestionsStrategy()})


def _run(app: App, line: str) -> bool:
    return app.engine.handle(line).ok


def test_a_new_mode_is_listed_chosen_and_tuned_like_a_builtin(make_app: AppFactory) -> None:
    app, rec = _app(make_app)
    assert _run(app, "/context mode")
    listing = rec.kinds("info")[-1]
    assert "questions  earlier questions only (no answers), then the current turn" in listing
    assert _run(app, "/context mode questions")
    assert rec.events[-1][1].startswith("context mode: questions (earlier questions only")
    assert _run(app, "/context set")
    table = rec.kinds("table")[-1].splitlines()
    assert any(line.startswith("questions_keep | 3 | 3 | questions") for line in table)
    assert not _run(app, "/context set questions_keep 0")
    assert "questions_keep must be between 1 and 100" in rec.events[-1][1]
    assert _run(app, "/context set questions_keep 2")
    assert app.store.sessions.get("default").options["questions_keep"] == 2
    assert not _run(app, "/context compact")  # the mode does not compact, and says so
    assert "does not compact" in rec.events[-1][1]


def test_its_selection_is_what_the_server_receives_and_what_show_shows(
    make_app: AppFactory, fake_llm: FakeLLM, wire: Wire
) -> None:
    app, rec = _app(make_app)
    for i in range(4):
        fake_llm.enqueue_text(f"answer number {i}")
        assert _run(app, f"question number {i}?")
    assert _run(app, "/context mode questions")
    assert _run(app, "/context set questions_keep 2")
    assert _run(app, "/context show")
    shown = rec.viewed[-1]
    assert "Strategy questions: 2 earlier question(s), no answers." in shown
    assert "question number 2?" in shown and "question number 1?" not in shown and "answer number" not in shown

    fake_llm.enqueue_text("fine")
    assert _run(app, "question number 4?")
    request = last_generation(fake_llm)
    users = "\n".join(contents_of(request, "user"))  # Gemini joins adjacent user turns into one
    assert "question number 1?" not in users
    assert users.index("question number 2?") < users.index("question number 3?") < users.index("question number 4?")
    assert contents_of(request, "assistant") == []  # answers of earlier turns are left out
    assert app.store.messages.count("default") == 10  # ...and still in the ledger


def test_its_input_check_refuses_before_anything_is_stored(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = _app(make_app)
    assert _run(app, "/context mode questions")
    before = app.store.messages.count("default")
    assert not _run(app, "tell me a story")
    assert rec.kinds("error")[-1] == "message not sent: the questions mode wants a question (end it with '?')"
    assert app.store.messages.count("default") == before and fake_llm.requests == []
