"""The interactive prompt: prompt_toolkit input, modeline, keys, and the turn loop."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from slop import __version__
from slop.app import App, build
from slop.approval import ApprovalPolicy
from slop.records import Role, Status, ToolCall
from slop.settings import Settings
from slop.ui.completion import CommandCompleter
from slop.ui.keys import TurnKeys
from slop.ui.render import Renderer
from slop.ui.terminal_io import TerminalIO, make_console

DOUBLE_CTRL_C_SECONDS = 2.0


def run_repl(settings: Settings) -> int:
    console = make_console(no_color=settings.no_color)
    io = TerminalIO(console, Renderer(console), interactive=True)
    repl = Repl(settings, io)
    try:
        return repl.loop()
    finally:
        repl.app.close()


class Repl:
    def __init__(self, settings: Settings, io: TerminalIO) -> None:
        self.io = io
        self.keys: TurnKeys | None = None
        self.policy = ApprovalPolicy(settings.approval, self._ask_approval, io.warning)
        self.app: App = build(settings, io, io.renderer, self.policy)
        self._last_ctrl_c = 0.0
        self._typed_ahead = ""

    # ---- the loop ------------------------------------------------------------------
    def loop(self) -> int:
        self._banner()
        session = self._prompt_session()
        warm = threading.Timer(0.5, self._warm_up)
        warm.daemon = True
        warm.start()
        while True:
            self.io.renderer.close()  # no live region may linger under the prompt
            try:
                line = session.prompt(default=self._typed_ahead)
            except EOFError:
                break
            except KeyboardInterrupt:
                continue
            self._typed_ahead = ""
            if self._run(line).kind == "exit":
                break
        self.io.info("bye")
        return 0

    def _run(self, line: str):  # type: ignore[no-untyped-def]
        ctx = self.app.ctx
        ctx.cancel.clear()
        with TurnKeys(ctx.cancel, lambda key: self.io.warning(f"[{key}] cancelling…")) as keys:
            self.keys = keys
            try:
                outcome = self.app.engine.handle(line)
            finally:
                self.keys = None
        self._typed_ahead = keys.typed
        return outcome

    def _prompt_session(self, **io: Any) -> PromptSession[str]:
        """`io` may give `input`/`output` (tests drive the prompt through a pipe)."""
        history = self.app.home / "history"
        return PromptSession(
            **io,
            message=HTML("<b>&gt;</b> "),
            history=FileHistory(str(history)),
            completer=CommandCompleter(self.app.registry, self.app.ctx),
            complete_while_typing=False,
            bottom_toolbar=self._modeline,
            key_bindings=self._bindings(),
            enable_history_search=False,
            multiline=False,
        )

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
    def _modeline(self) -> HTML:
        from html import escape

        app = self.app
        info = app.store.sessions.get(app.ctx.session)
        window = "all" if info.context_size == 0 else str(info.context_size)
        skills = ",".join(info.active_skills) or "default"
        throttle = f"{info.throttle:g}s"
        from slop.context.budget import prompt_budget

        budget = prompt_budget(app.providers.label, info.budget)
        last = app.store.usage.last(app.ctx.session)
        fill = f"{_k(last.prompt_tokens)}/{_k(budget)}" if last else f"0/{_k(budget)}"
        total = _k(app.store.usage.session_total(app.ctx.session))
        hint = "  <i>Ctrl-C again to exit</i>" if time.monotonic() - self._last_ctrl_c < DOUBLE_CTRL_C_SECONDS else ""
        text = (
            f"slop &lt;W:{window} M:{escape(app.providers.label)} P:{escape(skills)} S:{escape(app.ctx.session)} "
            f"T:{throttle}&gt; mode:{escape(info.context_mode)} ctx {fill} · session {total} tok{hint}"
        )
        return HTML(text)

    # ---- approvals -----------------------------------------------------------------
    def _ask_approval(self, call: ToolCall, preview: str) -> str:
        self.io.warning(f"{call.name} wants to run:")
        self.io.plain(preview)
        question = f"Allow? [y] once / [a] always allow {call.name} this session / [n] no: "
        if self.keys is None:
            return _read_answer(question)
        with self.keys.paused():
            return _read_answer(question)

    # ---- start-up ------------------------------------------------------------------
    def _banner(self) -> None:
        app = self.app
        count = app.store.messages.count(app.ctx.session)
        provider = app.providers.kind or "no provider"
        self.io.info(
            f"slop {__version__} · session '{app.ctx.session}' · {provider}:{app.providers.label} · "
            f"ledger {_short(Path(app.store.path))} · /help for commands"
        )
        if app.providers.kind is None:
            self.io.warning("no model provider configured: set OPENAI_API_KEY (or OPENAI_BASE_URL) or GEMINI_API_KEY")
        if count:
            self._show_last_exchange()

    def _show_last_exchange(self) -> None:
        recent = self.app.store.messages.recent(self.app.ctx.session, 6)
        for msg in recent:
            if msg.role == Role.USER:
                self.io.renderer.user_echo(msg.content, msg.group_id or "")
            elif msg.role == Role.ASSISTANT and msg.status != Status.TOOL_CALL and msg.content:
                self.io.renderer.assistant_message(msg.content, msg.tokens or None)

    def _warm_up(self) -> None:
        """Load the tokenizer and the provider SDK while the user types."""
        try:
            self.app.tokenizer.count("warm up")
            self.app.providers.current()
        except Exception:
            pass


def _read_answer(question: str) -> str:
    try:
        return input(question)
    except EOFError:
        return "n"


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def _short(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
