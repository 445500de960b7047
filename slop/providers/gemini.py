"""Gemini through the `google-genai` SDK (imported when the first request is made).

The request is built once as a Gemini REST `GenerateContentRequest` in camelCase (the
same dict the Code Assist provider wraps in its envelope) and converted to SDK types;
streamed SDK chunks are turned back into REST dicts and fed to `GeminiAccumulator`,
which both providers share. Thought signatures are stored exactly as the API sent them
(standard base64), so a multi-step tool loop sends them back byte for byte."""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Callable
from typing import Any

from slop import parser
from slop.errors import (
    AuthError,
    BadResponse,
    ProviderError,
)
from slop.providers.base import EventCallback, ProviderReply, ReasoningDelta, StreamEvent, TextDelta
from slop.providers.gemini_errors import (
    map_google_error,
    map_transport_error,
    with_retries,
)
from slop.providers.gemini_sdk import sdk_to_rest, sdk_wire_form, to_sdk_content
from slop.providers.pump import pump
from slop.providers.wirepairs import whole_pairs_gemini
from slop.records import Prompt, ToolCall, ToolSpec, Usage, Wire, WireName
from slop.textsafe import scrub

DEFAULT_MODEL = "gemini-2.5-flash"
_NO_THOUGHTS = re.compile(r"gemini-(1\.|2\.0)|gemma|embedding|learnlm", re.IGNORECASE)

Emit = Callable[[StreamEvent], None]


# ---- the request ------------------------------------------------------------------------
def wants_thoughts(model: str, strip_reasoning: bool) -> bool:
    """Ask for thought summaries unless reasoning is stripped or the model cannot think."""
    return not strip_reasoning and not (_NO_THOUGHTS.search(model) and "thinking" not in model)


def function_declarations(tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters or {"type": "object"}}
        for t in tools
    ]


def rest_request(prompt: Prompt, *, include_thoughts: bool) -> dict[str, Any]:
    """A `GenerateContentRequest` (REST camelCase) for the prompt, without the model."""
    body: dict[str, Any] = {"contents": whole_pairs_gemini(parser.gemini_contents(prompt))}
    if prompt.system_text:
        body["systemInstruction"] = {"role": "user", "parts": [{"text": prompt.system_text}]}
    if prompt.tools:
        body["tools"] = [{"functionDeclarations": function_declarations(prompt.tools)}]
    config: dict[str, Any] = {}
    if prompt.output_limit > 0:
        config["maxOutputTokens"] = prompt.output_limit
    if include_thoughts:
        config["thinkingConfig"] = {"includeThoughts": True}
    if config:
        body["generationConfig"] = config
    return body


# ---- the reply ----------------------------------------------------------------------------
_FINISH = {"STOP": "stop", "MAX_TOKENS": "length"}
_BLOCKED = ("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE")


