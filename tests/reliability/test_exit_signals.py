"""A second SIGTERM / SIGHUP while slop is already leaving (the terminal's SIGHUP after
the SIGTERM that ended the turn, or pexpect's own on close) must not break the way out:
slop still exits with 128 + the signal's number, never with a traceback and status 1.
Measured: under load, one run in ten did, the second signal raising inside a thread's
start and the ledger's close then failing on the thread that never started."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable

import pytest

from slop.context.tokens import Tokenizer
from slop.errors import Terminated
from slop.ui.signals import ExitSignals


def leave_prompt() -> None:
    """What the REPL's on_idle does away from its prompt."""
    raise Terminated(signal.SIGTERM)


def test_a_signal_during_the_turn_cancels_it_and_a_second_one_is_only_recorded() -> None:
    signals = ExitSignals(leave_prompt)
    cancel = threading.Event()
    with signals:
        with signals.turn(cancel):
            signal.raise_signal(signal.SIGTERM)
        assert cancel.is_set()
        signal.raise_signal(signal.SIGTERM)  # while the REPL winds down: must not raise
    assert signals.exit_code == 128 + signal.SIGTERM


@pytest.mark.parametrize("on_idle", [leave_prompt, None])
def test_the_first_signal_while_idle_still_ends_the_run(on_idle: Callable[[], None] | None) -> None:
    signals = ExitSignals(on_idle)
    with signals, pytest.raises(Terminated):
        signal.raise_signal(signal.SIGTERM)
    assert signals.exit_code == 128 + signal.SIGTERM


def test_waiting_for_a_load_whose_thread_never_started_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    """A signal raised inside Thread.start() leaves a thread object that never ran:
    closing the app waits for the load, and must not fail on it."""
    tokenizer = Tokenizer()

    def cut_short(self: threading.Thread) -> None:
        raise Terminated(signal.SIGTERM)

    monkeypatch.setattr(threading.Thread, "start", cut_short)
    with pytest.raises(Terminated):
        tokenizer.load_in_background()
    tokenizer.wait_loaded(timeout=1)
