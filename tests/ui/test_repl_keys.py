"""The prompt's keys and completion, driven through prompt_toolkit's pipe input."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from slop.cli import ROOT
from slop.settings import Settings
from slop.ui.console import make_console
from slop.ui.repl import Repl


@pytest.fixture
def repl(tmp_path: Path) -> Iterator[Repl]:
    console = make_console(io.StringIO(), no_color=True)
    settings = Settings(db_path=str(tmp_path / "l.db"), home=str(tmp_path / "home"), project_root=str(tmp_path))
    instance = Repl(settings, ROOT, console)
    instance.app  # noqa: B018 - builds it; then let the warm-up and the tokenizer load finish, so
    instance._warmed.wait(30)  # token counts are exact, not the start-up estimates (issue 12)
    instance.app.tokenizer.wait_loaded(30)
    (instance.app.home / "history").write_text("\n# 2026-01-01\n+hello world\n\n# 2026-01-02\n+/context show\n")
    yield instance
    instance.close()


def _completed(text: str, typed: str) -> bool:
    return text.startswith(typed) and len(text) > len(typed)


def ask(repl: Repl, keys: str) -> str:
    """Type `keys`; after each Tab wait until the completion is in the buffer: completion
    runs asynchronously, and a key typed before it lands would discard it."""
    chunks = [c + "\t" for c in keys.split("\t")[:-1]] + [keys.split("\t")[-1]]
    with create_pipe_input() as pipe:
        session = repl._prompt_session(input=pipe, output=DummyOutput())

        def typist() -> None:
            for chunk in chunks:
                before = session.default_buffer.text
                pipe.send_text(chunk)
                if chunk.endswith("\t"):
                    # the buffer passes through the typed prefix (slowly, under a tracer such as
                    # coverage): only a text longer than all that was typed is the completion
                    typed = before + chunk[:-1]
                    deadline = time.monotonic() + 30  # a bound for a broken completer, not a timing
                    while not _completed(session.default_buffer.text, typed) and time.monotonic() < deadline:
                        time.sleep(0.02)
                time.sleep(0.05)

        thread = threading.Thread(target=typist, daemon=True)
        thread.start()
        try:
            return session.prompt()
        finally:
            thread.join(timeout=5)


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ("first\x1b\rsecond\r", "first\nsecond"),  # Esc Enter (= Alt-Enter) inserts a newline
        ("a\nb\r", "a\nb"),  # Ctrl-J inserts a newline
        ("junk\x03kept\r", "kept"),  # Ctrl-C clears the line
        ("\x1b[200~line one\nline two\x1b[201~\r", "line one\nline two"),  # bracketed paste keeps newlines
        ("/con\t\r", "/context"),  # Tab completes commands
        ("/context dr\t 1\r", "/context drop 1"),  # and sub-commands
        ("/ses\t sw\t\r", "/session switch"),
        ("\x12hello\r\r", "hello world"),  # Ctrl-R searches the persistent history
    ],
)
def test_keys(repl: Repl, keys: str, expected: str) -> None:
    assert ask(repl, keys) == expected


def test_ctrl_c_twice_at_an_empty_prompt_exits(repl: Repl) -> None:
    with pytest.raises(EOFError):
        ask(repl, "\x03\x03")


def test_ctrl_d_exits(repl: Repl) -> None:
    with pytest.raises(EOFError):
        ask(repl, "\x04")


def test_modeline_shows_window_model_skills_session_and_fill(repl: Repl) -> None:
    repl.app.store.sessions.set_context_size("default", 0)
    repl.app.store.sessions.set_active_skills("default", ["planner"])
    repl._measure_next_request()  # what the REPL does after every input (and once at start-up)
    text = "".join(fragment[1] for fragment in repl._modeline())
    assert text.startswith("slop <W:all M:none P:planner S:default T:0s>")
    # ctx is the size of the next request: even a fresh session sends the system prompt and the tools
    size = repl.app.orchestrator.preview("default").prompt.total_tokens
    assert size > 1000 and f"ctx {size / 1000:.1f}k/" in text and "session 0 tok" in text


def test_the_start_up_objects_are_frozen_out_of_full_collections(tmp_path: Path) -> None:
    """Once the app is built and warmed, what start-up made (SDK, terminal, app) is in
    the permanent generation: a full collection no longer scans it (100 ms otherwise)."""
    import gc

    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    settings = Settings(db_path=str(tmp_path / "l.db"), home=str(tmp_path / "home"), project_root=str(tmp_path))
    instance = Repl(settings, ROOT, make_console(io.StringIO(), no_color=True))
    try:
        instance.app  # noqa: B018 - builds it
        assert instance._warmed.wait(30)
        assert gc.get_freeze_count() > 10_000
    finally:
        instance.close()
