"""The application as the REPL sees it: the ui sits below the composition root
(`slop.app`), so it names only these Protocols and is handed a builder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from slop.approval import ApprovalPolicy
    from slop.boot import Boot
    from slop.commands import CommandContext, Registry
    from slop.context.tokens import Tokenizer
    from slop.engine import Engine
    from slop.orchestrator import EventSink, Orchestrator
    from slop.providers.registry import ProviderManager
    from slop.settings import Settings
    from slop.ui.terminal_io import TerminalIO


class Application(Protocol):
    """What the REPL uses of the application the composition root wires."""

    @property
    def ctx(self) -> CommandContext: ...
    @property
    def engine(self) -> Engine: ...
    @property
    def orchestrator(self) -> Orchestrator: ...
    @property
    def registry(self) -> Registry: ...
    @property
    def providers(self) -> ProviderManager: ...
    @property
    def tokenizer(self) -> Tokenizer: ...
    @property
    def home(self) -> Path: ...
    def load_tokenizer_in_background(self, then: Callable[[], None] = ...) -> None: ...
    def tidy_index_when_idle(self, busy: Callable[[], bool]) -> None: ...
    def pause_index_upkeep(self) -> None: ...
    def close(self) -> None: ...


class AppRoot(Protocol):
    """The composition root as the REPL calls it (`slop.cli.ROOT`): `boot` is the light
    stage (ledger, provider detection: enough for the first prompt), `build` wires the
    rest and runs on the REPL's background build thread."""

    def boot(self, settings: Settings) -> Boot: ...

    def build(
        self,
        settings: Settings,
        io: TerminalIO,
        sink: EventSink,
        approver: ApprovalPolicy,
        booted: Boot,
        *,
        notify: Callable[[str], None] | None = None,
    ) -> Application: ...
