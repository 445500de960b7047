"""The interactive prompt: prompt_toolkit input, modeline, keys, and the turn loop.

The prompt is drawn from the composition root's light stage (`AppRoot.boot`: ledger,
provider detection); its `build` stage wires the rest on a background thread once the
prompt is on screen. The root is handed in: the ui sits below it and knows the
application only as an `Application` (`ui/appface.py`)."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from slop.approval import ApprovalPolicy
from slop.boot import Boot
from slop.debuglog import one_line, write_crash_log
from slop.errors import Cancelled, Terminated
from slop.providers.registry import preload_sdk
from slop.records import ToolCall
from slop.settings import Settings, private_file
from slop.ui.appface import Application, AppRoot
from slop.ui.completion import LazyCompleter
from slop.ui.keys import Question, TurnKeys
from slop.ui.modeline import modeline_text, server_line
from slop.ui.sanitise import HIDDEN_WARNING, has_hidden
from slop.ui.signals import ExitSignals
from slop.ui.startup import DIM, GREEN, RESET, YELLOW, banner_lines, replay_lines

if TYPE_CHECKING:
    from rich.console import Console

    from slop.engine import Outcome
    from slop.ui.terminal_io import TerminalIO

DOUBLE_CTRL_C_SECONDS = 2.0
BUILD_DELAY_SECONDS = 0.05  # let the first prompt render before the heavy imports start
PROMPT_DRAW_SECONDS = 1.0  # the SDK import waits at most this long for the first prompt


def run_repl(settings: Settings, root: AppRoot) -> int:
    repl = Repl(settings, root)
    try:
        with repl.signals:
            return repl.loop()
    finally:
        repl.close()


class Repl:
    def __init__(self, settings: Settings, root: AppRoot, console: Console | None = None) -> None:
        """`console` None: a terminal console is made in the background build (rich is
        not needed before the first prompt; the banner is written directly)."""
        self.settings = settings
        self._root = root
        self._console = console
        self.out: IO[str] = console.file if console is not None else sys.stdout
        self._color = not (settings.no_color or os.environ.get("NO_COLOR")) and self.out.isatty()
        self.boot: Boot = root.boot(settings)
        self.boot.tokenizer.defer_loading()  # loaded in a quiet moment, never on the first reply's path
        # The SDK import (~1 s) gets its thread now and starts once the first prompt is drawn:
        # measured, overlapping the drawing delays the prompt ~50 ms and the first reply no less.
        self._prompt_drawn = threading.Event()
        threading.Thread(target=self._preload_sdk, name="slop-sdk", daemon=True).start()
        self._busy = False  # an input is running (the tokenizer waits for a quiet moment)
        self._inputs = 0  # inputs run so far: only the first may use estimated token counts
        self.keys: TurnKeys | None = None
        self.policy = ApprovalPolicy(
            settings.approval,
            self._ask_approval,
            self._warn,
            show=self._show_change,
            per_tool=settings.config.tool_approvals(),
        )
        self._app: Application | None = None
        self._io: TerminalIO | None = None
        self._ready = threading.Event()
        self._warmed = threading.Event()  # the background build and warm-up are over
        self._started = False
        self._error: BaseException | None = None
        self._last_ctrl_c = 0.0
        self._typed_ahead = ""  # typed during the last input without Enter: the next prompt's text
        self._queued: deque[str] = deque()  # lines typed with Enter during the last input
        self.signals = ExitSignals(self._leave_prompt)  # SIGTERM / SIGHUP: cancel the turn like Esc, then exit
        self._next_request: int | None = None  # tokens of the next request (modeline ctx)
        self._server_announced = False  # the local server's context size was shown
        self._session: PromptSession[str] | None = None

    # ---- the application, built in the background ----------------------------------
    def start_building(self, delay: float = 0.0) -> None:
        if self._started:
            return
        self._started = True
        thread = threading.Timer(delay, self._build)
        thread.daemon = True
        thread.start()

    def _preload_sdk(self) -> None:
        self._prompt_drawn.wait(timeout=PROMPT_DRAW_SECONDS)
        preload_sdk(self.boot.provider_kind, self.boot.providers)
        gc.freeze()  # see _build

    def _build(self) -> None:
        self._prompt_drawn.set()  # the build starts once the first prompt is on screen
        try:
            from slop.ui.console import make_console
            from slop.ui.render import Renderer
            from slop.ui.terminal_io import TerminalIO

            console = self._console or make_console(no_color=self.settings.no_color)
            self._io = TerminalIO(
                console, Renderer(console), interactive=True, editor=self.settings.editor, keys=lambda: self.keys
            )
            self._io.verbosity = self.settings.verbosity
            self._app = self._root.build(
                self.settings, self._io, self._io.renderer, self.policy, self.boot, notify=self._notice
            )
        except BaseException as exc:
            self._error = exc
        finally:
            self._ready.set()
        try:
            self._warm_up()
        finally:
            gc.freeze()  # start-up's ~145,000 objects (SDK, terminal, app) leave the 100 ms full collections
            self._warmed.set()

    @property
    def app(self) -> Application:
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
            self._warmed.wait(timeout=30)  # it may still start the tokenizer, which writes to the ledger
        if self._app is not None:
            self._app.close()
        else:
            self.boot.store.close()

    # ---- the loop ------------------------------------------------------------------
    def loop(self) -> int:
        self._banner()
        session = self._session = self._prompt_session()
        self.start_building(BUILD_DELAY_SECONDS)
        while True:
            if self._app is not None:
                self.io.renderer.close()  # no live region may linger under the prompt
            if self._queued:
                line = self._queued.popleft()
                self._echo_queued(line, session)
            else:
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
        if self._inputs and self._app is not None:
            # from the second input on, counts are exact: a load begun since has had the typing time
            self._app.tokenizer.wait_loaded(timeout=30)
        self._inputs += 1
        self._busy = True
        if self._app is not None:
            self._app.pause_index_upkeep()  # the input's first write waits for no merge step
        try:
            return self._run_input(line)
        finally:
            self._busy = False
            self._work_when_idle()

    def _run_input(self, line: str) -> Outcome:
        ctx = self.app.ctx
        self._announce_server()
        ctx.cancel.clear()
        keys = TurnKeys(
            ctx.cancel,
            on_cancel=lambda key: self.io.warning(f"[{key}] cancelling…"),
            on_queued=lambda queued: self.io.info(f"queued: {queued}  (runs after this one)"),
        )
        with self.signals.turn(ctx.cancel), keys:
            self.keys = keys
            try:
                outcome = self.app.engine.handle(line)
            finally:
                self.keys = None
        self._queued.extend(keys.queued)
        self._typed_ahead = keys.partial
        self._measure_next_request()  # after a turn or any surgery: ctx is the next request
        return outcome

    def _echo_queued(self, line: str, session: PromptSession[str]) -> None:
        """A queued line runs as if typed at the prompt: shown, and in the history."""
        self._write(f"> {line}", GREEN)
        session.history.append_string(line)

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
        session = app.ctx.session if app else self.settings.session
        label = app.providers.label if app else self.boot.model_label
        next_request = self._next_request if app is not None else None
        server_window = app.providers.context_window(label)[0] if app else self._boot_window(label)
        text = modeline_text(self.boot.store, session, label, next_request, self.settings.prices, server_window)
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
            self.io.info(server_line(providers.label, window, source))

    def _boot_window(self, label: str) -> int:
        server = self.boot.server
        return server.context_for(label) if server else 0

    # ---- approvals and background notices ------------------------------------------
    def _warn(self, text: str) -> None:
        self.io.warning(text)

    def _notice(self, text: str) -> None:
        """A warning from a background thread (an MCP server that failed or died): above the
        prompt when one is being edited, so the line being typed is redrawn intact."""
        assert self._io is not None
        io = self._io
        prompt = self._session.app if self._session is not None else None
        loop = getattr(prompt, "loop", None) if prompt is not None and prompt.is_running else None
        if loop is None:
            io.warning(text)
            return
        loop.call_soon_threadsafe(lambda: run_in_terminal(lambda: io.warning(text)))

    def _ask_approval(self, call: ToolCall, preview: str) -> str:
        """y/yes, a/always, n/no (single key or word + Enter); Esc = no; Ctrl-C cancels the turn."""
        self.io.warning(f"{call.name} wants to run:")
        self.io.diff(preview)
        if has_hidden(preview):
            self.io.warning(HIDDEN_WARNING)
        prompt = f"Allow? y = yes once · a = always allow {call.name} this session · n or Esc = no · Ctrl-C cancels: "
        question = Question({"y": "yes", "a": "always", "n": "no"}, default="no", on_ctrl_c="cancel")
        answer = self.io.ask(prompt, question)
        if answer == "cancel":
            raise Cancelled("approval cancelled with Ctrl-C")
        return answer

    def _show_change(self, call: ToolCall, preview: str) -> None:
        """Approved without asking (--yes, or "always"): file changes are still shown."""
        if call.name != "execute_bash":
            self.io.diff(preview)

    # ---- start-up ------------------------------------------------------------------
    def _write(self, text: str, style: str = "") -> None:
        self.out.write(f"{style}{text}{RESET}\n" if style and self._color else text + "\n")
        self.out.flush()

    def _banner(self) -> None:
        b = self.boot
        lines = banner_lines(b, self.settings.session)
        self._server_announced = bool(b.provider_kind and b.server and b.server.context_for(b.model_label))
        for text, style in lines + replay_lines(b, self.settings.session):
            self._write(text, style)

    def _warm_up(self) -> None:
        """Build the provider's client while the user types (its SDK import started with the
        process), then the idle work unless an input already runs: the first reply never
        waits for the tokenizer (counts are estimates until it is loaded)."""
        if self._app is None:
            return
        with contextlib.suppress(Exception):  # reported properly by the first request
            self._app.providers.warm()
        self._measure_next_request()
        self._work_when_idle()

    def _work_when_idle(self) -> None:
        """What waits for a quiet moment: the tokenizer's load, the history index's upkeep."""
        if self._app is not None and not self._busy:
            self._app.load_tokenizer_in_background(then=self._measure_next_request)  # ctx: exact now
            self._app.tidy_index_when_idle(busy=lambda: self._busy)


def _private_history(path: Path) -> Path:
    with contextlib.suppress(OSError):  # an unwritable $SLOP_HOME: prompt_toolkit says so when it saves
        private_file(path)  # what the user typed: 0600, like the ledger
    return path
