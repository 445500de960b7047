"""The provider table: one `ProviderSpec` row per provider, and the registry that holds
them. Everything that names providers reads it: detection at start-up, building a
provider, `/model` and `/models`, the CLI's `--provider`, SDK preloading.

A new provider is a wire module (or an existing wire) plus one row: the class named by
`build` has `from_config(model, config)` and satisfies `slop.providers.base.Provider`.
`BUILTIN_SPECS` is an immutable tuple; a `ProviderRegistry` instance starts from it and
`register` adds rows to that instance only (tests and embedders pass their own)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from slop.config import Profile
from slop.errors import ConfigError
from slop.records import Wire, WireName


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """One provider: what it is called, the wire it speaks, how to build and detect it.

    The callables read a `ProviderConfig`; left None, the key is read from the first set
    variable of `key_env`, and the provider is usable (and detected) when it is set."""

    name: str  # the kind: `--provider NAME`, `/model NAME:MODEL`, the session's saved provider
    wire: WireName  # the format its requests and tool rows have (Provider.wire)
    build: str  # "module:class"; imported on the first request, never at start-up
    default_model: str
    key_env: tuple[str, ...] = ()  # the variables its key may come from, first set wins
    sdk_modules: tuple[str, ...] = ()  # imported on a background thread at start-up
    api_key: Callable[[ProviderConfig], str] | None = None
    missing: Callable[[ProviderConfig], str | None] | None = None  # why it cannot work, or None
    detected: Callable[[ProviderConfig], bool] | None = None  # chosen at start-up without --provider
    server_url: Callable[[ProviderConfig], str] | None = None  # a local server slop asks for models

    def key_of(self, config: ProviderConfig) -> str:
        if self.api_key is not None:
            return self.api_key(config)
        return next((os.environ[v] for v in self.key_env if os.environ.get(v)), "")

    def problem(self, config: ProviderConfig) -> str | None:
        if self.missing is not None:
            return self.missing(config)
        if self.key_env and not self.key_of(config):
            return f"${self.key_env[0]} (the key of provider {self.name!r}) is not set; set it and restart slop"
        return None

    def detects(self, config: ProviderConfig) -> bool:
        return self.detected(config) if self.detected is not None else bool(self.key_env) and not self.problem(config)

    def url_of(self, config: ProviderConfig) -> str:
        return self.server_url(config) if self.server_url is not None else ""


class ProviderRegistry:
    """The provider table in use: the built-in rows, then any registered ones, in the
    order detection tries them."""

    def __init__(self, specs: Iterable[ProviderSpec] = ()) -> None:
        self._specs: dict[str, ProviderSpec] = {}
        for spec in (*BUILTIN_SPECS, *specs):
            self.register(spec)

    def register(self, spec: ProviderSpec) -> ProviderSpec:
        """Add a provider (or replace the row of that name); returns it."""
        if not spec.name or ":" in spec.name or " " in spec.name:
            raise ConfigError(f"a provider name has no ':' or spaces: {spec.name!r}")
        self._specs[spec.name] = spec
        return spec

    def get(self, name: str) -> ProviderSpec | None:
        return self._specs.get(name)

    def names(self) -> tuple[str, ...]:
        return tuple(self._specs)

    def __iter__(self) -> Iterator[ProviderSpec]:
        return iter(tuple(self._specs.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._specs


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
    profiles: Mapping[str, Profile] = field(default_factory=dict)  # [providers.NAME] of the config files
    aliases: Mapping[str, str] = field(default_factory=dict)  # [models] NAME = "kind:MODEL"
    discovery_cache: str = ""  # JSON file of what local servers said (context size, models)
    providers: ProviderRegistry = field(default_factory=ProviderRegistry, compare=False)

    def kinds(self) -> tuple[str, ...]:
        """Every provider name: the table's, then config profiles of other names."""
        names = self.providers.names()
        return (*names, *(p for p in self.profiles if p not in names))

    def profile(self, kind: str | None) -> Profile | None:
        """The [providers.NAME] profile `kind` names (a table row of that name wins)."""
        return None if kind is None or kind in self.providers else self.profiles.get(kind)


# ---- the built-in rows ------------------------------------------------------------------
def _openai_missing(c: ProviderConfig) -> str | None:
    if c.openai_api_key or c.openai_base_url:
        return None
    return "OPENAI_API_KEY is not set (or OPENAI_BASE_URL for a local server); set it and restart slop"


def _gemini_missing(c: ProviderConfig) -> str | None:
    if c.gemini_api_key or c.gemini_base_url:
        return None
    return "GEMINI_API_KEY (or GOOGLE_API_KEY) is not set; set it and restart slop"


def _gca_missing(c: ProviderConfig) -> str | None:
    if c.token_path and Path(c.token_path).exists():
        return None
    return "there is no Code Assist sign-in; run `slop auth` first"


BUILTIN_SPECS: tuple[ProviderSpec, ...] = (
    ProviderSpec(
        name="openai",
        wire=Wire.OPENAI,
        build="slop.providers.openai_compat:OpenAIProvider",
        default_model="gpt-4o-mini",
        key_env=("OPENAI_API_KEY",),
        sdk_modules=("openai",),
        api_key=lambda c: c.openai_api_key,
        missing=_openai_missing,
        detected=lambda c: _openai_missing(c) is None,
        server_url=lambda c: c.openai_base_url,
    ),
    ProviderSpec(
        name="gemini",
        wire=Wire.GEMINI,
        build="slop.providers.gemini:GeminiProvider",
        default_model="gemini-2.5-flash",
        key_env=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        sdk_modules=("google.genai", "google.genai.types"),
        api_key=lambda c: c.gemini_api_key,
        missing=_gemini_missing,
        detected=lambda c: bool(c.gemini_api_key),  # a base URL alone is not a reason to pick Gemini
    ),
    ProviderSpec(
        name="gemini_gca",
        wire=Wire.GEMINI_GCA,
        build="slop.providers.gca:CodeAssistProvider",
        default_model="gemini-2.5-flash",
        sdk_modules=("httpx",),
        api_key=lambda c: "",  # an OAuth token file (`slop auth`), not a key
        missing=_gca_missing,
        detected=lambda c: _gca_missing(c) is None,
    ),
)
BUILTIN_NAMES: tuple[str, ...] = tuple(s.name for s in BUILTIN_SPECS)