class GeminiAccumulator:
    """Reassembles streamed GenerateContentResponse dicts (REST camelCase): text,
    thoughts, function calls (each given an id when the API sent none), signatures
    and usage."""

    def __init__(self, model: str, new_id: Callable[[], str] | None = None) -> None:
        self.model = model
        self.parts: list[dict[str, Any]] = []
        self.text = ""
        self.reasoning = ""
        self.calls: list[ToolCall] = []
        self.usage: Usage | None = None
        self.finish_reason: str | None = None
        self.finish_message = ""
        self.block_reason = ""
        self.saw_candidate = False
        self._new_id = new_id or (lambda: "call_" + uuid.uuid4().hex[:16])

    @property
    def started(self) -> bool:
        return bool(self.parts)

    def add(self, response: Any) -> list[StreamEvent]:
        if not isinstance(response, dict):
            raise BadResponse(f"Gemini sent an unreadable chunk ({type(response).__name__}); try again")
        if response.get("modelVersion"):
            self.model = str(response["modelVersion"])
        meta = response.get("usageMetadata")
        if isinstance(meta, dict):
            self._usage(meta)
        feedback = response.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            self.block_reason = str(feedback["blockReason"])
        candidates = response.get("candidates")
        if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
            return []
        self.saw_candidate = True
        candidate = candidates[0]
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        events: list[StreamEvent] = []
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict):
                events += self._add_part(part)
        if candidate.get("finishReason"):
            self.finish_reason = str(candidate["finishReason"])
            self.finish_message = str(candidate.get("finishMessage") or "")
        return events

    def _usage(self, meta: dict[str, Any]) -> None:
        # Gemini counts thinking apart from the candidates, and bills both as output.
        prompt = int(meta.get("promptTokenCount") or 0)
        thoughts = int(meta.get("thoughtsTokenCount") or 0)
        completion = int(meta.get("candidatesTokenCount") or 0) + thoughts
        cached = int(meta.get("cachedContentTokenCount") or 0)
        self.usage = Usage(prompt, completion, prompt + completion, self.model, cached, thoughts)

    def _add_part(self, part: dict[str, Any]) -> list[StreamEvent]:
        fc = part.get("functionCall")
        if isinstance(fc, dict):
            fc = dict(fc)
            fc["id"] = str(fc.get("id") or self._new_id())
            self.parts.append({**part, "functionCall": fc})
            self.calls.append(ToolCall(fc["id"], str(fc.get("name") or ""), json.dumps(fc.get("args") or {})))
            return []
        text = part.get("text")
        if not isinstance(text, str):
            self.parts.append(dict(part))  # other kinds (code, inline data) are kept as sent
            return []
        text = scrub(text)
        part = {**part, "text": text}
        thought = bool(part.get("thought"))
        last = self.parts[-1] if self.parts else None
        mergeable = (
            last is not None
            and isinstance(last.get("text"), str)
            and bool(last.get("thought")) == thought
            and "thoughtSignature" not in last
            and "thoughtSignature" not in part
        )
        if last is not None and mergeable:
            last["text"] += text  # never merge a signed part with another (Gemini's rule)
        else:
            self.parts.append(dict(part))
        if not text:
            return []
        if thought:
            self.reasoning += text
            return [ReasoningDelta(text)]
        self.text += text
        return [TextDelta(text)]

    def check(self) -> None:
        """After a complete stream: a reply slop can use, or a clear BadResponse."""
        partial = self.text
        if not self.saw_candidate:
            if self.block_reason:
                raise BadResponse(f"Gemini blocked the prompt ({self.block_reason}); rephrase the request")
            raise BadResponse("Gemini returned no candidates (an empty reply); try again or rephrase the request")
        reason = self.finish_reason
        if reason is None:
            raise BadResponse("the model's reply was cut off before it finished; try again", partial=partial)
        if reason == "MALFORMED_FUNCTION_CALL":
            detail = f": {self.finish_message[:200]}" if self.finish_message else ""
            raise BadResponse(
                f"Gemini produced a malformed function call (MALFORMED_FUNCTION_CALL){detail}; "
                "try again or ask for one step at a time",
                partial=partial,
            )
        if reason in _BLOCKED:
            raise BadResponse(f"Gemini stopped the reply ({reason}); rephrase the request", partial=partial)
        # MAX_TOKENS and empty replies are not errors here: the orchestrator reports a
        # truncated or empty reply the same way for every provider.

    def reply(self, cancelled: bool) -> ProviderReply:
        calls = () if cancelled else tuple(self.calls)
        if cancelled:
            finish = "cancelled"
        elif self.finish_reason == "MAX_TOKENS":
            finish = "length"  # even with calls: the last one may be cut
        elif calls:
            finish = "tool_calls"
        else:
            finish = _FINISH.get(self.finish_reason or "STOP", (self.finish_reason or "stop").lower())
        return ProviderReply(
            text=self.text,
            reasoning=self.reasoning,
            tool_calls=calls,
            native=parser.gemini_native(self.parts) if calls else "",
            usage=self.usage,
            finish_reason=finish,
            model=self.model,
        )


