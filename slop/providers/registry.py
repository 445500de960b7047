"""Which provider to use, from the provider table (`specs.ProviderRegistry`), built
lazily so start-up never imports an SDK."""

from __future__ import annotations

import importlib
import os
import threading
from dataclasses import replace
from typing import Any

from slop.config import Profile
from slop.errors import ConfigError
from slop.providers.base import Provider
from slop.providers.discovery import ServerDiscovery, ServerInfo
from slop.providers.specs import BUILTIN_NAMES, ProviderConfig, ProviderRegistry, ProviderSpec
from slop.records import Wire

__all__ = [
    "BUILTIN_NAMES",
    "ProviderConfig",
    "ProviderManager",
    "ProviderRegistry",
    "ProviderSpec",
    "base_url_of",
    "build",
    "default_model",
    "detect_kind",
    "preload_sdk",
    "resolve_spec",
    "wire_of",
]


def preload_sdk(kind: str | None, providers: ProviderRegistry | None = None) -> None:
    """Import the provider's SDK now (a start-up thread calls this); errors surface later,
    on the first request, where they are reported properly."""
    spec = (providers or ProviderRegistry()).get(kind or "")
    for name in spec.sdk_modules if spec else ():
        try:
            importlib.import_module(name)
        except Exception:  # the first request reports a missing or broken SDK
            return


def wire_of(kind: str, config: ProviderConfig) -> str:
    """The wire a kind speaks: a table row's `wire`, a profile's `wire`."""
    spec = config.providers.get(kind)
    if spec is not None:
        return spec.wire
    profile = config.profile(kind)
    return profile.wire if profile else kind


def base_url_of(kind: str | None, config: ProviderConfig) -> str:
    """The OpenAI-compatible server a kind talks to, when slop should ask it what it
    serves ("" for OpenAI's own API and for providers without one)."""
    if kind is None or wire_of(kind, config) != Wire.OPENAI:
        return ""
    profile = config.profile(kind)
    if profile is not None:
        return profile.base_url
    spec = config.providers.get(kind)
    return spec.url_of(config) if spec else ""


def resolve_spec(spec: str, config: ProviderConfig) -> tuple[str, str]:
    """`alias` -> its target; `kind:NAME` -> (kind, NAME) for a known kind or profile;
    `NAME` -> ("", NAME). Model names may hold ':' themselves (Ollama tags)."""
    spec = config.aliases.get(spec.strip(), spec).strip()
    head, sep, rest = spec.partition(":")
    if sep and head in config.kinds():
        return head, rest.strip()
    return "", spec


def detect_kind(config: ProviderConfig, forced: str = "") -> str | None:
    """flags, then the first row of the provider table whose credentials are there
    (OPENAI_API_KEY or a base URL, then a GEMINI/GOOGLE key, then a saved gca token)."""
    if forced:
        if forced not in config.kinds():
            raise ConfigError(
                f"unknown provider {forced!r}; use one of: {', '.join(config.kinds())} "
                "(or add a [providers.NAME] table to the config)"
            )
        return forced
    return next((spec.name for spec in config.providers if spec.detects(config)), None)


def build(kind: str, model: str, config: ProviderConfig) -> Provider:
    spec = config.providers.get(kind)
    if spec is None:  # a profile: the built-in provider of its wire, at its server
        return build(*_profile_target(config.profiles[kind], model, config))
    module_name, _, class_name = spec.build.partition(":")
    cls: Any = getattr(importlib.import_module(module_name), class_name)
    return cls.from_config(model or spec.default_model, config)  # type: ignore[no-any-return]


def _profile_target(profile: Profile, model: str, config: ProviderConfig) -> tuple[str, str, ProviderConfig]:
    key = os.environ.get(profile.api_key_env, "") if profile.api_key_env else ""
    if profile.api_key_env and not key:
        raise ConfigError(f"provider {profile.name!r} reads its key from ${profile.api_key_env}, which is not set")
    if profile.wire == Wire.GEMINI:
        return "gemini", model or profile.model, replace(config, gemini_api_key=key, gemini_base_url=profile.base_url)
    return "openai", model or profile.model, replace(config, openai_api_key=key, openai_base_url=profile.base_url)


