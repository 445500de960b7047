"""The OpenAI Chat Completions wire format: the request body built from a neutral
Prompt, the streamed reply reassembled, the native JSON a tool-call row stores, and the
SDK's errors mapped to slop.errors. `OpenAIProvider` (openai_compat) only makes the SDK
call and runs the streaming loop; a provider speaking this wire reuses all of this.

The `openai` SDK is imported inside the functions that need its exception classes."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from slop.errors import (
    AuthError,
    BadResponse,
    ContextTooLong,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)
from slop.parser import parse_cached, sendable_arguments
from slop.providers.base import ProviderReply, ReasoningDelta, TextDelta
from slop.providers.retry import retry_after_seconds
from slop.providers.text_tools import recognize
from slop.providers.wirepairs import whole_pairs_openai
from slop.records import Prompt, Role, Status, ToolCall, ToolSpec, Usage
from slop.textsafe import scrub


# ---- the request ------------------------------------------------------------------------
def request_body(prompt: Prompt, *, model: str, base_url: str, strip_reasoning: bool = False) -> dict[str, Any]:
    """What `chat.completions.create(**body)` is called with for `prompt`."""
    body: dict[str, Any] = {
        "model": model,
        "messages": whole_pairs_openai(openai_messages(prompt)),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if prompt.output_limit > 0:
        body[limit_field(base_url)] = prompt.output_limit
    if prompt.tools:
        body["tools"] = [tool_schema(t) for t in prompt.tools]
    if strip_reasoning:
        body["extra_body"] = {"reasoning": {"exclude": True}}
    return body


def limit_field(base_url: str) -> str:
    """OpenAI's own API wants `max_completion_tokens` (its reasoning models refuse
    `max_tokens`); every other compatible server (vLLM, llama.cpp, Ollama,
    OpenRouter) reads `max_tokens`, not all of them the newer name."""
    host = urlsplit(base_url).hostname or ""
    return "max_completion_tokens" if host == "api.openai.com" else "max_tokens"


def openai_messages(prompt: Prompt) -> list[dict[str, Any]]:
    """Chat Completions `messages` for the prompt."""
    out: list[dict[str, Any]] = [{"role": "system", "content": prompt.system_text}]
    for entry in prompt.history:
        msg = entry.message
        if msg.role == Role.TOOL:
            out.append({"role": "tool", "tool_call_id": msg.tool_call_id or "", "content": entry.content})
        elif msg.role == Role.ASSISTANT and msg.status == Status.TOOL_CALL:
            parsed = parse_cached(msg)
            item: dict[str, Any] = {"role": "assistant", "content": parsed.text or None}
            if parsed.tool_calls:
                item["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": sendable_arguments(c.arguments)},
                    }
                    for c in parsed.tool_calls
                ]
            elif not parsed.text:
                continue  # nothing left to send
            out.append(item)
        elif msg.role == Role.ASSISTANT and not entry.content:
            continue  # an empty reply (kept in the ledger for its reasoning) says nothing
        elif msg.role in (Role.USER, Role.ASSISTANT):
            out.append({"role": msg.role, "content": entry.content})
        elif msg.role == Role.SYSTEM and entry.content:
            out.append({"role": "system", "content": entry.content})
    return out


# ---- what a tool-call row stores ------------------------------------------------------------
def openai_native(text: str, calls: Iterable[ToolCall]) -> str:
    return json.dumps(
        {
            "role": "assistant",
            "content": text or None,
            "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
            ],
        },
        ensure_ascii=False,
    )


# ---- the reply and its errors ----------------------------------------------------------------
STREAMING_ONLY = ("stream", "stream_options")


def wire_form(body: dict[str, Any]) -> dict[str, Any]:
    """`create(**body)` as the SDK puts it on the wire: `extra_body` merged into the top
    level, streaming-only fields left out."""
    wire = {k: v for k, v in body.items() if k not in STREAMING_ONLY and k != "extra_body"}
    wire.update(body.get("extra_body") or {})
    return wire


def tool_schema(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": spec.name, "description": spec.description, "parameters": spec.parameters},
    }


class OpenAIAccumulator:
    """Reassembles streamed deltas: text, reasoning, tool calls split across chunks."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.text = ""
        self.reasoning = ""
        self.calls: dict[int, dict[str, str]] = {}
        self.usage: Usage | None = None
        self.finish_reason: str | None = None
        self.chunks = 0

    def add(self, chunk: Any) -> list[TextDelta | ReasoningDelta]:
        events: list[TextDelta | ReasoningDelta] = []
        if getattr(chunk, "model", None):
            self.model = chunk.model
        if getattr(chunk, "usage", None):
            self.usage = openai_usage(chunk.usage, self.model)
        for choice in chunk.choices or []:
            delta = choice.delta
            reasoning = _extra(delta, "reasoning_content") or _extra(delta, "reasoning")
            if isinstance(reasoning, str) and reasoning:
                reasoning = scrub(reasoning)
                self.reasoning += reasoning
                events.append(ReasoningDelta(reasoning))
            if delta.content:
                content = scrub(delta.content)
                self.text += content
                events.append(TextDelta(content))
            for tc in delta.tool_calls or []:
                slot = self.calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                slot["id"] = scrub(tc.id or slot["id"])
                if tc.function is not None:
                    slot["name"] += scrub(tc.function.name or "")
                    slot["arguments"] += scrub(tc.function.arguments or "")
            if choice.finish_reason:
                self.finish_reason = choice.finish_reason
        return events

    def reply(self, cancelled: bool) -> ProviderReply:
        calls = (
            ()
            if cancelled
            # A server that sends no id leaves it empty: the orchestrator gives the call a
            # fresh id unique in the ledger when it stores the reply (not "call_0" again).
            else tuple(
                ToolCall(slot["id"], slot["name"], slot["arguments"] or "{}") for _, slot in sorted(self.calls.items())
            )
        )
        return ProviderReply(
            text=self.text,
            reasoning=self.reasoning,
            tool_calls=calls,
            native=openai_native(self.text, calls) if calls else "",
            usage=self.usage,
            finish_reason=self._finish(cancelled, bool(calls)),
            model=self.model,
        )

    def _finish(self, cancelled: bool, has_calls: bool) -> str:
        if cancelled:
            return "cancelled"
        if self.finish_reason == "length":
            return "length"  # even with calls: the last one's arguments may be cut
        return "tool_calls" if has_calls else (self.finish_reason or "stop")


