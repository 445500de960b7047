"""Whole turns through the real app wiring (Store, ContextService, ToolRunner, providers)
against the fake: tool loops per strategy, switching providers mid-session, reasoning."""

from __future__ import annotations

import json
from typing import Any

import pytest

from slop.app import App
from slop.records import Message, Role, Status
from tests.fakellm import FakeLLM
from tests.providers.conftest import AppFactory

TWO_CALLS = [("read_file", {"path": "hello.py"}, "id-read"), ("list_directory", {"path": "."}, "id-list")]


def rows(app: App) -> list[Message]:
    return app.store.messages.recent(app.ctx.session, 100)


def generation_requests(fake: FakeLLM) -> list[Any]:
    return [r for r in fake.requests if r.protocol in ("openai", "gemini", "gca") and r.method == "POST"]


def tool_results_in(request: Any) -> dict[str, str]:
    """call id -> result text, in the request's own format."""
    if request.protocol == "openai":
        return {m["tool_call_id"]: m["content"] for m in request.json["messages"] if m["role"] == "tool"}
    out = {}
    for content in request.json["contents"]:
        for part in content["parts"]:
            if "functionResponse" in part:
                fr = part["functionResponse"]
                out[fr["id"]] = fr["response"].get("output", fr["response"].get("error"))
    return out


def tool_calls_in(request: Any) -> list[str]:
    if request.protocol == "openai":
        return [c["id"] for m in request.json["messages"] for c in m.get("tool_calls") or []]
    return [p["functionCall"]["id"] for c in request.json["contents"] for p in c["parts"] if "functionCall" in p]


def texts_in(request: Any) -> str:
    if request.protocol == "openai":
        return "\n".join(str(m.get("content") or "") for m in request.json["messages"] if m["role"] != "system")
    return "\n".join(p.get("text", "") for c in request.json["contents"] for p in c["parts"])


