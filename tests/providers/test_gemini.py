"""GeminiProvider: the real google-genai SDK against the fake server."""

from __future__ import annotations

import base64
import json
import threading
import time

import pytest

from slop import parser
from slop.errors import AuthError, BadResponse, ContextTooLong, ProviderUnavailable, RateLimited
from slop.providers.base import ReasoningDelta, TextDelta
from slop.providers.gemini import GeminiProvider
from slop.providers.registry import ProviderConfig, build
from slop.records import Role, Status
from tests.fakellm import FakeLLM
from tests.providers.helpers import msg, prompt_of, run, user_prompt


@pytest.fixture
def gemini(fake_llm: FakeLLM) -> GeminiProvider:
    return GeminiProvider(
        api_key="gm-key", base_url=fake_llm.gemini_base_url, model="fake-gemini", max_retries=0, retry_base=0.01
    )


def generations(fake: FakeLLM) -> list[dict]:
    return [r.json for r in fake.requests if "GenerateContent" in r.path or "generateContent" in r.path]


def test_registry_builds_it_from_config(fake_llm: FakeLLM) -> None:
    config = ProviderConfig(gemini_api_key="k", gemini_base_url=fake_llm.gemini_base_url, max_retries=1)
    provider = build("gemini", "models/fake-gemini", config)
    assert isinstance(provider, GeminiProvider)
    assert (provider.wire, provider.model) == ("gemini", "fake-gemini")


