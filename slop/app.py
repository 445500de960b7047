"""Composition root: builds the store, providers, tools, orchestrator and commands,
and wires them together. Nothing else constructs these objects."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from slop.boot import Boot, boot, provider_config
from slop.commands import CommandContext, Registry
from slop.commands.all import build_registry
from slop.commands.base import CommandIO
from slop.context.strategies import builtin_strategies
from slop.context.tokens import Tokenizer, cached_counter
from slop.context.truncate import TruncationConfig
from slop.debuglog import route_warnings_to_file
from slop.engine import Engine
from slop.orchestrator import EventSink, Orchestrator
from slop.providers.registry import WAIT_FOR_CONTEXT_SIZE, ProviderManager
from slop.settings import Settings, secrets_of
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


def build(
    settings: Settings, io: CommandIO, sink: EventSink, approver: Approver | None, booted: Boot | None = None
) -> App:
    """Wire the whole application; `booted` is the light start-up already done (the REPL
    draws its first prompt from it while this runs)."""
    b = booted or boot(settings)
    store, tokenizer, root, home = b.store, b.tokenizer, b.root, b.home
    route_warnings_to_file(home)
    memos = open_memo_store(str(home / "memos.db"))
    providers = ProviderManager(provider_config(settings, home), b.provider_kind, b.model)
    providers.discover()  # a local server's models and context size, on a background thread
    tools = ToolRegistry(default_tools())
    store.catalog.register_tools(tools.specs())
    store.recover_session(settings.session)  # tool calls a killed slop left unanswered
    context = ContextService(
        store=store,
        memos=memos,
        tool_specs=tools.specs,
        strategies=builtin_strategies(),
        count=cached_counter(tokenizer.count),
        exact_tokens=lambda: tokenizer.exact,
        truncation=truncation_config(settings),
        server_window=lambda model: providers.context_window(model, wait=WAIT_FOR_CONTEXT_SIZE)[0],
    )
    runner = ToolRunnerImpl(
        store=store,
        memos=memos,
        registry=tools,
        root=root,
        approver=approver,
        allowed_paths=tuple(Path(p).resolve() for p in settings.allow_paths),
        shell_timeout=settings.shell_timeout,
        output_cap=settings.tool_output_cap,
        max_workers=settings.max_parallel_tools,
        secrets=secrets_of(settings),
        read_only=settings.approval == "read-only",
        pass_env=settings.pass_env,
        on_file_read=context.source().archive.record_file_read,  # "files already read" (compact mode)
    )
    orchestrator = Orchestrator(store, context, providers, runner, step_limit=settings.step_limit)
    registry = build_registry()
    ctx = CommandContext(store, memos, orchestrator, providers, settings, io, sink, session=settings.session, root=root)
    engine = Engine(registry, ctx, home)
    return App(settings, store, providers, orchestrator, registry, ctx, engine, tokenizer, root, home)


def truncation_config(settings: Settings) -> TruncationConfig:
    """The three tiers of tool-result truncation, from the config files' [truncation] table."""
    config, base = settings.config, TruncationConfig()
    return TruncationConfig(
        full_limit=int(config.get("truncation.full", base.full_limit)),
        full_count=int(config.get("truncation.full_count", base.full_count)),
        degraded_limit=int(config.get("truncation.degraded", base.degraded_limit)),
        inactive_limit=int(config.get("truncation.inactive", base.inactive_limit)),
    )