def with_text_tool_calls(reply: ProviderReply, tools: list[str]) -> ProviderReply:
    """A reply whose tool calls came as text (local models): the calls made real, stored in
    the wire's own form so the next request is valid; or the reason they could not be."""
    if reply.cancelled or reply.truncated or reply.tool_calls or not tools:
        return reply  # a cut-off reply is reported as cut off, never run
    found = recognize(reply.text, tools)
    if not found.calls:
        return replace(reply, text_tool_problem=found.problem)
    return replace(
        reply,
        text=found.text,
        tool_calls=found.calls,
        native=openai_native(found.text, found.calls),
        finish_reason="tool_calls",
    )


def openai_usage(u: Any, model: str) -> Usage:
    """The SDK's CompletionUsage as a record: `completion_tokens` already includes the
    reasoning tokens; cached and reasoning counts sit in the optional details objects."""
    prompt_details = getattr(u, "prompt_tokens_details", None)
    completion_details = getattr(u, "completion_tokens_details", None)
    return Usage(
        u.prompt_tokens or 0,
        u.completion_tokens or 0,
        u.total_tokens or 0,
        model,
        cached_tokens=int(getattr(prompt_details, "cached_tokens", 0) or 0),
        reasoning_tokens=int(getattr(completion_details, "reasoning_tokens", 0) or 0),
    )


def _extra(delta: Any, name: str) -> Any:
    value = getattr(delta, name, None)
    if value is None and getattr(delta, "model_extra", None):
        value = delta.model_extra.get(name)
    return value


