"""History rows that are not plain messages, as the Gemini API receives them through
the real SDK: a tool-call row stored while the session talked to an OpenAI-compatible
server, rows that cannot be read, thoughts without a signature, a note from slop in
the middle. And Code Assist's stream when it carries an error or garbage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slop.errors import BadResponse, ProviderError
from slop.providers.gca import CodeAssistProvider
from slop.providers.gemini import GeminiProvider
from slop.records import Role, Status
from tests.fakellm import FakeLLM
from tests.providers.helpers import msg, prompt_of, run, user_prompt

SIGNED = "c2lnbmVkLXRob3VnaHQ="  # base64 of b"signed-thought"


@pytest.fixture
def gemini(fake_llm: FakeLLM) -> GeminiProvider:
    return GeminiProvider(api_key="k", base_url=fake_llm.gemini_base_url, model="fake-gemini", max_retries=0)


def _sent_contents(fake: FakeLLM, gemini: GeminiProvider, *messages: object) -> list[dict[str, object]]:
    fake.enqueue_text("ok")
    run(gemini, prompt_of(*messages))  # type: ignore[arg-type]
    return fake.last_request().json["contents"]  # type: ignore[no-any-return]


def _openai_row(text: str | None, arguments: str) -> str:
    call = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": arguments}}
    return json.dumps({"role": "assistant", "content": text, "tool_calls": [call]})


def test_a_tool_call_made_on_openai_continues_on_gemini(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    contents = _sent_contents(
        fake_llm,
        gemini,
        msg(1, Role.USER, "read a.py", wire="openai"),
        msg(2, Role.ASSISTANT, _openai_row("checking", '{"path": "a.py"}'), Status.TOOL_CALL, wire="openai"),
        msg(3, Role.TOOL, "A-CONTENT", wire="openai", call_id="call_1"),
        msg(4, Role.USER, "and now?", wire="gemini"),
    )
    assert contents == [
        {"role": "user", "parts": [{"text": "read a.py"}]},
        {
            "role": "model",
            "parts": [
                {"text": "checking"},
                {"functionCall": {"id": "call_1", "name": "read_file", "args": {"path": "a.py"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": "call_1", "name": "read_file", "response": {"output": "A-CONTENT"}}},
                {"text": "and now?"},  # Gemini wants turns to alternate: one user turn
            ],
        },
    ]


@pytest.mark.parametrize("arguments", ["[1, 2]", '"a string"', "{broken"])
def test_arguments_that_are_not_an_object_go_as_an_empty_one(
    fake_llm: FakeLLM, gemini: GeminiProvider, arguments: str
) -> None:
    contents = _sent_contents(
        fake_llm,
        gemini,
        msg(1, Role.USER, "go", wire="openai"),
        msg(2, Role.ASSISTANT, _openai_row(None, arguments), Status.TOOL_CALL, wire="openai"),
        msg(3, Role.TOOL, "no such file", Status.ERROR, wire="openai", call_id="call_1"),
    )
    assert contents[1]["parts"] == [{"functionCall": {"id": "call_1", "name": "read_file", "args": {}}}]
    response = contents[2]["parts"][0]["functionResponse"]  # type: ignore[index]
    assert response["response"] == {"error": "no such file"}  # a failed tool is reported as an error


def test_an_unreadable_tool_call_row_is_sent_as_its_text(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    contents = _sent_contents(
        fake_llm,
        gemini,
        msg(1, Role.USER, "go", wire="gemini"),
        msg(2, Role.ASSISTANT, "I meant to call a tool {", Status.TOOL_CALL, wire="gemini"),
        msg(3, Role.USER, "well?", wire="gemini"),
    )
    assert contents[1] == {"role": "model", "parts": [{"text": "I meant to call a tool {"}]}


def test_thoughts_are_replayed_only_when_signed(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    row = json.dumps(
        {
            "role": "model",
            "parts": [
                {"text": "unsigned musing", "thought": True},
                {"text": "signed musing", "thought": True, "thoughtSignature": SIGNED},
                {"text": ""},
                {"text": "", "thoughtSignature": SIGNED},
                "not a part",
                {"function_call": {"id": "c7", "name": "read_file", "args": {"path": "b"}}},
            ],
        }
    )
    contents = _sent_contents(
        fake_llm,
        gemini,
        msg(1, Role.USER, "go", wire="gemini"),
        msg(2, Role.ASSISTANT, row, Status.TOOL_CALL, wire="gemini"),
        msg(3, Role.TOOL, "B-CONTENT", wire="gemini", call_id="c7"),
    )
    parts = contents[1]["parts"]
    assert [p.get("text") for p in parts] == ["signed musing", "", None]  # type: ignore[union-attr]
    call = parts[2]["functionCall"]  # type: ignore[index]
    assert call == {"id": "c7", "name": "read_file", "args": {"path": "b"}}  # a snake_case row is read too


def test_a_note_from_slop_goes_in_the_users_turn(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    contents = _sent_contents(
        fake_llm,
        gemini,
        msg(1, Role.USER, "hi", wire="gemini"),
        msg(2, Role.ASSISTANT, "hello", wire="gemini"),
        msg(3, Role.SYSTEM, "the user switched to fake-gemini", wire="gemini"),
        msg(4, Role.SYSTEM, "", wire="gemini"),
        msg(5, Role.ASSISTANT, "", wire="gemini"),
        msg(6, Role.USER, "still there?", wire="gemini"),
    )
    assert contents == [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"text": "hello"}]},
        {"role": "user", "parts": [{"text": "the user switched to fake-gemini"}, {"text": "still there?"}]},
    ]


# ---- Code Assist's stream -------------------------------------------------------------------------
def _gca(fake: FakeLLM, token: Path) -> CodeAssistProvider:
    return CodeAssistProvider(token_path=str(token), project="p", base_url=fake.gca_base_url, max_retries=0)


def test_code_assist_error_inside_the_stream(gca_env: FakeLLM, token_file: Path) -> None:
    gca_env.enqueue_stream_error("Quota exceeded for this model", text_prefix="Partial", code=429)
    with pytest.raises(ProviderError, match="Quota exceeded for this model"):
        run(_gca(gca_env, token_file), user_prompt())


def test_code_assist_garbage_in_the_stream(gca_env: FakeLLM, token_file: Path) -> None:
    gca_env.enqueue_malformed()
    with pytest.raises(BadResponse, match="Gemini Code Assist sent a malformed stream event"):
        run(_gca(gca_env, token_file), user_prompt())
