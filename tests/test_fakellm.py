"""The fake LLM server against the real `openai` and `google-genai` SDKs (and raw httpx for
Gemini Code Assist, which has no SDK). These tests pin what the SDKs do with each reply."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam

from tests.fakellm import DEFAULT_TEXT, FakeLLM

USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]


@pytest.fixture
def oai(fake_llm: FakeLLM) -> Iterator[OpenAI]:
    with OpenAI(base_url=fake_llm.openai_base_url, api_key="x", max_retries=0) as client:
        yield client


@pytest.fixture
def gem(fake_llm: FakeLLM) -> Iterator[genai.Client]:
    opts = types.HttpOptions(base_url=fake_llm.gemini_base_url)
    with genai.Client(api_key="x", http_options=opts) as client:
        yield client


def collect_stream(client: OpenAI, **kwargs: Any) -> list[Any]:
    stream: Any = client.chat.completions.create(model="fake-gpt", messages=USER, stream=True, **kwargs)
    with stream:
        return list(stream)


def reassemble_tool_calls(chunks: list[Any]) -> dict[int, dict[str, str]]:
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        for tc in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            call = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
            call["id"] += tc.id or ""
            call["name"] += tc.function.name or ""
            call["arguments"] += tc.function.arguments or ""
    return calls


# -- OpenAI ---------------------------------------------------------------------------------


def test_openai_non_stream_text_and_request_recorded(fake_llm: FakeLLM, oai: OpenAI) -> None:
    fake_llm.enqueue_text("Hello world", usage=(12, 3))
    resp = oai.chat.completions.create(model="fake-gpt", messages=USER)
    assert resp.choices[0].message.content == "Hello world"
    assert resp.choices[0].finish_reason == "stop"
    assert resp.model == "fake-gpt"
    assert resp.usage is not None
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens, resp.usage.total_tokens) == (12, 3, 15)
    req = fake_llm.last_request()
    assert (req.method, req.path, req.protocol) == ("POST", "/v1/chat/completions", "openai")
    assert req.headers["authorization"] == "Bearer x"
    assert req.json == {"model": "fake-gpt", "messages": USER}
    # the server marks the request once its last byte is written, which the client may
    # have read already: wait for the server's side to finish
    deadline = time.monotonic() + 5
    while not req.finished and time.monotonic() < deadline:
        time.sleep(0.01)
    assert req.completed


def test_openai_stream_text_with_usage(fake_llm: FakeLLM, oai: OpenAI) -> None:
    fake_llm.enqueue_text("Hello brave new world", chunks=["Hello", " brave", " new", " world"], usage=(7, 4))
    chunks = collect_stream(oai, stream_options={"include_usage": True})
    deltas = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert deltas == ["Hello", " brave", " new", " world"]
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    last = chunks[-1]
    assert last.choices == []
    assert last.usage is not None
    assert (last.usage.prompt_tokens, last.usage.completion_tokens) == (7, 4)
    assert all(c.usage is None for c in chunks[:-1])
    assert fake_llm.last_request().json["stream_options"] == {"include_usage": True}


def test_openai_stream_splits_text_by_default_and_omits_usage(fake_llm: FakeLLM, oai: OpenAI) -> None:
    text = "The quick brown fox jumps over the lazy dog, twice."
    fake_llm.enqueue_text(text)
    chunks = collect_stream(oai)
    deltas = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert "".join(deltas) == text
    assert 6 <= len(deltas) <= 9
    assert all(c.usage is None and c.choices for c in chunks)


def test_openai_reasoning_content(fake_llm: FakeLLM, oai: OpenAI) -> None:
    fake_llm.enqueue_text("Answer.", reasoning="Let me think about it.")
    chunks = collect_stream(oai, stream_options={"include_usage": True})
    reasoning = "".join(getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices)
    assert reasoning == "Let me think about it."
    assert chunks[-1].usage is not None
    details = chunks[-1].usage.completion_tokens_details
    assert details is not None and details.reasoning_tokens == 6

    fake_llm.enqueue_text("Answer.", reasoning="Hmm.")
    message = oai.chat.completions.create(model="fake-gpt", messages=USER).choices[0].message
    assert message.content == "Answer."
    assert getattr(message, "reasoning_content", None) == "Hmm."


def test_openai_streamed_parallel_tool_calls(fake_llm: FakeLLM, oai: OpenAI) -> None:
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
    fake_llm.enqueue_tool_calls(
        [
            ("read_file", {"path": "a.txt", "limit": 10}, "call_a"),
            ("run", {"cmd": "ls -la", "env": {"X": "ü"}}),
        ],
        text="Let me look.",
    )
    chunks = collect_stream(oai, tools=tools)
    calls = reassemble_tool_calls(chunks)
    assert [calls[0]["name"], calls[1]["name"]] == ["read_file", "run"]
    assert json.loads(calls[0]["arguments"]) == {"path": "a.txt", "limit": 10}
    assert json.loads(calls[1]["arguments"]) == {"cmd": "ls -la", "env": {"X": "ü"}}
    assert calls[0]["id"] == "call_a"
    assert calls[1]["id"].startswith("call_fake")
    argument_deltas = [
        tc.function.arguments
        for c in chunks
        for tc in c.choices[0].delta.tool_calls or []
        if tc.index == 0 and tc.function.arguments
    ]
    assert len(argument_deltas) > 1  # split over several chunks, like the real API
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Let me look."
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    assert fake_llm.last_request().json["tools"] == tools


def test_openai_raw_malformed_arguments_pass_through(fake_llm: FakeLLM, oai: OpenAI) -> None:
    raw = '{"path": "a.txt", '
    fake_llm.enqueue_tool_calls([("read_file", raw)])
    assert reassemble_tool_calls(collect_stream(oai))[0]["arguments"] == raw

    fake_llm.enqueue_tool_calls([("read_file", raw)])
    message = oai.chat.completions.create(model="fake-gpt", messages=USER).choices[0].message
    assert message.content is None
    assert message.tool_calls is not None
    call = message.tool_calls[0]
    assert call.type == "function"
    assert call.function.arguments == raw


def test_openai_401_raises_authentication_error(fake_llm: FakeLLM, oai: OpenAI) -> None:
    fake_llm.enqueue_error(401)
    with pytest.raises(openai.AuthenticationError) as info:
        oai.chat.completions.create(model="fake-gpt", messages=USER)
    assert info.value.status_code == 401
    assert info.value.code == "invalid_api_key"
    assert "Incorrect API key" in info.value.message


def test_openai_429_raises_rate_limit_error_with_retry_after(fake_llm: FakeLLM, oai: OpenAI) -> None:
    fake_llm.enqueue_error(429, retry_after=2)
    with pytest.raises(openai.RateLimitError) as info:
        collect_stream(oai)
    assert info.value.response.headers["retry-after"] == "2"
    assert info.value.code == "rate_limit_exceeded"


def test_openai_500_and_custom_body(fake_llm: FakeLLM, oai: OpenAI) -> None:
    fake_llm.enqueue_error(500)
    fake_llm.enqueue_error(
        400, body={"error": {"message": "context too long", "type": "x", "code": "context_length_exceeded"}}
    )
    with pytest.raises(openai.InternalServerError):
        oai.chat.completions.create(model="fake-gpt", messages=USER)
    with pytest.raises(openai.BadRequestError) as info:
        oai.chat.completions.create(model="fake-gpt", messages=USER)
    assert info.value.code == "context_length_exceeded"


def test_openai_cutoff_abort_raises_connection_error_after_the_prefix(fake_llm: FakeLLM, oai: OpenAI) -> None:
    fake_llm.enqueue_cutoff("Partial answer")
    received: list[str] = []
    with pytest.raises(openai.APIConnectionError):
        for chunk in oai.chat.completions.create(model="fake-gpt", messages=USER, stream=True):
            received.append(chunk.choices[0].delta.content or "")
    assert "".join(received) == "Partial answer"


def test_openai_cutoff_eof_ends_quietly_without_finish_reason(fake_llm: FakeLLM, oai: OpenAI) -> None:
    fake_llm.enqueue_cutoff("Partial answer", mode="eof")
    chunks = collect_stream(oai)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Partial answer"
    assert all(c.choices[0].finish_reason is None for c in chunks)


def test_openai_malformed_sse_raises_json_decode_error(fake_llm: FakeLLM, oai: OpenAI) -> None:
    fake_llm.enqueue_malformed()
    with pytest.raises(json.JSONDecodeError):
        collect_stream(oai)


def test_openai_models_list(fake_llm: FakeLLM, oai: OpenAI) -> None:
    assert [m.id for m in oai.models.list()] == ["fake-gpt", "fake-gpt-mini"]
    fake_llm.models = ["m1"]
    assert [m.id for m in oai.models.list()] == ["m1"]
    assert fake_llm.last_request().path == "/v1/models"


def test_openai_require_key(fake_llm: FakeLLM, oai: OpenAI) -> None:
    fake_llm.require_key = "sk-test"
    with pytest.raises(openai.AuthenticationError):
        oai.chat.completions.create(model="fake-gpt", messages=USER)
    with OpenAI(base_url=fake_llm.openai_base_url, api_key="sk-test", max_retries=0) as good:
        assert good.chat.completions.create(model="fake-gpt", messages=USER).choices[0].message.content
    assert fake_llm.unscripted == 1  # the refused request consumed nothing


def test_unscripted_requests_get_default_text_and_are_counted(fake_llm: FakeLLM, oai: OpenAI) -> None:
    assert oai.chat.completions.create(model="fake-gpt", messages=USER).choices[0].message.content == DEFAULT_TEXT
    assert fake_llm.unscripted == 1
    fake_llm.reset()
    assert (fake_llm.unscripted, fake_llm.requests) == (0, [])


def test_cancelled_stream_is_seen_by_the_server_and_stop_is_prompt(fake_llm: FakeLLM, oai: OpenAI) -> None:
    fake_llm.enqueue_text("x" * 40, chunks=["x"] * 40, delay=0.02)
    stream = oai.chat.completions.create(model="fake-gpt", messages=USER, stream=True)
    first = [next(stream), next(stream)]
    stream.close()
    assert first[1].choices[0].delta.content == "x"
    req = fake_llm.wait_for_requests(1)[0]
    deadline = time.monotonic() + 2
    while not req.finished and time.monotonic() < deadline:
        time.sleep(0.01)
    assert req.finished and not req.completed  # the server noticed the client went away

    fake_llm.enqueue_text("slow", chunks=["s", "l", "o", "w"], delay=5)
    stream = oai.chat.completions.create(model="fake-gpt", messages=USER, stream=True)
    next(stream)
    started = time.monotonic()
    fake_llm.stop()
    assert time.monotonic() - started < 1
    with pytest.raises(openai.APIConnectionError):
        list(stream)


# -- Gemini (google-genai) ------------------------------------------------------------------


def test_gemini_generate_content_text_and_usage(fake_llm: FakeLLM, gem: genai.Client) -> None:
    fake_llm.enqueue_text("Hello from Gemini", usage=(20, 5))
    resp = gem.models.generate_content(model="fake-gemini", contents="hi")
    assert resp.text == "Hello from Gemini"
    assert resp.candidates and resp.candidates[0].finish_reason == types.FinishReason.STOP
    meta = resp.usage_metadata
    assert meta is not None
    assert (meta.prompt_token_count, meta.candidates_token_count, meta.total_token_count) == (20, 5, 25)
    req = fake_llm.last_request()
    assert (req.path, req.protocol) == ("/v1/models/fake-gemini:generateContent", "gemini")
    assert req.headers["x-goog-api-key"] == "x"
    assert req.json["contents"] == [{"parts": [{"text": "hi"}], "role": "user"}]


def test_gemini_stream_chunks(fake_llm: FakeLLM, gem: genai.Client) -> None:
    fake_llm.enqueue_text("one two three", chunks=["one", " two", " three"], usage=(9, 3))
    chunks = list(gem.models.generate_content_stream(model="fake-gemini", contents="hi"))
    assert [c.text for c in chunks] == ["one", " two", " three"]
    last = chunks[-1]
    assert last.candidates and last.candidates[0].finish_reason == types.FinishReason.STOP
    assert last.usage_metadata is not None and last.usage_metadata.candidates_token_count == 3
    assert chunks[0].usage_metadata is not None and chunks[0].usage_metadata.candidates_token_count is None
    req = fake_llm.last_request()
    assert (req.path, req.query) == ("/v1/models/fake-gemini:streamGenerateContent", {"alt": "sse"})


@pytest.mark.parametrize("stream", [False, True])
def test_gemini_function_calls_with_thought_signature(fake_llm: FakeLLM, gem: genai.Client, stream: bool) -> None:
    fake_llm.enqueue_tool_calls(
        [("read_file", {"path": "a.txt"}, "fc-1"), ("run", {"cmd": "ls", "n": [1, 2]})], text="Checking."
    )
    if stream:
        chunks = list(gem.models.generate_content_stream(model="fake-gemini", contents="hi"))
        parts = [p for c in chunks if c.candidates for p in (c.candidates[0].content.parts or [])]  # type: ignore[union-attr]
    else:
        resp = gem.models.generate_content(model="fake-gemini", contents="hi")
        assert resp.candidates and resp.candidates[0].content
        parts = resp.candidates[0].content.parts or []
    calls = [p for p in parts if p.function_call]
    assert [(p.function_call.name, p.function_call.args, p.function_call.id) for p in calls if p.function_call] == [
        ("read_file", {"path": "a.txt"}, "fc-1"),
        ("run", {"cmd": "ls", "n": [1, 2]}, None),
    ]
    assert "".join(p.text or "" for p in parts) == "Checking."
    assert isinstance(calls[0].thought_signature, bytes)
    assert calls[0].thought_signature == base64.b64decode(fake_llm.thought_signatures[-1])
    assert calls[1].thought_signature is None


def test_gemini_chat_sends_the_thought_signature_back(fake_llm: FakeLLM, gem: genai.Client) -> None:
    fake_llm.enqueue_tool_calls([("ls", {"path": "."})])
    fake_llm.enqueue_text("done")
    chat = gem.chats.create(model="fake-gemini")
    chat.send_message("list files")
    reply = chat.send_message(types.Part.from_function_response(name="ls", response={"out": "a.txt"}))
    assert reply.text == "done"
    req = fake_llm.last_request()
    assert FakeLLM.signatures_in(req) == fake_llm.thought_signature_bytes
    sent = req.json["contents"][1]["parts"][0]["thoughtSignature"]
    assert sent != fake_llm.thought_signatures[0]  # the SDK re-encodes it url-safe


def test_gemini_thought_parts(fake_llm: FakeLLM, gem: genai.Client) -> None:
    fake_llm.enqueue_text("The answer.", reasoning="Thinking it through.", usage=(10, 3, 4))
    chunks = list(gem.models.generate_content_stream(model="fake-gemini", contents="hi"))
    parts = [p for c in chunks if c.candidates for p in (c.candidates[0].content.parts or [])]  # type: ignore[union-attr]
    assert "".join(p.text or "" for p in parts if p.thought) == "Thinking it through."
    assert "".join(p.text or "" for p in parts if not p.thought) == "The answer."
    meta = chunks[-1].usage_metadata
    assert meta is not None and (meta.thoughts_token_count, meta.total_token_count) == (4, 17)


def test_gemini_429_raises_client_error_with_retry_info(fake_llm: FakeLLM, gem: genai.Client) -> None:
    fake_llm.enqueue_error(429, retry_after=7)
    with pytest.raises(genai_errors.ClientError) as info:
        gem.models.generate_content(model="fake-gemini", contents="hi")
    assert (info.value.code, info.value.status) == (429, "RESOURCE_EXHAUSTED")
    retry = [d for d in info.value.details["error"]["details"] if d["@type"].endswith("RetryInfo")]
    assert retry == [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}]


def test_gemini_500_on_stream_raises_server_error(fake_llm: FakeLLM, gem: genai.Client) -> None:
    fake_llm.enqueue_error(500)
    with pytest.raises(genai_errors.ServerError) as info:
        list(gem.models.generate_content_stream(model="fake-gemini", contents="hi"))
    assert info.value.code == 500


def test_gemini_models_list(fake_llm: FakeLLM, gem: genai.Client) -> None:
    models = list(gem.models.list())
    assert [m.name for m in models] == ["models/fake-gemini", "models/fake-gemini-flash"]
    assert models[0].supported_actions == ["generateContent", "countTokens"]
    req = fake_llm.last_request()
    assert (req.path, req.protocol) == ("/v1/models", "gemini")


def test_gemini_special_replies(fake_llm: FakeLLM, gem: genai.Client) -> None:
    fake_llm.enqueue_gemini_special("malformed_function_call")
    fake_llm.enqueue_gemini_special("empty")
    resp = gem.models.generate_content(model="fake-gemini", contents="hi")
    assert resp.candidates and resp.candidates[0].finish_reason == types.FinishReason.MALFORMED_FUNCTION_CALL
    assert resp.candidates[0].content is None
    chunks = list(gem.models.generate_content_stream(model="fake-gemini", contents="hi"))
    assert [c.candidates for c in chunks] == [None]


def test_gemini_cutoff_stream_raises_raw_httpx_error(fake_llm: FakeLLM, gem: genai.Client) -> None:
    fake_llm.enqueue_cutoff("Partial")
    received: list[str] = []
    with pytest.raises(httpx2.RemoteProtocolError):  # genai uses httpx2 and does not wrap this
        for chunk in gem.models.generate_content_stream(model="fake-gemini", contents="hi"):
            received.append(chunk.text or "")
    assert "".join(received) == "Partial"


def test_gemini_require_key(fake_llm: FakeLLM, gem: genai.Client) -> None:
    fake_llm.require_key = "sk-test"
    with pytest.raises(genai_errors.ClientError) as info:
        gem.models.generate_content(model="fake-gemini", contents="hi")
    assert info.value.code == 400
    assert info.value.details["error"]["details"][0]["reason"] == "API_KEY_INVALID"
    opts = types.HttpOptions(base_url=fake_llm.gemini_base_url)
    with genai.Client(api_key="sk-test", http_options=opts) as good:
        assert good.models.generate_content(model="fake-gemini", contents="hi").text == DEFAULT_TEXT


# -- shared queue, Code Assist, the standalone script ------------------------------------


def test_queue_is_shared_across_protocols(fake_llm: FakeLLM, oai: OpenAI, gem: genai.Client) -> None:
    fake_llm.enqueue_text("first")
    fake_llm.enqueue_text("second")
    assert gem.models.generate_content(model="fake-gemini", contents="hi").text == "first"
    assert oai.chat.completions.create(model="fake-gpt", messages=USER).choices[0].message.content == "second"
    assert [r.protocol for r in fake_llm.requests] == ["gemini", "openai"]
    assert (fake_llm.pending, fake_llm.unscripted) == (0, 0)


def test_code_assist_endpoints(fake_llm: FakeLLM) -> None:
    with httpx.Client(base_url=fake_llm.gca_base_url) as http:
        token = http.post("/token", data={"grant_type": "refresh_token", "refresh_token": "r"}).json()
        assert token == {
            "access_token": "fake-access-1",
            "expires_in": 3600,
            "token_type": "Bearer",
            "scope": "https://www.googleapis.com/auth/cloud-platform",
        }
        assert fake_llm.last_request("/token").form == {"grant_type": "refresh_token", "refresh_token": "r"}
        auth = {"Authorization": "Bearer fake-access-1"}
        assert http.post("/v1internal:loadCodeAssist", json={}).status_code == 401
        load = http.post("/v1internal:loadCodeAssist", json={"metadata": {}}, headers=auth).json()
        assert load["cloudaicompanionProject"] == "fake-project"

        envelope = {"model": "gemini-2.5-pro", "project": "fake-project", "request": {"contents": []}}
        fake_llm.enqueue_text("ab", chunks=["a", "b"])
        with http.stream("POST", "/v1internal:streamGenerateContent?alt=sse", json=envelope, headers=auth) as resp:
            events = [json.loads(line[6:]) for line in resp.iter_lines() if line.startswith("data: ")]
        assert [e["response"]["candidates"][0]["content"]["parts"][0]["text"] for e in events] == ["a", "b"]
        assert events[-1]["response"]["modelVersion"] == "gemini-2.5-pro"

        fake_llm.enqueue_error(429)
        resp = http.post("/v1internal:generateContent", json=envelope, headers=auth)
        assert resp.status_code == 429 and resp.json()["error"]["status"] == "RESOURCE_EXHAUSTED"
        assert fake_llm.last_request().json == envelope


def test_run_fakellm_script(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(["scripted hello", {"tool_calls": [{"name": "ls", "args": {}}]}]))
    root = Path(__file__).resolve().parents[1]
    cmd = [sys.executable, str(root / "scripts" / "run_fakellm.py"), "--port", "0", "--script", str(script)]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            base_url = proc.stdout.readline().strip().removeprefix("OPENAI_BASE_URL=")
            assert proc.stdout.readline().startswith("GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:")
            with OpenAI(base_url=base_url, api_key="x", max_retries=0) as client:
                resp = client.chat.completions.create(model="fake-gpt", messages=USER)
            assert resp.choices[0].message.content == "scripted hello"
        finally:
            proc.terminate()
            proc.wait(timeout=5)
            proc.stdout.close()  # type: ignore[union-attr]
