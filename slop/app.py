"""Composition root: builds the store, providers, tools, orchestrator and commands,
and wires them together. Nothing else constructs these objects."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from slop.boot import Boot, boot
from slop.commands import CommandContext, Registry
from slop.commands.all import build_registry
from slop.commands.base import CommandIO
from slop.commands.conversation import Conversation
from slop.context.strategies.base import ContextStrategy
from slop.context.strategies.catalog import builtin_strategies
from slop.context.tokens import Tokenizer, cached_counter
from slop.context.truncate import TruncationConfig
from slop.debuglog import route_warnings_to_file
from slop.engine import Engine
from slop.errors import StoreError
from slop.instructions import InstructionFiles
from slop.mcptools.config import secret_values
from slop.mcptools.manager import McpManager
from slop.mcptools.setup import configured_servers, start_mcp
from slop.orchestrator import EventSink, Orchestrator
from slop.providers.registry import WAIT_FOR_CONTEXT_SIZE, ProviderManager, ProviderRegistry
from slop.settings import Settings, secrets_of
from slop.snapshot import ContextService
from slop.store import Store, open_memo_store
from slop.store.index_upkeep import IndexUpkeep
from slop.store.memos import Memos
from slop.toolrunner import ToolRunnerImpl
from slop.tools.base import Approver
from slop.tools.registry import ToolRegistry, default_tools

log = logging.getLogger(__name__)


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
    mcp: McpManager
    forget_estimates: Callable[[], None] = lambda: None  # once the tokenizer is loaded
    _upkeep: IndexUpkeep | None = field(default=None, init=False)

    def close(self) -> None:
        self.mcp.close()  # stops the MCP servers before the ledger their tools write to
        if self._upkeep is not None:
            self._upkeep.close()  # after the merge step under way
        self.tokenizer.wait_loaded(timeout=30)  # its recount writes to the ledger
        self.store.close()

    def tidy_index_when_idle(self, busy: Callable[[], bool]) -> None:
        """Keep the history index in few pieces while the user reads and types
        (slop.store.index_upkeep); `busy()` true (an input started) pauses it."""
        if self._upkeep is None:
            self._upkeep = IndexUpkeep(self.store.db.path, busy)
        self._upkeep.when_idle()

    def pause_index_upkeep(self) -> None:
        """An input starts: the index's merge step under way is cut short."""
        if self._upkeep is not None:
            self._upkeep.pause()

    def load_tokenizer_in_background(self, then: Callable[[], None] = lambda: None) -> None:
        """Counts are estimates until it is loaded; then what was estimated is counted again,
        and `then` runs (e.g. to show exact figures)."""

        def loaded() -> None:
            self.forget_estimates()
            then()

        self.tokenizer.load_in_background(then=loaded)


def build(
    settings: Settings,
    io: CommandIO,
    sink: EventSink,
    approver: Approver | None,
    booted: Boot | None = None,
    notify: Callable[[str], None] | None = None,
    provider_table: ProviderRegistry | None = None,
    strategies: Mapping[str, ContextStrategy] | None = None,
) -> App:
    """Wire the whole application; `booted` is the light start-up already done (the REPL draws its
    first prompt from it meanwhile). `provider_table`: the providers (default: the built-in rows);
    `strategies`: context modes beside the built-in ones; `notify`: background warnings."""
    b = booted or boot(settings, provider_table)
    store, tokenizer, root, home = b.store, b.tokenizer, b.root, b.home
    route_warnings_to_file(home)
    memos = open_memo_store(str(home / "memos.db"))
    providers = ProviderManager(b.provider_config(), b.provider_kind, b.model)
    providers.discover()  # a local server's models and context size, on a background thread
    tools = ToolRegistry(default_tools())
    store.catalog.register_tools(tools.specs())
    store.recover_session(settings.session)  # tool calls a killed slop left unanswered
    counter, forget_estimates = _token_counter(store, tokenizer)
    # MCP servers start in the background; their tools join `tools` when they are listed.
    servers = configured_servers(settings.mcp_config, settings.config.mcp_servers())
    mcp = start_mcp(servers, tools, store.catalog.register_tools, home / "mcp", notify or io.warning)
    context = ContextService(
        store=store,
        memos=memos,
        tool_specs=tools.specs,
        strategies={**builtin_strategies(), **(strategies or {})},
        count=counter,
        exact_tokens=lambda: tokenizer.exact,
        truncation=truncation_config(settings),
        server_window=lambda model: providers.context_window(model, wait=WAIT_FOR_CONTEXT_SIZE)[0],
        instructions=InstructionFiles(root, Path.cwd(), home).text,
    )
    runner = _tool_runner(settings, store, memos, tools, root, approver, secret_values(servers))
    orchestrator = Orchestrator(store, context, providers, runner, step_limit=settings.step_limit)
    registry = build_registry()
    ctx = CommandContext(
        store, memos, orchestrator, providers, settings, io, sink, root, Conversation(settings.session), mcp=mcp
    )
    engine = Engine(registry, ctx, home, before_turn=lambda: await_mcp_startup(mcp, ctx))
    return App(
        settings, store, providers, orchestrator, registry, ctx, engine, tokenizer, root, home, mcp, forget_estimates
    )


