"""REST dicts <-> google-genai SDK types: what the real SDK puts on the wire for the
history slop stores (thought signatures byte for byte, parts the SDK does not know
reduced rather than failing the turn), and the REST form slop reads back from it."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from google.genai import types

from slop.providers.gemini import GeminiProvider
from slop.providers.gemini_sdk import SDK_SNAKE_KEYS, sdk_to_rest, sdk_wire_form, to_sdk_content
from slop.records import Role, Status
from tests.fakellm import FakeLLM
from tests.providers.helpers import msg, prompt_of, run

SIGNATURE = b"\xfb\xff\xfe-signed-by-the-api"  # bytes whose base64 forms differ (+/ vs -_)
STANDARD = base64.b64encode(SIGNATURE).decode()
URLSAFE = base64.urlsafe_b64encode(SIGNATURE).decode()


def test_the_two_alphabets_differ_for_this_signature() -> None:
    assert STANDARD != URLSAFE and "+" in STANDARD and "-" in URLSAFE


# ---- REST -> SDK --------------------------------------------------------------------------
def test_a_valid_content_keeps_every_part_and_the_signature_bytes() -> None:
    content = to_sdk_content(
        {
            "role": "model",
            "parts": [
                {"text": "thinking about it", "thought": True, "thoughtSignature": STANDARD},
                {"functionCall": {"id": "c1", "name": "read_file", "args": {"path": "a.py"}}},
            ],
        }
    )
    assert isinstance(content, types.Content) and content.role == "model"
    first, second = content.parts
    assert (first.text, first.thought, first.thought_signature) == ("thinking about it", True, SIGNATURE)
    assert second.function_call is not None
    assert (second.function_call.id, second.function_call.name, second.function_call.args) == (
        "c1",
        "read_file",
        {"path": "a.py"},
    )


def test_fields_the_sdk_does_not_know_are_dropped_not_fatal() -> None:
    # A row stored from a newer API version may carry fields this SDK rejects.
    content = to_sdk_content(
        {
            "role": "model",
            "parts": [
                {"text": "here", "futureField": {"x": 1}},
                {
                    "functionCall": {"id": "c9", "name": "grep", "args": {"q": "x"}, "futureArg": 1},
                    "thoughtSignature": STANDARD,
                },
                {"functionResponse": {"id": "c9", "name": "grep", "response": {"output": "hit"}, "extra": 2}},
            ],
        }
    )
    text, call, response = content.parts
    assert text.text == "here"
    assert call.function_call.name == "grep" and call.function_call.args == {"q": "x"}
    assert call.thought_signature == SIGNATURE  # the signature survives the reduction
    assert response.function_response.response == {"output": "hit"}


@pytest.mark.parametrize(
    ("part", "text"),
    [
        ("a bare string part", "a bare string part"),
        (42, "42"),
        ({"onlyUnknown": True}, '{"onlyUnknown": true}'),  # not an empty part the API would refuse
        ({"text": 7}, '{"text": 7}'),  # a known key with a value the SDK rejects
    ],
)
def test_a_part_nothing_can_be_made_of_is_sent_as_text(part: Any, text: str) -> None:
    content = to_sdk_content({"parts": [part]})
    assert content.role == "user"  # a content without a role is the user's
    [sdk_part] = content.parts
    assert sdk_part.text == text


def test_a_content_without_parts_stays_empty() -> None:
    content = to_sdk_content({"role": "model", "parts": None, "bogus": 1})
    assert (content.role, content.parts) == ("model", [])


# ---- SDK -> REST --------------------------------------------------------------------------
def test_a_response_is_read_back_with_signatures_as_the_api_sent_them() -> None:
    chunk = types.GenerateContentResponse(
        candidates=[
            types.Candidate(
                content=types.Content(
                    role="model",
                    parts=[
                        types.Part(text="plan", thought=True, thought_signature=SIGNATURE),
                        types.Part(function_call=types.FunctionCall(name="read_file", args={"path": "x"})),
                    ],
                ),
                finish_reason=types.FinishReason.STOP,
            )
        ],
        usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=3, candidates_token_count=2),
    )
    rest = sdk_to_rest(chunk)
    parts = rest["candidates"][0]["content"]["parts"]
    assert parts[0] == {"text": "plan", "thought": True, "thoughtSignature": STANDARD}
    assert parts[1] == {"functionCall": {"name": "read_file", "args": {"path": "x"}}}
    assert rest["candidates"][0]["finishReason"] == "STOP"
    assert rest["usageMetadata"] == {"promptTokenCount": 3, "candidatesTokenCount": 2}


def test_a_response_without_candidates_reads_as_such() -> None:
    blocked = types.GenerateContentResponse(
        prompt_feedback=types.GenerateContentResponsePromptFeedback(block_reason=types.BlockedReason.SAFETY)
    )
    assert sdk_to_rest(blocked) == {"promptFeedback": {"blockReason": "SAFETY"}}


# ---- the wire form /show prints -------------------------------------------------------------
def test_wire_form_uses_the_sdks_spelling_and_alphabet() -> None:
    body = {
        "contents": [{"role": "model", "parts": [{"text": "t", "thoughtSignature": STANDARD}]}],
        "tools": [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": {"type": "object"}}]}],
        "generationConfig": {"thinkingConfig": {"includeThoughts": True}, "maxOutputTokens": 5},
    }
    wire = sdk_wire_form(body)
    assert wire["contents"][0]["parts"][0]["thoughtSignature"] == URLSAFE
    assert wire["tools"][0]["functionDeclarations"][0]["parameters_json_schema"] == {"type": "object"}
    assert wire["generationConfig"] == {"thinkingConfig": {"include_thoughts": True}, "maxOutputTokens": 5}
    assert body["contents"][0]["parts"][0]["thoughtSignature"] == STANDARD  # the REST body is left as it was
    assert set(SDK_SNAKE_KEYS) == {"parametersJsonSchema", "includeThoughts"}


def test_wire_form_leaves_a_signature_that_is_not_base64() -> None:
    wire = sdk_wire_form({"contents": [{"parts": [{"thoughtSignature": "not base64!"}]}]})
    assert wire["contents"][0]["parts"][0]["thoughtSignature"] == "not base64!"


# ---- through the real SDK to the fake server --------------------------------------------------
@pytest.fixture
def gemini(fake_llm: FakeLLM) -> GeminiProvider:
    return GeminiProvider(api_key="k", base_url=fake_llm.gemini_base_url, model="fake-gemini", max_retries=0)


def _stored_row(parts: list[dict[str, Any]]) -> str:
    return json.dumps({"role": "model", "parts": parts})


def test_a_stored_row_with_unknown_fields_is_still_sent(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    row = _stored_row(
        [
            {"text": "let me look", "futureField": 1},
            {
                "functionCall": {"id": "c1", "name": "read_file", "args": {"path": "a.py"}, "futureArg": True},
                "thoughtSignature": STANDARD,
            },
            {"onlyUnknown": {"k": "v"}},
        ]
    )
    prompt = prompt_of(
        msg(1, Role.USER, "read a.py", wire="gemini"),
        msg(2, Role.ASSISTANT, row, Status.TOOL_CALL, wire="gemini"),
        msg(3, Role.TOOL, "A-CONTENT", wire="gemini", call_id="c1"),
    )
    fake_llm.enqueue_text("it is empty")
    reply, _ = run(gemini, prompt)
    assert reply.text == "it is empty"
    req = fake_llm.last_request()
    model_parts = req.json["contents"][1]["parts"]
    assert model_parts[0] == {"text": "let me look"}
    assert model_parts[1]["functionCall"] == {"id": "c1", "name": "read_file", "args": {"path": "a.py"}}
    assert model_parts[2] == {"text": '{"onlyUnknown": {"k": "v"}}'}
    assert fake_llm.signatures_in(req) == [SIGNATURE]  # byte for byte, as the API signed it
    result = req.json["contents"][2]["parts"][0]["functionResponse"]
    assert result == {"id": "c1", "name": "read_file", "response": {"output": "A-CONTENT"}}


def test_what_the_sdk_sends_is_the_wire_form_slop_shows(fake_llm: FakeLLM, gemini: GeminiProvider) -> None:
    row = _stored_row(
        [{"functionCall": {"id": "c1", "name": "read_file", "args": {"path": "a"}}, "thoughtSignature": STANDARD}]
    )
    prompt = prompt_of(
        msg(1, Role.USER, "go", wire="gemini"),
        msg(2, Role.ASSISTANT, row, Status.TOOL_CALL, wire="gemini"),
        msg(3, Role.TOOL, "done", wire="gemini", call_id="c1"),
    )
    fake_llm.enqueue_text("ok")
    run(gemini, prompt)
    sent = fake_llm.last_request().json
    shown = gemini.wire_body(prompt)
    assert sent["contents"] == shown["contents"]
    assert sent["contents"][1]["parts"][0]["thoughtSignature"] == URLSAFE
