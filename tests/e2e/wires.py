"""One turn test, two wire formats: how each wire is configured, and the same facts read
from either request body (OpenAI `messages`, Gemini `contents` + `systemInstruction`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from tests.fakellm import FakeLLM, RecordedRequest


@dataclass(frozen=True, slots=True)
class Wire:
    """How the app reaches the fake over one wire format."""

    name: str  # the ledger's parsing_strategy for rows written through this wire
    model: str
    key_setting: str
    key: str
    base_url_setting: str
    key_variable: str  # what an error about the key tells the user to check

    def settings(self, fake: FakeLLM) -> dict[str, object]:
        base_url = fake.openai_base_url if self.name == "openai" else fake.gemini_base_url
        return {self.key_setting: self.key, self.base_url_setting: base_url, "model": self.model}


OPENAI = Wire("openai", "fake-gpt", "openai_api_key", "sk-test-key-123456", "openai_base_url", "OPENAI_API_KEY")
GEMINI = Wire("gemini", "fake-gemini", "gemini_api_key", "gm-test-key-123456", "gemini_base_url", "GEMINI_API_KEY")
WIRES = {wire.name: wire for wire in (OPENAI, GEMINI)}


@pytest.fixture(name="wire", params=list(WIRES.values()), ids=list(WIRES))
def both_wires(request: pytest.FixtureRequest) -> Wire:
    """Import this into a test module and every test there that builds an app with make_app
    runs once per wire: it takes the place of conftest's `wire` fixture (OpenAI only)."""
    return request.param  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class Sent:
    """One non-system message of a request. Gemini's user-role functionResponse parts are
    `tool` messages here, as OpenAI sends them; a model turn holding only calls has ""."""

    role: str  # "user" | "assistant" | "tool"
    content: str


def generation_requests(fake: FakeLLM) -> list[RecordedRequest]:
    return [r for r in fake.requests if r.protocol in ("openai", "gemini") and r.method == "POST"]


def last_generation(fake: FakeLLM) -> RecordedRequest:
    requests = generation_requests(fake)
    if not requests:
        raise LookupError("no generation request was sent")
    return requests[-1]


def system_text(request: RecordedRequest) -> str:
    return system_of_body(request.json)


def system_of_body(body: dict[str, Any]) -> str:
    """The system prompt of a request body of either wire (Gemini's REST or SDK spelling)."""
    if "messages" in body:
        first = body["messages"][0]
        return str(first["content"]) if first["role"] == "system" else ""
    system = body.get("systemInstruction") or body.get("system_instruction") or {}
    return "".join(p.get("text", "") for p in system.get("parts", []))


def conversation_json(request: RecordedRequest) -> str:
    """The whole conversation sent (system prompt, messages, calls, results) as JSON text."""
    body = request.json
    if request.protocol == "openai":
        return json.dumps(body["messages"])
    return json.dumps([body.get("systemInstruction"), body["contents"]])


def last_sent(fake: FakeLLM) -> str:
    """The last message of the last generation request: the user's turn as sent."""
    return sent_messages(last_generation(fake))[-1].content


def sent_messages(request: RecordedRequest) -> list[Sent]:
    if request.protocol == "openai":
        return [Sent(m["role"], str(m.get("content") or "")) for m in request.json["messages"] if m["role"] != "system"]
    return [sent for content in request.json["contents"] for sent in _gemini_messages(content)]


def _gemini_messages(content: dict[str, Any]) -> list[Sent]:
    parts = content.get("parts", [])
    role = "assistant" if content.get("role") == "model" else "user"
    texts = [p["text"] for p in parts if "text" in p and not p.get("thought")]
    out = [Sent(role, "".join(texts))] if texts or role == "assistant" else []
    for part in parts:
        if "functionResponse" in part:
            response = part["functionResponse"]["response"]
            out.append(Sent("tool", str(response.get("output", response.get("error", "")))))
    return out


def contents_of(request: RecordedRequest, role: str) -> list[str]:
    return [m.content for m in sent_messages(request) if m.role == role]


def tool_names(request: RecordedRequest) -> set[str]:
    tools = request.json.get("tools") or []
    if request.protocol == "openai":
        return {t["function"]["name"] for t in tools}
    return {d["name"] for t in tools for d in t.get("functionDeclarations", [])}


def model_of(request: RecordedRequest) -> str:
    if request.protocol == "openai":
        return str(request.json["model"])
    return request.path.rsplit("/", 1)[-1].split(":", 1)[0]


def streamed_with_usage(request: RecordedRequest) -> bool:
    """The reply was asked for as a stream that ends with the token usage."""
    if request.protocol == "openai":
        body = request.json
        return body["stream"] is True and body["stream_options"] == {"include_usage": True}
    # streamGenerateContent always closes with usageMetadata; SSE framing is asked for by alt=sse
    return request.path.endswith(":streamGenerateContent") and request.query.get("alt") == "sse"
