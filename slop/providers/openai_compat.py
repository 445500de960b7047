"""OpenAI-compatible chat completions through the `openai` SDK (OpenAI, OpenRouter,
Ollama, vLLM, llama.cpp servers): the SDK call and the streaming loop. The wire format
(request body, reply accumulator, stored JSON, error mapping) is `openai_wire`'s. The SDK
is imported when the first request is made."""

from __future__ import annotations

import threading
from typing import Any

from slop.errors import BadResponse, ProviderError
from slop.providers.base import EventCallback, ProviderReply
from slop.providers.openai_wire import (
    OpenAIAccumulator,
    map_openai_error,
    request_body,
    stream_error,
    wire_form,
    with_text_tool_calls,
)
from slop.providers.pump import pump
from slop.providers.specs import ProviderConfig
from slop.records import Prompt, Wire, WireName

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIProvider:
    wire: WireName = Wire.OPENAI

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str = "",
        model: str = "",
        strip_reasoning: bool = False,
        max_retries: int = 2,
        timeout: float = 600.0,
    ) -> None:
        self.model = model or DEFAULT_MODEL
        self.base_url = base_url or DEFAULT_BASE_URL
        self._api_key = api_key or "not-needed"  # local servers (Ollama, llama.cpp) take any key
        self._strip_reasoning = strip_reasoning
        self._max_retries = max_retries
        self._timeout = timeout
        self._client: Any = None

    def warm(self) -> None:
        """Import the SDK and build the client ahead of the first request."""
        self._sdk()

    def _sdk(self) -> Any:
        if self._client is None:
            import openai  # lazy: ~1 s to import

            # A plain float: the SDK builds its own Timeout (its HTTP library varies by version).
            self._client = openai.OpenAI(
                api_key=self._api_key,
                base_url=self.base_url,
                max_retries=self._max_retries,
                timeout=self._timeout,
            )
        return self._client

    @classmethod
    def from_config(cls, model: str, config: ProviderConfig) -> OpenAIProvider:
        return cls(
            api_key=config.openai_api_key,
            base_url=config.openai_base_url,
            model=model,
            strip_reasoning=config.strip_reasoning,
            max_retries=config.max_retries,
            timeout=config.timeout,
        )

    def request_body(self, prompt: Prompt) -> dict[str, Any]:
        return request_body(prompt, model=self.model, base_url=self.base_url, strip_reasoning=self._strip_reasoning)

    def wire_body(self, prompt: Prompt) -> dict[str, Any]:
        """The JSON the server receives for `prompt` (built by `request_body`, the send's own
        function), without the streaming-only fields: what /context show --raw prints."""
        return wire_form(self.request_body(prompt))

    def stream(self, prompt: Prompt, cancel: threading.Event, on_event: EventCallback) -> ProviderReply:
        body = self.request_body(prompt)
        acc = OpenAIAccumulator(self.model)
        reply = pump(lambda emit, stop: self._produce(body, acc, emit, stop), acc, cancel, on_event, self._map_error)
        return with_text_tool_calls(reply, [t.name for t in prompt.tools])

    def _produce(self, body: dict[str, Any], acc: OpenAIAccumulator, emit: Any, stop: threading.Event) -> None:
        stream = self._sdk().chat.completions.create(**body)
        try:
            for chunk in stream:
                if stop.is_set():
                    break
                acc.chunks += 1
                for event in acc.add(chunk):
                    emit(event)
        except Exception as exc:
            reported = stream_error(exc)
            if reported is not None:  # the server sent {"error": {...}} inside the stream
                reported.partial = acc.text
                raise reported from exc
            if acc.chunks:  # the server answered, then the connection dropped or sent garbage
                raise BadResponse(
                    f"the reply was cut off mid-stream ({type(exc).__name__}); try again", partial=acc.text
                ) from exc
            raise
        finally:
            stream.close()
        if not stop.is_set() and acc.finish_reason is None:
            raise BadResponse("the model's reply was cut off before it finished; try again", partial=acc.text)

    def list_models(self) -> list[str]:
        try:
            return sorted(m.id for m in self._sdk().models.list())
        except Exception as exc:
            raise self._map_error(exc) from exc

    def _map_error(self, exc: BaseException) -> ProviderError:
        return map_openai_error(exc, self.base_url)
