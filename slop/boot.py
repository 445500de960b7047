"""The composition root's light stage: paths, the ledger, provider detection.

Enough to draw the banner and the first prompt; `slop.app.build` (the heavy stage) wires
the rest (commands, tools, orchestrator) and can run while the user types. Callers reach
both stages through `slop.cli.ROOT` (the REPL) or `slop.app.build` (batch mode)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from slop.context.layout import LAYOUT_KEY
from slop.context.tokens import Tokenizer
from slop.providers.discovery import ServerDiscovery, ServerInfo
from slop.providers.registry import (
    ProviderConfig,
    ProviderRegistry,
    base_url_of,
    default_model,
    detect_kind,
    resolve_spec,
)
from slop.records import SessionDefaults
from slop.settings import Settings, default_db_path, prepare_db_dir, private_dir, project_root, user_home
from slop.store import Store


@dataclass
class Boot:
    settings: Settings
    root: Path
    db_path: Path
    home: Path
    store: Store
    tokenizer: Tokenizer
    provider_kind: str | None
    model: str
    server: ServerInfo | None = None  # what the local server said last time (cached), if any
    providers: ProviderRegistry = field(default_factory=ProviderRegistry)  # the provider table in use

    def provider_config(self) -> ProviderConfig:
        return provider_config(self.settings, self.home, self.providers)

    @property
    def model_label(self) -> str:
        if self.provider_kind is None:
            return "none"
        server_model = self.server.only_model if self.server else ""
        return self.model or server_model or default_model(self.provider_kind, self.provider_config())


def resolve_paths(settings: Settings) -> tuple[Path, Path, Path]:
    root = Path(settings.project_root) if settings.project_root else project_root()
    db = Path(settings.db_path) if settings.db_path else default_db_path(root)
    home = Path(settings.home) if settings.home else user_home()
    return root, db, home


def provider_config(settings: Settings, home: Path, providers: ProviderRegistry | None = None) -> ProviderConfig:
    return ProviderConfig(
        providers=providers or ProviderRegistry(),
        openai_api_key=settings.openai_api_key,
        openai_base_url=settings.openai_base_url,
        gemini_api_key=settings.gemini_api_key,
        gemini_base_url=settings.gemini_base_url,
        strip_reasoning=settings.strip_reasoning,
        max_retries=settings.max_retries,
        timeout=settings.request_timeout,
        token_path=str(home / "oauth_token.json"),
        profiles=settings.config.profiles(),
        aliases=settings.config.aliases(),
        discovery_cache=str(home / "servers.json"),
    )


def session_defaults(settings: Settings) -> SessionDefaults:
    """The context settings of the config files, for sessions that never set their own."""
    config, base = settings.config, SessionDefaults()
    return SessionDefaults(
        context_size=int(config.get("context.window", base.context_size)),
        context_mode=str(config.get("context.mode", base.context_mode)),
        budget=int(config.get("context.budget", base.budget)),
        # only a configured layout becomes a default option: the seed order needs none
        options=((LAYOUT_KEY, str(layout)),) if (layout := config.get("context.layout")) else (),
    )


def _to_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def boot(settings: Settings, providers: ProviderRegistry | None = None) -> Boot:
    """Open the ledger and work out the provider, without importing any SDK. `providers`:
    the provider table (default: the built-in rows)."""
    providers = providers or ProviderRegistry()
    root, db_path, home = resolve_paths(settings)
    prepare_db_dir(db_path)
    private_dir(home)
    tokenizer = Tokenizer()
    store = Store.open(str(db_path), tokenizer.count, session_defaults(settings), notice=_to_stderr)
    session = store.sessions.get(settings.session)
    config = provider_config(settings, home, providers)
    kind, model = choose_model(settings, config, session.provider, session.model)
    url = base_url_of(kind, config)
    server = ServerDiscovery(config.discovery_cache).known(url) if url else None
    return Boot(settings, root, db_path, home, store, tokenizer, kind, model, server, providers)


def choose_model(
    settings: Settings, config: ProviderConfig, saved_kind: str, saved_model: str
) -> tuple[str | None, str]:
    """--model (an alias or `kind:NAME` too) and --provider over what the session saved.
    A saved provider whose profile left the config is forgotten, not fatal."""
    if settings.model:
        spec_kind, model = resolve_spec(settings.model, config)
        return detect_kind(config, spec_kind or settings.provider), model
    if settings.provider:
        return detect_kind(config, settings.provider), saved_model
    if saved_kind and saved_kind not in config.kinds():
        return detect_kind(config), ""
    kind_, model = resolve_spec(saved_model, config) if saved_model else ("", "")
    return detect_kind(config, saved_kind or kind_), model
