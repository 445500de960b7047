"""What the user reads when an OpenAI-compatible server refuses a request, through the
real `openai` SDK against the fake server: one line that says what happened and what to
do, the right error kind (retried, auth, too long), and how many requests were made.
Also the history rows that are not plain messages, as the server receives them."""

from __future__ import annotations

import json

import pytest

from slop.errors import AuthError, BadResponse, ContextTooLong, ProviderError, ProviderUnavailable, RateLimited
from slop.providers.openai_compat import OpenAIProvider
from slop.records import Role, Status
from tests.fakellm import FakeLLM
from tests.providers.helpers import msg, prompt_of, run, user_prompt


def _provider(fake: FakeLLM, retries: int = 0) -> OpenAIProvider:
    return OpenAIProvider(api_key="sk-test", base_url=fake.openai_base_url, model="fake-gpt", max_retries=retries)


def _completions(fake: FakeLLM) -> int:
    return sum(r.path.endswith("/chat/completions") for r in fake.requests)


@pytest.mark.parametrize("status", [401, 403])
def test_a_rejected_key_names_the_server_and_the_variable(fake_llm: FakeLLM, status: int) -> None:
    fake_llm.enqueue_error(status)
    with pytest.raises(AuthError) as info:
        run(_provider(fake_llm, retries=2), user_prompt())
    assert str(info.value) == (
        f"the server at {fake_llm.openai_base_url} rejected the API key ({status}); check OPENAI_API_KEY"
    )
    assert info.value.status == status
    assert _completions(fake_llm) == 1  # a wrong key is not retried