def map_openai_error(exc: BaseException, base_url: str) -> ProviderError:
    """Map SDK exceptions to one-line errors that say what to do."""
    import openai

    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return AuthError(
            f"the server at {base_url} rejected the API key ({exc.status_code}); check OPENAI_API_KEY",
            status=exc.status_code,
        )
    if isinstance(exc, openai.RateLimitError):
        wait = retry_after_seconds(dict(exc.response.headers), _body(exc))
        hint = f"; the server asks to wait {wait:.0f}s" if wait else ""
        return RateLimited(
            f"rate limited by the provider (429) after retries{hint}; try again shortly", retry_after=wait
        )
    if isinstance(exc, openai.BadRequestError) and _is_context_error(exc):
        return ContextTooLong(f"the prompt is too long for the model: {_message(exc)}", status=400)
    if isinstance(exc, openai.APITimeoutError):
        return ProviderUnavailable(
            f"the request to {base_url} timed out; check the server or raise SLOP_REQUEST_TIMEOUT"
        )
    if isinstance(exc, openai.APIConnectionError):
        return ProviderUnavailable(f"cannot reach {base_url}; check OPENAI_BASE_URL and that the server is running")
    if isinstance(exc, openai.NotFoundError):
        return ProviderError(f"not found (404): {_message(exc)}; check the model name (/models lists them)", status=404)
    if isinstance(exc, openai.InternalServerError):
        return ProviderUnavailable(
            f"the provider failed ({exc.status_code}) after retries: {_message(exc)}", status=exc.status_code
        )
    if isinstance(exc, openai.APIStatusError):
        return ProviderError(f"the provider answered {exc.status_code}: {_message(exc)}", status=exc.status_code)
    if isinstance(exc, json.JSONDecodeError | ValueError):
        return BadResponse(f"the provider sent a malformed reply ({exc}); try again")
    if isinstance(exc, openai.OpenAIError):
        return BadResponse(f"the provider's reply could not be read: {exc}")
    return BadResponse(f"the connection failed mid-reply ({type(exc).__name__}: {exc}); try again")


def stream_error(exc: BaseException) -> ProviderError | None:
    """An error object the server put in the stream (OpenRouter, vLLM, proxies do), as
    the server worded it; None for anything else. The SDK raises a bare APIError for it."""
    import openai

    if not isinstance(exc, openai.APIError) or isinstance(exc, openai.APIStatusError | openai.APIConnectionError):
        return None
    body = exc.body if isinstance(exc.body, dict) else {}
    message = str(body.get("message") or exc.message or "no details")
    if _is_context_error(exc):
        return ContextTooLong(f"the prompt is too long for the model: {message}")
    code = body.get("code")
    where = f" ({code})" if isinstance(code, int | str) and str(code) else ""
    return BadResponse(f"the server reported an error mid-reply{where}: {message}; try again")


def _body(exc: Any) -> Any:
    body = getattr(exc, "body", None)
    return body if isinstance(body, dict) else None


def _message(exc: Any) -> str:
    body = _body(exc)
    if body:
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if body.get("message"):
            return str(body["message"])
    return str(getattr(exc, "message", exc))


# How OpenAI-compatible servers word "the prompt does not fit": OpenAI's code
# context_length_exceeded, llama.cpp's exceed_context_size_error ("the request exceeds
# the available context size"), vLLM's 400 ("This model's maximum context length is N
# tokens. However, you requested M tokens ..." / "... is longer than the maximum model
# length of N"), Ollama / LiteLLM / OpenRouter variants.
_CONTEXT_ERROR_WORDS = (
    "context_length",
    "context length",
    "context size",
    "context window",
    "maximum context",
    "maximum model length",
    "max_model_len",
    "exceed_context_size",
    "too many tokens",
    "too long",
)


def _is_context_error(exc: Any) -> bool:
    body = _body(exc) or {}
    error = body.get("error", body)
    fields = [_message(exc), str(getattr(exc, "code", "") or "")]
    if isinstance(error, dict):
        fields += [str(error.get("type") or ""), str(error.get("code") or "")]
    text = " ".join(fields).lower()
    return any(k in text for k in _CONTEXT_ERROR_WORDS)