def _tool_runner(
    settings: Settings,
    store: Store,
    memos: Memos,
    tools: ToolRegistry,
    root: Path,
    approver: Approver | None,
    server_secrets: tuple[str, ...],
) -> ToolRunnerImpl:
    """The tool runner with the user's limits, confinement and secrets (MCP servers' too)."""
    return ToolRunnerImpl(
        store=store,
        memos=memos,
        registry=tools,
        root=root,
        approver=approver,
        allowed_paths=tuple(Path(p).resolve() for p in settings.allow_paths),
        shell_timeout=settings.shell_timeout,
        output_cap=settings.tool_output_cap,
        max_workers=settings.max_parallel_tools,
        secrets=secrets_of(settings) + server_secrets,
        read_only=settings.approval == "read-only",
        pass_env=settings.pass_env,
        on_file_read=store.archive.record_file_read,  # "files already read" (compact mode)
    )


def truncation_config(settings: Settings) -> TruncationConfig:
    """The three tiers of tool-result truncation, from the config files' [truncation] table."""
    config, base = settings.config, TruncationConfig()
    return TruncationConfig(
        full_limit=int(config.get("truncation.full", base.full_limit)),
        full_count=int(config.get("truncation.full_count", base.full_count)),
        degraded_limit=int(config.get("truncation.degraded", base.degraded_limit)),
        inactive_limit=int(config.get("truncation.inactive", base.inactive_limit)),
    )


def _token_counter(store: Store, tokenizer: Tokenizer) -> tuple[Callable[[str], int], Callable[[], None]]:
    """The memoised counter assembly uses, and what to run once the real tokenizer has
    loaded: rows stored meanwhile carry estimates and are counted again."""
    counted_until = store.messages.last_id()  # rows after it may carry estimates
    counter = cached_counter(tokenizer.count)

    def forget_estimates() -> None:
        counter.cache_clear()  # type: ignore[attr-defined]
        try:
            store.messages.recount(counted_until)
        except StoreError:  # the ledger is busy or closing: those rows keep their estimates
            log.warning("could not count the estimated rows again", exc_info=True)

    return counter, forget_estimates


def await_mcp_startup(mcp: McpManager, ctx: CommandContext) -> None:
    """Before a model call, give servers still starting their startup time, so the model
    sees their tools; Esc goes on without them."""
    pending = mcp.starting()
    if not pending:
        return
    names = ", ".join(pending)
    limit = max(mcp.config(name).startup_timeout for name in pending)
    ctx.io.info(f"waiting for MCP server(s) {names} to start (up to {limit:g} s; Esc goes on without them)")
    still = mcp.wait_started(limit, ctx.cancel)
    ctx.cancel.clear()  # Esc here skipped the wait; the turn itself goes on
    if still:
        ctx.io.warning(f"going on without MCP server(s) {', '.join(still)}: still starting")
