"""Gemini Code Assist (`gemini_gca`): Gemini content through Google's Code Assist API
with an OAuth token (`slop auth`), over httpx because the SDK cannot target it.

Request: the same GenerateContentRequest as the Gemini provider, wrapped as
`{"model", "project", "user_prompt_id", "request": {...}}` and POSTed to
`{base}/v1internal:streamGenerateContent?alt=sse`; every SSE event is
`{"response": {...GenerateContentResponse...}}`. The project comes from
ProviderConfig.gca_project, GOOGLE_CLOUD_PROJECT, the token file, or `loadCodeAssist`.

Env overrides (proxies, tests): SLOP_GCA_BASE_URL, SLOP_GCA_TOKEN_URL."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

from slop.errors import AuthError, ProviderError
from slop.providers.base import EventCallback, ProviderReply
from slop.providers.gemini import DEFAULT_MODEL, Emit
from slop.providers.gemini_errors import GoogleHTTPError, map_google_error, map_transport_error, with_retries
from slop.providers.google_wire import GeminiAccumulator, code_assist_envelope, sse_payloads, unwrap
from slop.providers.oauth import SIGN_IN_HINT, TokenSource
from slop.providers.pump import pump
from slop.providers.specs import ProviderConfig
from slop.records import Prompt, Wire, WireName

DEFAULT_BASE_URL = "https://cloudcode-pa.googleapis.com"
API_VERSION = "v1internal"
CLIENT_METADATA = {"ideType": "IDE_UNSPECIFIED", "platform": "PLATFORM_UNSPECIFIED", "pluginType": "GEMINI"}
# Code Assist has no model list endpoint: the models it is known to serve.
KNOWN_MODELS = (
    "gemini-2.5-flash",
    "gemini-2.5-flash-lite",
    "gemini-2.5-pro",
    "gemini-3-flash-preview",
    "gemini-3-pro-preview",
)
ONBOARD_ATTEMPTS = 5


def env_project() -> str:
    return os.environ.get("GOOGLE_CLOUD_PROJECT") or os.environ.get("GOOGLE_CLOUD_PROJECT_ID") or ""


class CodeAssistProvider:
    wire: WireName = Wire.GEMINI_GCA

    def __init__(
        self,
        *,
        token_path: str,
        model: str = "",
        project: str = "",
        base_url: str = "",
        token_url: str = "",
        strip_reasoning: bool = False,
        max_retries: int = 2,
        timeout: float = 600.0,
        retry_base: float = 1.0,
        onboard_wait: float = 2.0,
    ) -> None:
        self.model = (model or DEFAULT_MODEL).removeprefix("models/")
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.token_path = token_path
        self._token_url = token_url
        self._project = project
        self._strip_reasoning = strip_reasoning
        self._max_retries = max_retries
        self._timeout = timeout
        self._retry_base = retry_base
        self._onboard_wait = onboard_wait
        self._http: Any = None
        self._tokens: TokenSource | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, model: str, config: ProviderConfig) -> CodeAssistProvider:
        return cls(
            token_path=config.token_path,
            model=model,
            project=config.gca_project or env_project(),
            base_url=os.environ.get("SLOP_GCA_BASE_URL", ""),
            token_url=os.environ.get("SLOP_GCA_TOKEN_URL", ""),
            strip_reasoning=config.strip_reasoning,
            max_retries=config.max_retries,
            timeout=config.timeout,
        )

    # ---- plumbing -------------------------------------------------------------------------
    def warm(self) -> None:
        """Build the HTTP client ahead of the first request."""
        self._client()

    def _client(self) -> Any:
        with self._lock:
            if self._http is None:
                import httpx

                self._http = httpx.Client(timeout=httpx.Timeout(self._timeout, connect=10.0))
                self._tokens = TokenSource(self.token_path, self._http, self._token_url)
            return self._http

    @property
    def tokens(self) -> TokenSource:
        self._client()
        assert self._tokens is not None
        return self._tokens

    def _url(self, method: str) -> str:
        return f"{self.base_url}/{API_VERSION}:{method}"

    def _headers(self, token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def _post_json(self, method: str, body: dict[str, Any]) -> Any:
        """A small authenticated POST (loadCodeAssist, onboardUser); one refresh on 401."""
        http = self._client()
        for attempt in range(2):
            headers = self._headers(self.tokens.access_token(force_refresh=attempt > 0))
            headers.update({"X-Goog-Api-Client": "slop", "Client-Metadata": json.dumps(CLIENT_METADATA)})
            response = http.post(self._url(method), json=body, headers=headers)
            if response.status_code == 401 and attempt == 0:
                continue
            if response.status_code >= 400:
                raise GoogleHTTPError(response.status_code, _json_or_text(response), response.headers)
            return _json_or_text(response)
        raise AssertionError("unreachable")  # pragma: no cover

    # ---- project discovery ------------------------------------------------------------------
    def project(self) -> str:
        """The Code Assist project: configured, cached in the token file, or discovered."""
        if self._project:
            return self._project
        cached = self.tokens.token().project_id
        if cached:
            self._project = cached
            return cached
        project = self._discover()
        self.tokens.remember_project(project)
        self._project = project
        return project

    def _discover(self) -> str:
        load = self._post_json("loadCodeAssist", {"metadata": dict(CLIENT_METADATA)})
        project = _project_of(load)
        if project:
            return project
        tier = _default_tier(load)
        body = {"tierId": tier, "metadata": dict(CLIENT_METADATA)}
        for _ in range(ONBOARD_ATTEMPTS):
            operation = self._post_json("onboardUser", body)
            if isinstance(operation, dict) and operation.get("done"):
                project = _project_of(operation.get("response"))
                if project:
                    return project
                break
            threading.Event().wait(self._onboard_wait)
        raise AuthError(
            "Code Assist did not name a Google Cloud project for this account; set GOOGLE_CLOUD_PROJECT "
            "to your project id and try again"
        )

    # ---- requests ------------------------------------------------------------------------------
    def envelope(self, prompt: Prompt, project: str) -> dict[str, Any]:
        return code_assist_envelope(prompt, self.model, project, strip_reasoning=self._strip_reasoning)

    def wire_body(self, prompt: Prompt) -> dict[str, Any]:
        """The envelope as sent (the project is looked up once, as a send does); only
        `user_prompt_id` differs between two sends: it is new for every request."""
        return self.envelope(prompt, self.project())

    def stream(self, prompt: Prompt, cancel: threading.Event, on_event: EventCallback) -> ProviderReply:
        acc = GeminiAccumulator(self.model)

        def produce(emit: Emit, stop: threading.Event) -> None:
            body = self.envelope(prompt, self.project())  # token and project: on the worker thread
            with_retries(
                lambda: self._stream_once(body, acc, emit, stop),
                acc,
                stop,
                self._map_error,
                self._max_retries,
                self._retry_base,
            )
            if not stop.is_set():
                acc.check()

        return pump(produce, acc, cancel, on_event, self._map_error)

    def _stream_once(self, body: dict[str, Any], acc: GeminiAccumulator, emit: Emit, stop: threading.Event) -> None:
        http = self._client()
        for attempt in range(2):
            headers = self._headers(self.tokens.access_token(force_refresh=attempt > 0))
            with http.stream(
                "POST", self._url("streamGenerateContent"), params={"alt": "sse"}, json=body, headers=headers
            ) as response:
                if response.status_code == 401 and attempt == 0:
                    continue  # the token was revoked or expired early: refresh once
                if response.status_code >= 400:
                    response.read()
                    raise GoogleHTTPError(response.status_code, _json_or_text(response), response.headers)
                for payload in sse_payloads(response.iter_lines()):
                    if stop.is_set():
                        return
                    for event in acc.add(unwrap(payload)):
                        emit(event)
                return

    def list_models(self) -> list[str]:
        return sorted({*KNOWN_MODELS, self.model})

    def _map_error(self, exc: BaseException) -> ProviderError:
        if isinstance(exc, ProviderError):
            return exc
        where = f"Gemini Code Assist ({self.base_url})"
        if isinstance(exc, GoogleHTTPError):
            return map_google_error(exc.status, exc.body, exc.headers, where=where, auth_hint=SIGN_IN_HINT)
        return map_transport_error(exc, where, "check your network or SLOP_GCA_BASE_URL")


def _json_or_text(response: Any) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text


def _project_of(data: Any) -> str:
    if not isinstance(data, dict):
        return ""
    value = data.get("cloudaicompanionProject")
    if isinstance(value, dict):
        value = value.get("id")
    return value if isinstance(value, str) else ""


def _default_tier(load: Any) -> str:
    tiers = load.get("allowedTiers") if isinstance(load, dict) else None
    for tier in tiers if isinstance(tiers, list) else []:
        if isinstance(tier, dict) and tier.get("isDefault") and tier.get("id"):
            return str(tier["id"])
    return "free-tier"


__all__ = ["KNOWN_MODELS", "SIGN_IN_HINT", "CodeAssistProvider", "sse_payloads", "unwrap"]