def test_429_reports_the_wait_the_server_asked_for(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(429, headers={"Retry-After": "12"})
    with pytest.raises(RateLimited) as info:
        run(_provider(fake_llm), user_prompt())
    assert str(info.value) == (
        "rate limited by the provider (429) after retries; the server asks to wait 12s; try again shortly"
    )
    assert info.value.retry_after == 12


def test_429_with_a_millisecond_hint(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(429, headers={"retry-after-ms": "30000", "Retry-After": "99"})
    with pytest.raises(RateLimited) as info:
        run(_provider(fake_llm), user_prompt())
    assert info.value.retry_after == 30
    assert "asks to wait 30s" in str(info.value)


def test_429_without_a_usable_hint_says_only_try_again(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(429, headers={"Retry-After": "whenever"})
    with pytest.raises(RateLimited) as info:
        run(_provider(fake_llm), user_prompt())
    assert str(info.value) == "rate limited by the provider (429) after retries; try again shortly"
    assert info.value.retry_after is None


def test_429_is_retried_by_the_sdk_after_the_servers_wait(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(429, headers={"retry-after-ms": "10"})
    fake_llm.enqueue_text("made it")
    reply, _ = run(_provider(fake_llm, retries=1), user_prompt())
    assert reply.text == "made it"
    assert _completions(fake_llm) == 2


def test_5xx_after_retries_quotes_the_server(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(503, message="The engine is currently overloaded", headers={"retry-after-ms": "10"})
    fake_llm.enqueue_error(503, message="The engine is currently overloaded")
    with pytest.raises(ProviderUnavailable) as info:
        run(_provider(fake_llm, retries=1), user_prompt())
    assert str(info.value) == "the provider failed (503) after retries: The engine is currently overloaded"
    assert info.value.status == 503
    assert _completions(fake_llm) == 2


@pytest.mark.parametrize(
    "body",
    [
        {
            "error": {
                "message": "This model's maximum context length is 8192 tokens. However, you requested 9100 tokens.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
        {  # llama.cpp
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
            }
        },
        {"object": "error", "message": "The input is longer than the maximum model length of 4096", "code": 400},
    ],
)
def test_a_prompt_too_long_is_recognised_in_each_servers_wording(fake_llm: FakeLLM, body: dict[str, object]) -> None:
    fake_llm.enqueue_error(400, body=body)
    with pytest.raises(ContextTooLong) as info:
        run(_provider(fake_llm, retries=2), user_prompt())
    assert str(info.value).startswith("the prompt is too long for the model: ")
    assert _completions(fake_llm) == 1


def test_another_400_is_quoted(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(400, message="Invalid value for 'temperature'")
    with pytest.raises(ProviderError) as info:
        run(_provider(fake_llm, retries=2), user_prompt())
    assert type(info.value) is ProviderError
    assert str(info.value) == "the provider answered 400: Invalid value for 'temperature'"
    assert _completions(fake_llm) == 1


def test_an_unknown_model_points_at_models(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(404, message="The model `gpt-nope` does not exist")
    with pytest.raises(ProviderError) as info:
        run(_provider(fake_llm), user_prompt())
    assert str(info.value) == (
        "not found (404): The model `gpt-nope` does not exist; check the model name (/models lists them)"
    )


def test_an_error_body_without_the_error_wrapper_is_still_quoted(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(422, body={"message": "messages[0].content must be a string"})
    with pytest.raises(ProviderError, match=r"^the provider answered 422: messages\[0\]\.content must be a string$"):
        run(_provider(fake_llm), user_prompt())


def test_a_plain_text_error_body(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(502, body="Bad Gateway")
    with pytest.raises(ProviderUnavailable) as info:
        run(_provider(fake_llm), user_prompt())
    assert str(info.value).startswith("the provider failed (502) after retries: ")
    assert info.value.status == 502


def test_an_unreachable_server_names_the_url_to_check(fake_llm: FakeLLM) -> None:
    provider, url = _provider(fake_llm), fake_llm.openai_base_url
    fake_llm.stop()  # nothing listens on the port any more
    with pytest.raises(ProviderUnavailable) as info:
        run(provider, user_prompt())
    assert str(info.value) == f"cannot reach {url}; check OPENAI_BASE_URL and that the server is running"


def test_a_reply_that_is_not_json(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_malformed()
    with pytest.raises(BadResponse, match="try again"):
        run(_provider(fake_llm), user_prompt())


def test_an_error_inside_the_stream_keeps_what_arrived(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_stream_error("upstream provider timed out", text_prefix="Half an ans", code=504)
    with pytest.raises(BadResponse) as info:
        run(_provider(fake_llm), user_prompt())
    assert str(info.value) == "the server reported an error mid-reply (504): upstream provider timed out; try again"
    assert info.value.partial == "Half an ans"


def test_a_context_error_inside_the_stream_is_too_long(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_stream_error("prompt has too many tokens for this model", code=400)
    with pytest.raises(ContextTooLong, match="too many tokens"):
        run(_provider(fake_llm), user_prompt())


# ---- history rows that are not plain messages -----------------------------------------------
def test_odd_history_rows_as_the_server_receives_them(fake_llm: FakeLLM) -> None:
    text_only = json.dumps({"role": "assistant", "content": "I will not call anything after all", "tool_calls": []})
    nothing = json.dumps({"role": "assistant", "content": None, "tool_calls": []})
    prompt = prompt_of(
        msg(1, Role.USER, "first", wire="openai"),
        msg(2, Role.ASSISTANT, text_only, Status.TOOL_CALL, wire="openai"),
        msg(3, Role.USER, "second", wire="openai"),
        msg(4, Role.ASSISTANT, nothing, Status.TOOL_CALL, wire="openai"),
        msg(5, Role.ASSISTANT, "", wire="openai", reasoning="thought only"),
        msg(6, Role.SYSTEM, "the user switched model", wire="openai"),
        msg(7, Role.SYSTEM, "", wire="openai"),
        msg(8, Role.USER, "third", wire="openai"),
        wire="openai",
    )
    fake_llm.enqueue_text("ok")
    run(_provider(fake_llm), prompt)
    messages = fake_llm.last_request().json["messages"]
    assert messages == [
        {"role": "system", "content": "You are a test assistant."},
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "I will not call anything after all"},
        {"role": "user", "content": "second"},
        {"role": "system", "content": "the user switched model"},
        {"role": "user", "content": "third"},
    ]
