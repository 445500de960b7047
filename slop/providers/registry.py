"""Which provider to use, built lazily so start-up never imports an SDK."""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slop.errors import ConfigError
from slop.providers.base import Provider

# provider kind -> "module:class"; imported only when a request needs it.
PROVIDERS: dict[str, str] = {
    "openai": "slop.providers.openai_compat:OpenAIProvider",
    "gemini": "slop.providers.gemini:GeminiProvider",
    "gemini_gca": "slop.providers.gca:CodeAssistProvider",
}


# The heavy modules each provider needs before its first request (imported at start-up,
# on a background thread, while the prompt is drawn and the user types).
SDK_MODULES: dict[str, tuple[str, ...]] = {
    "openai": ("openai",),
    "gemini": ("google.genai", "google.genai.types"),
    "gemini_gca": ("httpx",),
}


def preload_sdk(kind: str | None) -> None:
    """Import the provider's SDK now (a start-up thread calls this); errors surface later,
    on the first request, where they are reported properly."""
    for name in SDK_MODULES.get(kind or "", ()):
        try:
            importlib.import_module(name)
        except Exception:  # the first request reports a missing or broken SDK
            return


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """What a provider needs, without the Settings type (providers know no app)."""

    openai_api_key: str = field(default="", repr=False)
    openai_base_url: str = ""
    gemini_api_key: str = field(default="", repr=False)
    gemini_base_url: str = ""
    strip_reasoning: bool = False
    max_retries: int = 2
    timeout: float = 600.0
    token_path: str = ""  # Gemini Code Assist OAuth token file
    gca_project: str = ""


def detect_kind(config: ProviderConfig, forced: str = "") -> str | None:
    """flags, then OPENAI_API_KEY (or a base URL), then GEMINI/GOOGLE key, then a saved gca token."""
    if forced:
        if forced not in PROVIDERS:
            raise ConfigError(f"unknown provider {forced!r}; use one of: {', '.join(PROVIDERS)}")
        return forced
    if config.openai_api_key or config.openai_base_url:
        return "openai"
    if config.gemini_api_key:
        return "gemini"
    if config.token_path and Path(config.token_path).exists():
        return "gemini_gca"
    return None


def build(kind: str, model: str, config: ProviderConfig) -> Provider:
    module_name, _, class_name = PROVIDERS[kind].partition(":")
    cls: Any = getattr(importlib.import_module(module_name), class_name)
    if kind == "openai":
        return cls(  # type: ignore[no-any-return]
            api_key=config.openai_api_key,
            base_url=config.openai_base_url,
            model=model,
            strip_reasoning=config.strip_reasoning,
            max_retries=config.max_retries,
            timeout=config.timeout,
        )
    return cls.from_config(model, config)  # type: ignore[no-any-return]


class ProviderManager:
    """Holds the active provider; `/model` switches it. Builds on first use."""

    def __init__(self, config: ProviderConfig, kind: str | None, model: str = "") -> None:
        self.config = config
        self.kind = kind
        self.model_name = model
        self._provider: Provider | None = None
        self._lock = threading.Lock()  # the start-up warm-up thread may build it too

    def __call__(self) -> Provider | None:
        return self.current()

    def current(self) -> Provider | None:
        if self.kind is None:
            return None
        with self._lock:
            if self._provider is None:
                self._provider = build(self.kind, self.model_name, self.config)
                self.model_name = self._provider.model
            return self._provider

    def warm(self) -> None:
        """Build the provider and its SDK client now, so the first request does not pay for it."""
        provider = self.current()
        warm = getattr(provider, "warm", None)  # optional: providers without a client to build skip it
        if callable(warm):
            warm()

    @property
    def label(self) -> str:
        if self.kind is None:
            return "none"
        return self.model_name or default_model(self.kind)

    def switch(self, spec: str) -> tuple[str, str]:
        """`NAME` switches model within the provider; `kind:NAME` switches provider too."""
        kind, _, name = spec.partition(":") if ":" in spec and spec.split(":", 1)[0] in PROVIDERS else ("", "", spec)
        new_kind = kind or self.kind
        if new_kind is None:
            raise ConfigError("no provider is configured; use /model openai:NAME or /model gemini:NAME")
        self.kind, self.model_name, self._provider = new_kind, name.strip(), None
        return new_kind, self.model_name or default_model(new_kind)


def default_model(kind: str) -> str:
    return {"openai": "gpt-4o-mini", "gemini": "gemini-2.5-flash", "gemini_gca": "gemini-2.5-flash"}.get(kind, "")
