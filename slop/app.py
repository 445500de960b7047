"""Composition root: builds the store, providers, tools, orchestrator and commands,
and wires them together. Nothing else constructs these objects."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from slop.commands import CommandContext, Registry, build_registry
from slop.commands.base import CommandIO
from slop.context.strategies import builtin_strategies
from slop.context.tokens import Tokenizer, cached_counter
from slop.engine import Engine
from slop.orchestrator import EventSink, Orchestrator
from slop.providers.registry import ProviderConfig, ProviderManager, detect_kind
from slop.settings import Settings, default_db_path, prepare_db_dir, project_root, secrets_of, user_home
from slop.snapshot import ContextService
from slop.store import Store, open_memo_store
from slop.toolrunner import ToolRunnerImpl
from slop.tools.base import Approver
from slop.tools.registry import ToolRegistry, default_tools


@dataclass
class App:
    settings: Settings
    store: Store
    providers: ProviderManager
    orchestrator: Orchestrator
    registry: Registry
    ctx: CommandContext
    engine: Engine
    tokenizer: Tokenizer
    root: Path
    home: Path

    def close(self) -> None:
        self.store.close()


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


def build(settings: Settings, io: CommandIO, sink: EventSink, approver: Approver | None) -> App:
    root, db_path, home = resolve_paths(settings)
    prepare_db_dir(db_path)
    home.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer()
    store = Store.open(str(db_path), tokenizer.count)
    memos = open_memo_store(str(home / "memos.db"))
    session = store.sessions.get(settings.session)
    config = provider_config(settings, home)
    kind = detect_kind(config, settings.provider or session.provider)
    providers = ProviderManager(config, kind, settings.model or session.model)
    tools = ToolRegistry(default_tools())
    store.catalog.register_tools(tools.specs())
    context = ContextService(
        store=store,
        memos=memos,
        tool_specs=tools.specs,
        strategies=builtin_strategies(),
        count=cached_counter(tokenizer.count),
        exact_tokens=lambda: tokenizer.exact,
    )
    runner = ToolRunnerImpl(
        store=store,
        memos=memos,
        registry=tools,
        root=root,
        approver=approver,
        allowed_paths=tuple(Path(p).resolve() for p in settings.allow_paths),
        shell_timeout=settings.shell_timeout,
        max_workers=settings.max_parallel_tools,
        secrets=secrets_of(settings),
        on_file_read=context.source().archive.record_file_read,  # "files already read" (compact mode)
    )
    orchestrator = Orchestrator(store, context, providers, runner, step_limit=settings.step_limit)
    registry = build_registry()
    ctx = CommandContext(store, memos, orchestrator, providers, settings, io, sink, session=settings.session, root=root)
    return App(settings, store, providers, orchestrator, registry, ctx, Engine(registry, ctx), tokenizer, root, home)
