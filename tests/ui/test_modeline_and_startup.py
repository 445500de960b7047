"""The modeline under the prompt and what the REPL prints before its first prompt, read
from a real ledger: the numbers a user steers by (window, context fill, session bill)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import DummyOutput

from slop.boot import Boot, boot
from slop.records import NewMessage, Role, Status, Usage
from slop.settings import Settings
from slop.store import Store
from slop.ui.modeline import modeline_text, server_line
from slop.ui.startup import NO_PROVIDER_HINT, REPLAY_LINES, banner_lines, replay_lines


class SizedOutput(DummyOutput):
    def __init__(self, columns: int) -> None:
        self.columns = columns

    def get_size(self) -> Size:
        return Size(rows=24, columns=self.columns)


@contextmanager
def terminal_of(columns: int) -> Iterator[None]:
    """A prompt running in a terminal `columns` wide, as the modeline sees it."""
    with set_app(Application(output=SizedOutput(columns))):
        yield


def test_the_modeline_says_window_model_skills_session_mode_fill_and_tokens(store: Store) -> None:
    store.sessions.set_context_size("s", 8)
    store.sessions.set_active_skills("s", ["planner", "dba"])
    store.sessions.update_settings("s", context_mode="ranked", budget=20_000, throttle=2)
    store.usage.record("s", None, Usage(1500, 500, 2000, "gpt-x"))
    store.usage.record("s", None, Usage(3000, 700, 3700, "gpt-x"))
    text = modeline_text(store, "s", "gpt-x", next_request=12_345)
    assert text == "slop <W:8 M:gpt-x P:planner,dba S:s T:2s> mode:ranked ctx 12.3k/20.0k · session 5.7k tok"


def test_before_the_first_measurement_the_last_call_s_prompt_stands_in(store: Store) -> None:
    store.sessions.update_settings("s", budget=900)
    assert "ctx 0/900 " in modeline_text(store, "s", "m", next_request=None)
    store.usage.record("s", None, Usage(640, 10, 650, "m"))
    assert "ctx 640/900 " in modeline_text(store, "s", "m", next_request=None)


def test_a_window_of_zero_is_the_whole_history_and_no_skill_is_default(store: Store) -> None:
    store.sessions.set_context_size("s", 0)
    assert modeline_text(store, "s", "m", next_request=0).startswith("slop <W:all M:m P:default S:s T:0s>")


def test_the_session_cost_shows_when_every_model_s_price_is_known(store: Store) -> None:
    store.usage.record("s", None, Usage(1_000_000, 0, 1_000_000, "my-model"))
    assert "$" not in modeline_text(store, "s", "my-model", next_request=0)  # no price: no partial sum
    priced = modeline_text(store, "s", "my-model", next_request=0, prices=[("my-model", (2.0, 8.0))])
    assert priced.endswith("session 1000.0k tok · $2.00")


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        (200, "slop <W:3 M:gpt-x P:default S:work T:0s> mode:window ctx 1.2k/9.0k · session 0 tok"),
        (70, "slop <W:3 M:gpt-x S:work> window ctx 1.2k/9.0k · 0 tok"),
        (50, "slop <W:3 M:gpt-x S:work> ctx 1.2k/9.0k"),
        (35, "slop <W:3 M:gpt-x> ctx 1.2k/9.0k"),
        (20, "slop <W:3> ctx 1.2k/9.0k"),
    ],
)
def test_a_narrow_terminal_drops_the_lesser_fields_and_keeps_the_context_fill(
    store: Store, columns: int, expected: str
) -> None:
    store.sessions.set_context_size("work", 3)
    store.sessions.update_settings("work", budget=9000)
    with terminal_of(columns):
        text = modeline_text(store, "work", "gpt-x", next_request=1234)
    assert text == expected
    assert len(text) < columns or columns == 20  # the shortest form is shown even if it does not fit


def test_the_server_line_names_the_source_and_the_budget_it_gives() -> None:
    line = server_line("qwen", 32_768, "llama.cpp /props")
    assert line.startswith("server context 32,768 tokens (llama.cpp /props) · prompt budget ")
    assert line.endswith(" · /context budget to change")
    budget = int(line.split("prompt budget ")[1].split(" ")[0].replace(",", ""))
    assert 32_768 * 3 // 4 <= budget < 32_768  # the reply's reserve is taken out, at most a quarter


# ---- start-up ---------------------------------------------------------------------


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Boot]:
    settings = Settings(db_path=str(tmp_path / "l.db"), home=str(tmp_path / "home"), project_root=str(tmp_path))
    b = boot(settings)
    yield b
    b.store.close()


def test_without_a_provider_the_banner_says_how_to_set_one(started: Boot) -> None:
    [(title, _), (hint, _)] = banner_lines(started, "work")
    assert "session 'work' · no provider · ledger " in title and title.endswith("/help for commands")
    assert hint == f"⚠ {NO_PROVIDER_HINT}"


def test_the_replay_shows_the_end_of_the_last_conversation(started: Boot) -> None:
    store = started.store
    gid = store.messages.new_group_id()
    store.messages.append("s", gid, NewMessage(Role.USER, "  what changed?\n"))
    store.messages.append("s", gid, NewMessage(Role.ASSISTANT, "{}", Status.TOOL_CALL))  # not prose: skipped
    store.messages.append("s", gid, NewMessage(Role.TOOL, "diff text", tool_call_id="c1"))
    long_answer = "\n".join(f"line {i}" for i in range(1, REPLAY_LINES + 4))
    store.messages.append("s", gid, NewMessage(Role.ASSISTANT, long_answer))
    [(question, _), (answer, _)] = replay_lines(started, "s")
    assert question == "❯ what changed?"
    shown = answer.split("\n")
    assert shown[:REPLAY_LINES] == [f"line {i}" for i in range(1, REPLAY_LINES + 1)]
    assert shown[REPLAY_LINES:] == [f"… (3 more lines: /message show {gid})"]


def test_the_replay_shows_escapes_instead_of_running_them(started: Boot) -> None:
    store = started.store
    gid = store.messages.new_group_id()
    store.messages.append("s", gid, NewMessage(Role.USER, "title\x1b]0;pwned\x07"))
    store.messages.append("s", gid, NewMessage(Role.ASSISTANT, "clear\x1b[2J\x1b[Hdone"))
    [(question, _), (answer, _)] = replay_lines(started, "s")
    assert "\x1b" not in question + answer
    assert question == "❯ title\\x1b]0;pwned\\x07" and answer == "clear\\x1b[2J\\x1b[Hdone"


def test_a_new_session_replays_nothing(started: Boot) -> None:
    assert replay_lines(started, "never-used") == []