def test_text_streams_with_usage(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    fake_llm.enqueue_text("Hello brave world", chunks=["Hello", " brave", " world"], usage=(20, 5))
    reply, events = run(gemini, user_prompt("hi there"))
    assert events == [TextDelta("Hello"), TextDelta(" brave"), TextDelta(" world")]
    assert (reply.text, reply.finish_reason, reply.tool_calls, reply.native) == ("Hello brave world", "stop", (), "")
    assert reply.usage is not None
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.total_tokens) == (20, 5, 25)
    assert reply.usage.model == "fake-gemini"
    req = fake_llm.last_request()
    assert (req.path, req.query) == ("/v1/models/fake-gemini:streamGenerateContent", {"alt": "sse"})
    assert req.headers["x-goog-api-key"] == "gm-key"
    assert req.json["contents"] == [{"role": "user", "parts": [{"text": "hi there"}]}]
    assert req.json["systemInstruction"]["parts"] == [{"text": "You are a test assistant."}]
    declaration = req.json["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "read_file"
    schema = declaration.get("parametersJsonSchema") or declaration.get("parameters_json_schema")
    assert schema["required"] == ["path"]


def test_several_function_calls_in_one_reply(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    fake_llm.enqueue_tool_calls(
        [("read_file", {"path": "a.py"}, "api-id-1"), ("read_file", {"path": "b.py"}), ("read_file", {"path": "c.py"})],
        text="Reading three files.",
    )
    reply, events = run(gemini, user_prompt())
    assert reply.finish_reason == "tool_calls"
    assert reply.text == "Reading three files."
    assert [c.name for c in reply.tool_calls] == ["read_file"] * 3
    assert [json.loads(c.arguments) for c in reply.tool_calls] == [{"path": "a.py"}, {"path": "b.py"}, {"path": "c.py"}]
    ids = [c.id for c in reply.tool_calls]
    assert ids[0] == "api-id-1"  # the API's id is kept
    assert all(ids) and len(set(ids)) == 3  # the others get unique generated ids
    stored = msg(2, Role.ASSISTANT, reply.native, Status.TOOL_CALL, wire="gemini")
    parsed = parser.parse(stored)
    assert parsed.tool_calls == reply.tool_calls
    assert parsed.text == "Reading three files."
    assert all(isinstance(e, TextDelta) for e in events)


def test_thought_parts_are_reasoning_not_answer(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    fake_llm.enqueue_text("The answer.", reasoning="Thinking it through.", usage=(10, 3, 4))
    reply, events = run(gemini, user_prompt())
    assert reply.text == "The answer."
    assert reply.reasoning == "Thinking it through."
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Thinking it through."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "The answer."
    assert events.index(next(e for e in events if isinstance(e, TextDelta))) > 0  # thoughts come first
    thinking = fake_llm.last_request().json["generationConfig"]["thinkingConfig"]
    assert thinking in ({"includeThoughts": True}, {"include_thoughts": True})


def test_strip_reasoning_asks_for_no_thoughts(fake_llm: FakeLLM) -> None:
    provider = GeminiProvider(api_key="k", base_url=fake_llm.gemini_base_url, model="fake-gemini", strip_reasoning=True)
    fake_llm.enqueue_text("ok")
    run(provider, user_prompt())
    assert not fake_llm.last_request().json.get("generationConfig", {}).get("thinkingConfig")


def test_thought_signature_round_trips_into_the_next_request(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    fake_llm.enqueue_tool_calls([("read_file", {"path": "a.py"}), ("read_file", {"path": "b.py"})], reasoning="Plan.")
    first, _ = run(gemini, user_prompt("read both"))
    signature = fake_llm.thought_signatures[-1]
    stored = json.loads(first.native)
    signed = [p for p in stored["parts"] if "thoughtSignature" in p]
    assert [p["thoughtSignature"] for p in signed] == [signature]  # stored exactly as the API sent it
    # the next step: the stored row plus both results go back
    c1, c2 = first.tool_calls
    history = (
        msg(1, Role.USER, "read both", wire="gemini"),
        msg(2, Role.ASSISTANT, first.native, Status.TOOL_CALL, wire="gemini"),
        msg(3, Role.TOOL, "A-CONTENT", wire="gemini", call_id=c1.id),
        msg(4, Role.TOOL, "B-CONTENT", Status.ERROR, wire="gemini", call_id=c2.id),
    )
    fake_llm.enqueue_text("Both read.")
    second, _ = run(gemini, prompt_of(*history))
    assert second.text == "Both read."
    contents = fake_llm.last_request().json["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    model_parts = contents[1]["parts"]
    calls = [p for p in model_parts if "functionCall" in p]
    assert [p["functionCall"]["id"] for p in calls] == [c1.id, c2.id]
    sent = [p["thoughtSignature"] for p in model_parts if "thoughtSignature" in p]
    assert len(sent) == 1 and base64.urlsafe_b64decode(sent[0]) == base64.b64decode(signature)  # same bytes
    assert "thoughtSignature" in calls[0] and "thoughtSignature" not in calls[1]  # on the same part
    responses = [p["functionResponse"] for p in contents[2]["parts"]]
    assert responses == [
        {"id": c1.id, "name": "read_file", "response": {"output": "A-CONTENT"}},
        {"id": c2.id, "name": "read_file", "response": {"error": "B-CONTENT"}},
    ]


def test_429_waits_for_the_retry_delay_then_succeeds(fake_llm: FakeLLM) -> None:
    provider = GeminiProvider(api_key="k", base_url=fake_llm.gemini_base_url, model="fake-gemini", max_retries=2)
    fake_llm.enqueue_error(429, retry_after=0.3)
    fake_llm.enqueue_text("after the wait")
    started = time.monotonic()
    reply, _ = run(provider, user_prompt())
    elapsed = time.monotonic() - started
    assert reply.text == "after the wait"
    assert elapsed >= 0.3  # the server's delay is honoured (a lower bound: load only makes it longer)
    assert len(generations(fake_llm)) == 2


def test_429_without_retries_left_reports_the_delay(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    fake_llm.enqueue_error(429, retry_after=7)
    with pytest.raises(RateLimited) as info:
        run(gemini, user_prompt())
    assert info.value.retry_after == 7
    assert "7s" in str(info.value) and "429" in str(info.value)


def test_429_wait_ends_at_once_on_cancel(fake_llm: FakeLLM) -> None:
    provider = GeminiProvider(api_key="k", base_url=fake_llm.gemini_base_url, model="fake-gemini", max_retries=2)
    fake_llm.enqueue_error(429, retry_after=30)
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    started = time.monotonic()
    reply, _ = run(provider, user_prompt(), cancel)
    assert reply.cancelled
    assert time.monotonic() - started < 1.0


def test_5xx_is_retried_with_backoff(fake_llm: FakeLLM) -> None:
    provider = GeminiProvider(
        api_key="k", base_url=fake_llm.gemini_base_url, model="fake-gemini", max_retries=1, retry_base=0.01
    )
    fake_llm.enqueue_error(503)
    fake_llm.enqueue_text("recovered")
    assert run(provider, user_prompt())[0].text == "recovered"


def test_malformed_function_call_is_a_clear_error(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    fake_llm.enqueue_gemini_special("malformed_function_call")
    with pytest.raises(BadResponse, match="MALFORMED_FUNCTION_CALL"):
        run(gemini, user_prompt())


def test_empty_candidates_is_a_clear_error(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    fake_llm.enqueue_gemini_special("empty")
    with pytest.raises(BadResponse, match="no candidates"):
        run(gemini, user_prompt())
    fake_llm.enqueue_gemini_special("blocked")
    with pytest.raises(BadResponse, match=r"blocked the prompt \(SAFETY\)"):
        run(gemini, user_prompt())
    fake_llm.enqueue_gemini_special("safety")
    with pytest.raises(BadResponse, match="SAFETY"):
        run(gemini, user_prompt())


def test_401_and_bad_key_are_auth_errors(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    fake_llm.enqueue_error(401)
    with pytest.raises(AuthError, match="GEMINI_API_KEY") as info:
        run(gemini, user_prompt())
    assert info.value.status == 401
    fake_llm.require_key = "the-right-key"
    with pytest.raises(AuthError, match="API key not valid"):
        run(gemini, user_prompt())


def test_missing_key_is_an_auth_error_before_any_request(fake_llm: FakeLLM) -> None:
    provider = GeminiProvider(api_key="", model="fake-gemini")
    with pytest.raises(AuthError, match="GEMINI_API_KEY"):
        run(provider, user_prompt())
    assert fake_llm.requests == []


def test_context_too_long(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    message = "The input token count (2000000) exceeds the maximum number of tokens allowed (1048576)."
    fake_llm.enqueue_error(400, message=message)
    with pytest.raises(ContextTooLong, match="input token count"):
        run(gemini, user_prompt())


def test_cut_off_stream_keeps_the_partial_text(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    fake_llm.enqueue_cutoff("Partial answer", mode="eof")
    with pytest.raises(BadResponse, match="cut off") as info:
        run(gemini, user_prompt())
    assert info.value.partial == "Partial answer"
    fake_llm.enqueue_cutoff("Dropped mid", mode="abort")
    with pytest.raises(BadResponse) as info2:
        run(gemini, user_prompt())
    assert info2.value.partial == "Dropped mid"


def test_malformed_stream_is_a_bad_response(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    fake_llm.enqueue_malformed()
    with pytest.raises(BadResponse):
        run(gemini, user_prompt())


def test_cancel_mid_stream_returns_the_partial_reply_fast(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    fake_llm.enqueue_text("one two three four five six", delay=0.3)
    cancel = threading.Event()
    seen: list[str] = []

    def on_event(event: object) -> None:
        if isinstance(event, TextDelta):
            seen.append(event.text)
            cancel.set()

    started = time.monotonic()
    reply = gemini.stream(user_prompt(), cancel, on_event)
    assert reply.cancelled and reply.text == "".join(seen) and reply.text
    assert time.monotonic() - started < 1.0


def test_list_models(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    assert gemini.list_models() == ["fake-gemini", "fake-gemini-flash"]


def test_unreachable_server_is_provider_unavailable() -> None:
    provider = GeminiProvider(api_key="k", base_url="http://127.0.0.1:9", model="fake-gemini", max_retries=0)
    with pytest.raises(ProviderUnavailable, match="cannot reach"):
        provider.list_models()
    with pytest.raises(ProviderUnavailable):
        run(provider, user_prompt())