# ---- the SDK provider ------------------------------------------------------------------------
class GeminiProvider:
    wire: WireName = Wire.GEMINI

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str = "",
        model: str = "",
        strip_reasoning: bool = False,
        max_retries: int = 2,
        timeout: float = 600.0,
        retry_base: float = 1.0,
    ) -> None:
        self.model = (model or DEFAULT_MODEL).removeprefix("models/")
        self.base_url = base_url
        self._api_key = api_key
        self._strip_reasoning = strip_reasoning
        self._max_retries = max_retries
        self._timeout = timeout
        self._retry_base = retry_base
        self._client: Any = None

    @classmethod
    def from_config(cls, model: str, config: Any) -> GeminiProvider:
        return cls(
            api_key=config.gemini_api_key,
            base_url=config.gemini_base_url,
            model=model,
            strip_reasoning=config.strip_reasoning,
            max_retries=config.max_retries,
            timeout=config.timeout,
        )

    @property
    def where(self) -> str:
        return self.base_url or "the Gemini API"

    def warm(self) -> None:
        """Import the SDK and build the client ahead of the first request."""
        self._sdk()

    def _sdk(self) -> Any:
        if self._client is None:
            if not self._api_key and not self.base_url:
                raise AuthError(
                    "no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) and restart, "
                    "or switch with /model openai:NAME"
                )
            from google import genai  # lazy: the SDK is slow to import
            from google.genai import types

            options = types.HttpOptions(base_url=self.base_url or None, timeout=int(self._timeout * 1000))
            self._client = genai.Client(api_key=self._api_key or "not-needed", http_options=options)
        return self._client

    def request_body(self, prompt: Prompt) -> dict[str, Any]:
        """What is sent, as the REST JSON (the SDK builds the same from SDK types)."""
        return rest_request(prompt, include_thoughts=wants_thoughts(self.model, self._strip_reasoning))

    def wire_body(self, prompt: Prompt) -> dict[str, Any]:
        """The JSON the SDK sends for `prompt` (the model goes in the URL, not the body)."""
        return sdk_wire_form(self.request_body(prompt))

    def stream(self, prompt: Prompt, cancel: threading.Event, on_event: EventCallback) -> ProviderReply:
        body = self.request_body(prompt)
        acc = GeminiAccumulator(self.model)

        def produce(emit: Emit, stop: threading.Event) -> None:
            contents, config = self._sdk_request(body)
            with_retries(
                lambda: self._stream_once(contents, config, acc, emit, stop),
                acc,
                stop,
                self._map_error,
                self._max_retries,
                self._retry_base,
            )
            if not stop.is_set():
                acc.check()

        return pump(produce, acc, cancel, on_event, self._map_error)

    def _sdk_request(self, body: dict[str, Any]) -> tuple[list[Any], Any]:
        from google.genai import types

        self._sdk()
        contents = [to_sdk_content(c) for c in body["contents"]]
        system = body.get("systemInstruction", {}).get("parts", [{}])[0].get("text")
        tools: list[Any] | None = None
        if body.get("tools"):
            declarations = [
                types.FunctionDeclaration(
                    name=d["name"], description=d["description"], parameters_json_schema=d["parametersJsonSchema"]
                )
                for d in body["tools"][0]["functionDeclarations"]
            ]
            tools = [types.Tool(function_declarations=declarations)]
        generation = body.get("generationConfig", {})
        thinking = generation.get("thinkingConfig")
        config = types.GenerateContentConfig(
            system_instruction=system or None,
            tools=tools,
            max_output_tokens=generation.get("maxOutputTokens"),
            thinking_config=types.ThinkingConfig(include_thoughts=True) if thinking else None,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )
        return contents, config

    def _stream_once(
        self, contents: list[Any], config: Any, acc: GeminiAccumulator, emit: Emit, stop: threading.Event
    ) -> None:
        stream = self._sdk().models.generate_content_stream(model=self.model, contents=contents, config=config)
        try:
            for chunk in stream:
                if stop.is_set():
                    break
                for event in acc.add(sdk_to_rest(chunk)):
                    emit(event)
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()

    def list_models(self) -> list[str]:
        try:
            names = []
            for m in self._sdk().models.list():
                actions = getattr(m, "supported_actions", None) or []
                if actions and "generateContent" not in actions:
                    continue
                names.append(str(m.name or "").removeprefix("models/"))
            return sorted(n for n in names if n)
        except Exception as exc:
            raise self._map_error(exc) from exc

    def _map_error(self, exc: BaseException) -> ProviderError:
        if isinstance(exc, ProviderError):
            return exc
        from google.genai import errors as genai_errors

        if isinstance(exc, genai_errors.APIError) and exc.code:
            response = getattr(exc, "response", None)
            headers = dict(getattr(response, "headers", {}) or {})
            return map_google_error(
                exc.code, exc.details, headers, where=self.where, auth_hint="check GEMINI_API_KEY / GOOGLE_API_KEY"
            )
        return map_transport_error(exc, self.where, "check your network or GOOGLE_GEMINI_BASE_URL")
