"""A scripted fake LLM server that speaks the real wire protocols, for tests.

    with FakeLLM() as fake:                      # or the `fake_llm` fixture
        fake.enqueue_text("Hello!")
        client = OpenAI(base_url=fake.openai_base_url, api_key="x", max_retries=0)
        ...                                      # or genai.Client(api_key="x",
        fake.last_request().json["messages"]     #   http_options=HttpOptions(base_url=fake.gemini_base_url))

One reply queue is shared by OpenAI, Gemini and Code Assist requests: each generation
request pops the next reply, whatever its protocol. An empty queue answers
DEFAULT_TEXT and counts `fake.unscripted`.

Scripting: enqueue_text, enqueue_tool_calls, enqueue_error, enqueue_cutoff,
enqueue_stream_error, enqueue_malformed, enqueue_gemini_special, enqueue(*Reply), load_script(json_list).
Inspection: requests / history, last_request, wait_for_requests, unscripted, errors,
thought_signatures, tokens_issued, pending, reset.
Settings (plain attributes): models, gemini_models, require_key, reasoning_field,
gca_project, token_expires_in, token_error."""

from .replies import (
    DEFAULT_TEXT,
    CutoffReply,
    ErrorReply,
    GeminiSpecialReply,
    MalformedReply,
    Reply,
    StreamErrorReply,
    TextReply,
    ToolCallSpec,
    ToolCallsReply,
    reply_from_json,
)
from .server import FakeLLM, RecordedRequest

__all__ = [
    "DEFAULT_TEXT",
    "CutoffReply",
    "ErrorReply",
    "FakeLLM",
    "GeminiSpecialReply",
    "MalformedReply",
    "RecordedRequest",
    "Reply",
    "StreamErrorReply",
    "TextReply",
    "ToolCallSpec",
    "ToolCallsReply",
    "reply_from_json",
]
