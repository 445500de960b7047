"""A memo reaches the model when the user's message is about it: the request the fake
server receives carries it in the "Relevant Memos" layer, however the question is
punctuated, and a memo about something else stays out."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import AppFactory
from tests.fakellm import FakeLLM


def system_text(fake: FakeLLM) -> str:
    messages = fake.last_request("chat").json["messages"]
    return "\n".join(m["content"] for m in messages if m["role"] == "system" and isinstance(m["content"], str))


@pytest.mark.parametrize("question", ["How do I run the tests?", "run the tests!", "the `tests` fail"])
def test_a_memo_about_the_question_is_in_the_request(make_app: AppFactory, fake_llm: FakeLLM, question: str) -> None:
    app, _ = make_app()
    app.ctx.memos.add("Run the tests with `uv run pytest -q`.", ["tests"])
    app.ctx.memos.add("Tabs are banned in this repository.", ["style"])
    fake_llm.enqueue_text("use uv")
    assert app.engine.handle(question).ok
    system = system_text(fake_llm)
    assert "## Relevant Memos" in system
    assert "- [tests] Run the tests with `uv run pytest -q`." in system
    assert "Tabs are banned" not in system


def test_no_memo_layer_when_nothing_matches(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _ = make_app()
    app.ctx.memos.add("Tabs are banned in this repository.", ["style"])
    fake_llm.enqueue_text("hello")
    assert app.engine.handle("what is the weather like?").ok
    assert "Relevant Memos" not in system_text(fake_llm)
