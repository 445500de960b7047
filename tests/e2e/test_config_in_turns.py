"""The [truncation] tiers of the config file change what the model gets: checked on the
requests the fake server receives."""

from __future__ import annotations

import re
from pathlib import Path

from slop.config import load_config
from tests.e2e.conftest import AppFactory
from tests.e2e.wires import contents_of, last_generation
from tests.fakellm import FakeLLM

PRINT_2000 = "python3 -c \"print('x' * 2000)\""


def configured(project: Path, text: str) -> dict[str, object]:
    path = project / ".slop" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return {"config": load_config(project)}


def shown_xs(fake: FakeLLM) -> int:
    """How much of the 2000-character tool output the last request carried."""
    [result] = contents_of(last_generation(fake), "tool")
    return max((len(run) for run in re.findall("x+", result)), default=0)


def run_tool_then_ask_again(app_factory: AppFactory, fake: FakeLLM, **overrides: object) -> tuple[int, int]:
    app, _ = app_factory(**overrides)
    fake.enqueue_tool_calls([("execute_bash", {"command": PRINT_2000})])
    fake.enqueue_text("printed")
    assert app.engine.handle("print the xs").ok
    running = shown_xs(fake)  # the turn's own newest result: the `full` tier
    fake.enqueue_text("ok")
    assert app.engine.handle("and now?").ok
    return running, shown_xs(fake)  # a finished turn's result: the `inactive` tier


def test_the_truncation_tiers_of_the_config_file_decide_what_the_model_sees(
    make_app: AppFactory, fake_llm: FakeLLM, project: Path
) -> None:
    default_running, default_finished = run_tool_then_ask_again(make_app, fake_llm)
    assert default_running == 2000 and 0 < default_finished < 300  # full: 5000 characters, inactive: 300
    running, finished = run_tool_then_ask_again(
        make_app,
        fake_llm,
        db_path=str(project / "other.db"),
        **configured(project, "[truncation]\nfull = 1000\ninactive = 100\n"),
    )
    assert 0 < running < 1000 and 0 < finished < 100
