"""The light part of start-up: paths, the ledger, provider detection.

Enough to draw the banner and the first prompt; `slop.app.build` adds the heavy rest
(commands, tools, orchestrator, renderer) and can run while the user types."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from slop.context.tokens import Tokenizer
from slop.providers.registry import ProviderConfig, default_model, detect_kind
from slop.records import SessionDefaults
from slop.settings import Settings, default_db_path, prepare_db_dir, project_root, user_home
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

    @property
    def model_label(self) -> str:
        if self.provider_kind is None:
            return "none"
        return self.model or default_model(self.provider_kind)


def resolve_paths(settings: Settings) -> tuple[Path, Path, Path]:
    root = Path(settings.project_root) if settings.project_root else project_root()
    db = Path(settings.db_path) if settings.db_path else default_db_path(root)
    home = Path(settings.home) if settings.home else user_home()
    return root, db, home


def provider_config(settings: Settings, home: Path) -> ProviderConfig:
    return ProviderConfig(
        openai_api_key=settings.openai_api_key,
        openai_base_url=settings.openai_base_url,
        gemini_api_key=settings.gemini_api_key,
        gemini_base_url=settings.gemini_base_url,
        strip_reasoning=settings.strip_reasoning,
        max_retries=settings.max_retries,
        timeout=settings.request_timeout,
        token_path=str(home / "oauth_token.json"),
    )


def session_defaults(settings: Settings) -> SessionDefaults:
    """The context settings of the config files, for sessions that never set their own."""
    config, base = settings.config, SessionDefaults()
    return SessionDefaults(
        context_size=int(config.get("context.window", base.context_size)),
        context_mode=str(config.get("context.mode", base.context_mode)),
        budget=int(config.get("context.budget", base.budget)),
    )


def boot(settings: Settings) -> Boot:
    """Open the ledger and work out the provider, without importing any SDK."""
    root, db_path, home = resolve_paths(settings)
    prepare_db_dir(db_path)
    home.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer()
    store = Store.open(str(db_path), tokenizer.count, session_defaults(settings))
    session = store.sessions.get(settings.session)
    kind = detect_kind(provider_config(settings, home), settings.provider or session.provider)
    return Boot(settings, root, db_path, home, store, tokenizer, kind, settings.model or session.model)
