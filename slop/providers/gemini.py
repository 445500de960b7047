"""Gemini through the `google-genai` SDK (imported when the first request is made): the
SDK call and the streaming loop.

The request is built once by `google_wire` as a Gemini REST `GenerateContentRequest`
(the same dict the Code Assist provider wraps in its envelope) and converted to SDK
types here; streamed SDK chunks are turned back into REST dicts and fed to
`google_wire.GeminiAccumulator`, which both providers share."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from slop.errors import AuthError, ProviderError
from slop.providers.base import EventCallback, ProviderReply, StreamEvent
from slop.providers.gemini_errors import map_google_error, map_transport_error, with_retries
from slop.providers.gemini_sdk import sdk_to_rest, sdk_wire_form, to_sdk_content
from slop.providers.google_wire import GeminiAccumulator, rest_request, wants_thoughts
from slop.providers.pump import pump
from slop.providers.specs import ProviderConfig
from slop.records import Prompt, Wire, WireName

DEFAULT_MODEL = "gemini-2.5-flash"

Emit = Callable[[StreamEvent], None]


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
    def from_config(cls, model: str, config: ProviderConfig) -> GeminiProvider:
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