@pytest.mark.parametrize("strategy", ["openai", "gemini"])
def test_two_tool_calls_then_an_answer(strategy: str, make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app(provider=strategy)
    fake_llm.enqueue_tool_calls(TWO_CALLS, text="Let me look.", usage=(100, 20))
    fake_llm.enqueue_text("hello.py prints hello.", usage=(150, 10))
    outcome = app.engine.handle("what does hello.py do?")
    assert outcome.ok and outcome.turn is not None
    assert outcome.turn.text == "Let me look.hello.py prints hello." and outcome.turn.steps == 2
    assert rec.kinds("tool_start") == ["read_file", "list_directory"]
    assert all(" completed " in t for t in rec.kinds("tool_done"))

    stored = rows(app)
    assert [(m.role, m.status) for m in stored] == [
        (Role.USER, Status.COMPLETED),
        (Role.ASSISTANT, Status.TOOL_CALL),
        (Role.TOOL, Status.COMPLETED),
        (Role.TOOL, Status.COMPLETED),
        (Role.ASSISTANT, Status.COMPLETED),
    ]
    assert {m.parsing_strategy for m in stored} == {strategy}
    assert [m.tool_call_id for m in stored if m.role == Role.TOOL] == ["id-read", "id-list"]
    assert stored[1].tokens == 120 and stored[4].tokens == 160  # prompt + completion of each call
    assert "print('hello')" in stored[2].content

    first, second = generation_requests(fake_llm)
    assert first.protocol == second.protocol == strategy
    assert tool_calls_in(second) == ["id-read", "id-list"]
    results = tool_results_in(second)
    assert list(results) == ["id-read", "id-list"]
    assert "print('hello')" in results["id-read"] and "notes.txt" in results["id-list"]
    if strategy == "gemini":  # the signature of the call goes back with it
        model = next(c for c in second.json["contents"] if c["role"] == "model")
        assert sum("thoughtSignature" in p for p in model["parts"]) == 1
    usage = app.store.usage.by_model(app.ctx.session)
    assert [(u.prompt_tokens, u.completion_tokens) for u in usage] == [(250, 30)]


def test_switching_provider_isolates_tool_rows(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    fake_llm.enqueue_tool_calls(TWO_CALLS, text="Checking the files first.")
    fake_llm.enqueue_text("OPENAI-ANSWER: it prints hello.")
    assert app.engine.handle("explain hello.py").ok

    assert app.engine.handle("/model gemini:fake-gemini").ok
    assert "tool calls made under openai stay out" in rec.kinds("success")[-1]
    fake_llm.enqueue_text("GEMINI-ANSWER")
    assert app.engine.handle("and in one word?").ok
    gemini_request = generation_requests(fake_llm)[-1]
    assert gemini_request.protocol == "gemini"
    text = texts_in(gemini_request)
    assert "explain hello.py" in text and "OPENAI-ANSWER: it prints hello." in text and "and in one word?" in text
    assert "Checking the files first." in text  # text that came with the foreign calls stays, as text
    assert tool_calls_in(gemini_request) == [] and tool_results_in(gemini_request) == {}
    assert "print('hello')" not in json.dumps(gemini_request.json["contents"])
    assert [c["role"] for c in gemini_request.json["contents"]] == ["user", "model", "user"]
    assert rows(app)[-1].parsing_strategy == "gemini"

    assert app.engine.handle("/model openai:fake-gpt").ok
    fake_llm.enqueue_text("BACK")
    assert app.engine.handle("and now?").ok
    openai_request = generation_requests(fake_llm)[-1]
    assert openai_request.protocol == "openai"
    assert tool_calls_in(openai_request) == ["id-read", "id-list"]  # the OpenAI tool rows are back
    assert list(tool_results_in(openai_request)) == ["id-read", "id-list"]
    assert "GEMINI-ANSWER" in texts_in(openai_request)


def test_gemini_tool_rows_stay_out_of_openai_requests(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _ = make_app(
        "gemini", force="gemini", openai_api_key="sk-x-123456789", openai_base_url=fake_llm.openai_base_url
    )
    assert app.providers.kind == "gemini"  # --provider beats the detection order (OpenAI first)
    fake_llm.enqueue_tool_calls(TWO_CALLS[:1])
    fake_llm.enqueue_text("GEM-DONE")
    assert app.engine.handle("read hello.py").ok
    assert app.engine.handle("/model openai:fake-gpt").ok
    fake_llm.enqueue_text("ok")
    assert app.engine.handle("next").ok
    request = generation_requests(fake_llm)[-1]
    assert request.protocol == "openai"
    assert tool_calls_in(request) == [] and tool_results_in(request) == {}
    assert "GEM-DONE" in texts_in(request)


def test_switch_is_persisted_and_read_back_at_start(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, _ = make_app()
    assert app.engine.handle("/model gemini:fake-gemini-flash").ok
    info = app.store.sessions.get(app.ctx.session)
    assert (info.provider, info.model) == ("gemini", "fake-gemini-flash")
    again, _ = make_app(model="")  # no --model flag: the session's choice wins over detection
    assert (again.providers.kind, again.providers.label) == ("gemini", "fake-gemini-flash")
    fake_llm.enqueue_text("from flash")
    assert again.engine.handle("hi").ok
    assert fake_llm.last_request().path == "/v1/models/fake-gemini-flash:streamGenerateContent"


@pytest.mark.parametrize("strategy", ["openai", "gemini"])
def test_reasoning_is_shown_dimmed_and_stored_apart(strategy: str, make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app(provider=strategy)
    fake_llm.enqueue_text("The answer is 4.", reasoning="2 plus 2 is 4.")
    assert app.engine.handle("2+2?").ok
    assert "".join(rec.kinds("reasoning")) == "2 plus 2 is 4."
    assert "".join(rec.kinds("delta")) == "The answer is 4."
    answer = rows(app)[-1]
    assert (answer.content, answer.reasoning) == ("The answer is 4.", "2 plus 2 is 4.")
    # the reasoning never goes back to the model as answer text
    fake_llm.enqueue_text("ok")
    assert app.engine.handle("and 3+3?").ok
    assert "2 plus 2" not in texts_in(generation_requests(fake_llm)[-1])


def test_strip_reasoning_flag_reaches_the_openai_request(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app(strip_reasoning=True)
    fake_llm.enqueue_text("plain", reasoning="leaked thoughts")
    assert app.engine.handle("hi").ok
    assert fake_llm.last_request().json["reasoning"] == {"exclude": True}
    # a server that still sends reasoning: shown dimmed, stored apart, not mixed into the answer
    assert "".join(rec.kinds("reasoning")) == "leaked thoughts"
    assert rows(app)[-1].content == "plain"


def test_gemini_errors_end_the_turn_with_one_line(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app(provider="gemini")
    fake_llm.enqueue_gemini_special("malformed_function_call")
    outcome = app.engine.handle("do it")
    assert not outcome.ok
    assert "MALFORMED_FUNCTION_CALL" in rec.kinds("error")[-1]
    fake_llm.enqueue_error(400, message="The input token count (5000000) exceeds the maximum number of tokens allowed.")
    assert not app.engine.handle("again").ok
    assert "assembled prompt" in rec.kinds("error")[-1]  # the orchestrator's size and suggestion