def default_model(kind: str, config: ProviderConfig | None = None) -> str:
    config = config or ProviderConfig()
    profile = config.profile(kind)
    if profile is not None:
        return profile.model
    spec = config.providers.get(kind)
    return spec.default_model if spec else ""


DEFAULT_WAIT_FOR_SERVER = 5.0  # seconds a first turn without a model waits for the server's model list
WAIT_FOR_CONTEXT_SIZE = 2.0  # seconds a model call waits for a probe under way (a local server answers in ms)


class ProviderManager:
    """Holds the active provider; `/model` switches it. Builds on first use.

    For an OpenAI-compatible server other than OpenAI's own it asks the server (in the
    background) what it serves: its only model becomes the default, its context size the budget."""

    def __init__(self, config: ProviderConfig, kind: str | None, model: str = "") -> None:
        self.config = config
        self.kind = kind
        self.model_name = model
        self._provider: Provider | None = None
        self._lock = threading.Lock()  # the start-up warm-up thread may build it too
        self.discovery = ServerDiscovery(config.discovery_cache)

    def __call__(self) -> Provider | None:
        return self.current()

    def current(self) -> Provider | None:
        if self.kind is None:
            return None
        with self._lock:
            if self._provider is None:
                if not self.model_name:
                    self.model_name = self._server_model(wait=True)
                self._provider = build(self.kind, self.model_name, self.config)
                self.model_name = self._provider.model
            return self._provider

    def discover(self) -> None:
        """Start asking the current server (no-op for OpenAI's and Gemini's own APIs)."""
        url = base_url_of(self.kind, self.config)
        if url:
            self.discovery.start(url, self._api_key(), self.model_name)

    def server_info(self) -> ServerInfo | None:
        url = base_url_of(self.kind, self.config)
        return self.discovery.known(url, self.model_name) if url else None

    def context_window(self, model: str | None = None, wait: float = 0.0) -> tuple[int, str]:
        """(tokens, where the figure came from) the server reported for `model`, else (0, "").
        `wait`: seconds to let a probe under way finish (a model call may; the modeline not)."""
        url = base_url_of(self.kind, self.config)
        if wait and url:
            self.discovery.wait(url, wait, self.model_name)
        info = self.server_info()
        if info is None:
            return 0, ""
        tokens = info.context_for(model if model is not None else self.label)
        return (tokens, info.source) if tokens else (0, "")

    def _server_model(self, *, wait: bool) -> str:
        url = base_url_of(self.kind, self.config)
        if not url:
            return ""
        info = self.discovery.wait(url, DEFAULT_WAIT_FOR_SERVER, self.model_name) if wait else self.discovery.known(url)
        return info.only_model if info else ""

    def _api_key(self) -> str:
        profile = self.config.profile(self.kind)
        if profile is not None:
            return os.environ.get(profile.api_key_env, "") if profile.api_key_env else ""
        spec = self.config.providers.get(self.kind or "")
        return spec.key_of(self.config) if spec else ""

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
        return self.model_name or self._server_model(wait=False) or default_model(self.kind, self.config)

    def wire(self) -> str | None:
        return wire_of(self.kind, self.config) if self.kind else None

    def switch(self, spec: str) -> tuple[str, str]:
        """`NAME` switches model within the provider; `kind:NAME` (a profile too) switches
        provider; an alias from [models] stands for its target."""
        kind, name = resolve_spec(spec, self.config)
        new_kind = kind or self.kind
        if new_kind is None:
            raise ConfigError("no provider is configured; use /model openai:NAME or /model gemini:NAME")
        self.kind, self.model_name, self._provider = new_kind, name.strip(), None
        self.discover()
        return new_kind, self.label
