"""The interactive prompt: prompt_toolkit input, modeline, keys, and the turn loop.

Start-up is split so the prompt is on screen fast: `slop.boot` (ledger, provider
detection) is enough for the banner and the modeline; the rest of the application
(commands, tools, orchestrator, markdown renderer) is built on a background thread
once the prompt is drawn, and the provider SDK is warmed up after it. Those imports
are function-local on purpose: they are the heavy part of start-up."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from slop import __version__
from slop.approval import ApprovalPolicy
from slop.boot import Boot, boot
from slop.context.budget import prompt_budget
from slop.debuglog import one_line, write_crash_log
from slop.errors import Terminated
from slop.records import Role, Status, ToolCall
from slop.settings import Settings, private_file
from slop.ui.completion import LazyCompleter
from slop.ui.keys import TurnKeys
from slop.ui.sanitise import HIDDEN_WARNING, has_hidden, visible
from slop.ui.signals import ExitSignals

if TYPE_CHECKING:
    from rich.console import Console

    from slop.app import App
    from slop.engine import Outcome
    from slop.ui.terminal_io import TerminalIO

DOUBLE_CTRL_C_SECONDS = 2.0
BUILD_DELAY_SECONDS = 0.05  # let the first prompt render before the heavy imports start
REPLAY_LINES = 8
NO_PROVIDER_HINT = "no model provider configured: set OPENAI_API_KEY (or OPENAI_BASE_URL) or GEMINI_API_KEY"
DIM, CYAN, GREEN, YELLOW, RESET = "\x1b[2m", "\x1b[36m", "\x1b[1;32m", "\x1b[33m", "\x1b[0m"


def run_repl(settings: Settings) -> int:
    repl = Repl(settings)
    try:
        with repl.signals:
            return repl.loop()
    finally:
        repl.close()


class Repl:
    def __init__(self, settings: Settings, console: Console | None = None) -> None:
        """`console` None: a terminal console is made in the background build (rich is
        not needed before the first prompt; the banner is written directly)."""
        self.settings = settings
        self._console = console
        self.out: IO[str] = console.file if console is not None else sys.stdout
        self._color = not (settings.no_color or os.environ.get("NO_COLOR")) and self.out.isatty()
        self.boot: Boot = boot(settings)
        self.keys: TurnKeys | None = None
        self.policy = ApprovalPolicy(
            settings.approval, self._ask_approval, self._warn, per_tool=settings.config.tool_approvals()
        )
        self._app: App | None = None
        self._io: TerminalIO | None = None
        self._ready = threading.Event()
        self._started = False
        self._error: BaseException | None = None
        self._last_ctrl_c = 0.0
        self._typed_ahead = ""
        self.signals = ExitSignals(self._leave_prompt)  # SIGTERM / SIGHUP: cancel the turn like Esc, then exit
        self._next_request: int | None = None  # tokens of the next request (modeline ctx)
        self._server_announced = False  # the local server's context size was shown

    # ---- the application, built in the background ----------------------------------
    def start_building(self, delay: float = 0.0) -> None:
        if self._started:
            return
        self._started = True
        thread = threading.Timer(delay, self._build)
        thread.daemon = True
        thread.start()

    def _build(self) -> None:
        try:
            from slop.app import build
            from slop.ui.console import make_console
            from slop.ui.render import Renderer
            from slop.ui.terminal_io import TerminalIO

            console = self._console or make_console(no_color=self.settings.no_color)
            self._io = TerminalIO(console, Renderer(console), interactive=True, editor=self.settings.editor)
            self._app = build(self.settings, self._io, self._io.renderer, self.policy, self.boot)
        except BaseException as exc:
            self._error = exc
        finally:
            self._ready.set()
        self._warm_up()

    @property
    def app(self) -> App:
        self.start_building()
        self._ready.wait()
        if self._error is not None:
            raise self._error
        assert self._app is not None
        return self._app

    @property
    def io(self) -> TerminalIO:
        self.app  # noqa: B018 - waits until the terminal IO exists
        assert self._io is not None
        return self._io

    def close(self) -> None:
        if self._started:
            self._ready.wait(timeout=30)
        if self._app is not None:
            self._app.close()
        else:
            self.boot.store.close()

    # ---- the loop ------------------------------------------------------------------
    def loop(self) -> int:
        self._banner()
        session = self._prompt_session()
        self.start_building(BUILD_DELAY_SECONDS)
        while True:
            if self._app is not None:
                self.io.renderer.close()  # no live region may linger under the prompt
            try:
                line = session.prompt(default=self._typed_ahead)
            except EOFError:
                break
            except KeyboardInterrupt:
                continue
            except Terminated:
                break
            self._typed_ahead = ""
            if self._run_guarded(line) == "exit" or self.signals.received is not None:
                break
        if self.signals.received is not None:
            self._write(f"stopped by {self.signals.name}", DIM)
            return self.signals.exit_code
        self._write("bye", DIM)
        return 0

    def _run_guarded(self, line: str) -> str:
        """The engine turns errors into one line; this catches what fails around it
        (key watcher, renderer) so the REPL always comes back to its prompt."""
        try:
            return self._run(line).kind
        except Terminated:
            raise
        except Exception as exc:
            message = one_line(exc, write_crash_log(self.boot.home, exc, f"REPL input {line[:200]!r}"))
            self._write(f"✖ {message}", YELLOW)
            return "error"

    def _leave_prompt(self) -> None:
        """SIGTERM / SIGHUP at the prompt: end it like Ctrl-D (from the signal handler,
        so through the event loop's thread-safe queue, which also wakes it up)."""
        app = get_app_or_none()
        if app is None or not app.is_running or app.loop is None:
            raise Terminated(self.signals.received or 0)
        app.loop.call_soon_threadsafe(
            lambda: None if app.future is None or app.future.done() else app.exit(exception=EOFError())
        )

    def _run(self, line: str) -> Outcome:
        ctx = self.app.ctx
        self._announce_server()
        ctx.cancel.clear()
        cancelling = TurnKeys(ctx.cancel, lambda key: self.io.warning(f"[{key}] cancelling…"))
        with self.signals.turn(ctx.cancel), cancelling as keys:
            self.keys = keys
            try:
                outcome = self.app.engine.handle(line)
            finally:
                self.keys = None
        self._typed_ahead = keys.typed
        self._measure_next_request()  # after a turn or any surgery: ctx is the next request
        return outcome

    def _measure_next_request(self) -> None:
        if self._app is None:
            return
        try:
            self._next_request = self._app.orchestrator.preview(self._app.ctx.session).prompt.total_tokens
        except Exception:  # a busy ledger must not break the prompt; keep the last figure
            pass

    def _prompt_session(self, **io: Any) -> PromptSession[str]:
        """`io` may give `input`/`output` (tests drive the prompt through a pipe)."""
        return PromptSession(
            **io,
            message=FormattedText([("bold", "> ")]),
            history=FileHistory(str(_private_history(self.boot.home / "history"))),
            completer=LazyCompleter(self._completion_source),
            complete_in_thread=True,  # the first Tab may wait for the registry being built
            complete_while_typing=False,
            bottom_toolbar=self._modeline,
            key_bindings=self._bindings(),
            enable_history_search=False,
            multiline=False,
        )

    def _completion_source(self) -> Any:
        if not self._ready.wait(timeout=5) or self._app is None:
            return None
        return self._app.registry, self._app.ctx

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("escape", "enter")
        @kb.add("c-j")
        def _newline(event: KeyPressEvent) -> None:
            event.current_buffer.insert_text("\n")

        @kb.add("c-c")
        def _ctrl_c(event: KeyPressEvent) -> None:
            buffer = event.current_buffer
            if buffer.text:
                buffer.reset()
                self._last_ctrl_c = 0.0
                return
            now = time.monotonic()
            if now - self._last_ctrl_c < DOUBLE_CTRL_C_SECONDS:
                event.app.exit(exception=EOFError())
                return
            self._last_ctrl_c = now
            event.app.invalidate()

        return kb

    # ---- modeline ------------------------------------------------------------------
    def _modeline(self) -> FormattedText:
        app = self._app
        store = self.boot.store
        session = app.ctx.session if app else self.settings.session
        label = app.providers.label if app else self.boot.model_label
        info = store.sessions.get(session)
        window = "all" if info.context_size == 0 else str(info.context_size)
        skills = ",".join(info.active_skills) or "default"
        server_window = app.providers.context_window(label)[0] if app else self._boot_window(label)
        budget = prompt_budget(label, info.budget, server_window=server_window)
        if self._next_request is not None and app is not None:
            size = self._next_request
        else:  # still starting: the last call's size until the next request is measured
            last = store.usage.last(session)
            size = last.prompt_tokens if last else 0
        fill = f"{_k(size)}/{_k(budget)}"
        total = _k(store.usage.session_total(session))
        text = (
            f"slop <W:{window} M:{label} P:{skills} S:{session} T:{info.throttle:g}s> "
            f"mode:{info.context_mode} ctx {fill} · session {total} tok"
        )
        parts = [("", text)]
        if time.monotonic() - self._last_ctrl_c < DOUBLE_CTRL_C_SECONDS:
            parts.append(("italic", "  Ctrl-C again to exit"))
        return FormattedText(parts)

    def _announce_server(self) -> None:
        """A server first asked in this run (nothing cached at start-up) is announced once its answer is in."""
        if self._server_announced:
            return
        providers = self.app.providers
        window, source = providers.context_window(wait=2.0)  # the model call would wait for it anyway
        if window:
            self._server_announced = True
            self.io.info(_server_line(providers.label, window, source))

    def _boot_window(self, label: str) -> int:
        server = self.boot.server
        return server.context_for(label) if server else 0

    # ---- approvals -----------------------------------------------------------------
    def _warn(self, text: str) -> None:
        self.io.warning(text)

    def _ask_approval(self, call: ToolCall, preview: str) -> str:
        self.io.warning(f"{call.name} wants to run:")
        self.io.plain(preview)  # control characters show as escapes (\x1b, \u202e): what runs is what shows
        if has_hidden(preview):
            self.io.warning(HIDDEN_WARNING)
        question = f"Allow? [y] once / [a] always allow {call.name} this session / [n] no: "
        if self.keys is None:
            return _read_answer(question)
        with self.keys.paused():
            return _read_answer(question)

    # ---- start-up ------------------------------------------------------------------
    def _write(self, text: str, style: str = "") -> None:
        self.out.write(f"{style}{text}{RESET}\n" if style and self._color else text + "\n")
        self.out.flush()

    def _banner(self) -> None:
        b = self.boot
        provider = b.provider_kind or "no provider"
        self._write(
            f"slop {__version__} · session '{self.settings.session}' · {provider}:{b.model_label} · "
            f"ledger {_short(b.db_path)} · /help for commands",
            CYAN,
        )
        if b.provider_kind is None:
            self._write(f"⚠ {NO_PROVIDER_HINT}", YELLOW)
        elif b.server and b.server.context_for(b.model_label):
            self._write(_server_line(b.model_label, b.server.context_for(b.model_label), b.server.source), DIM)
            self._server_announced = True
        self._replay_last_exchange()

    def _replay_last_exchange(self) -> None:
        """The end of the previous conversation, as plain text (no markdown: start-up stays fast)."""
        for msg in self.boot.store.messages.recent(self.settings.session, 6):
            if msg.role == Role.USER:
                self._write("❯ " + visible(msg.content.strip(), strict=True), GREEN)
            elif msg.role == Role.ASSISTANT and msg.status != Status.TOOL_CALL and msg.content.strip():
                lines = visible(msg.content.strip()).splitlines()
                more = len(lines) - REPLAY_LINES
                tail = f"\n… ({more} more lines: /message show {msg.group_id})" if more > 0 else ""
                self._write("\n".join(lines[:REPLAY_LINES]) + tail, DIM)

    def _warm_up(self) -> None:
        """Load the tokenizer and the provider SDK while the user types."""
        if self._app is None:
            return
        try:
            self._app.tokenizer.count("warm up")
            self._app.providers.current()
        except Exception:
            pass
        self._measure_next_request()


def _private_history(path: Path) -> Path:
    try:
        private_file(path)  # what the user typed: 0600, like the ledger
    except OSError:
        pass  # an unwritable $SLOP_HOME: prompt_toolkit reports it when it saves
    return path


def _read_answer(question: str) -> str:
    try:
        return input(question)
    except EOFError:
        return "n"


def _server_line(model: str, window: int, source: str) -> str:
    budget = prompt_budget(model, 0, server_window=window)
    return f"server context {window:,} tokens ({source}) · prompt budget {budget:,} · /context budget to change"


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def _short(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
