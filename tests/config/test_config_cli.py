"""Configuration mistakes as a user meets them: the real `slop` command, started in a
project, stops with one line saying what is wrong, and a bad file or variable stops it
before the ledger is touched."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakellm import FakeLLM

SLOP = shutil.which("slop", path=str(Path(sys.executable).parent)) or "slop"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def write_config(project: Path, text: str) -> Path:
    path = project / ".slop" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def slop(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE", "SLOP_"))}
    environ.update(SLOP_HOME=os.environ["SLOP_HOME"], SLOP_MAX_RETRIES="0", NO_COLOR="1", **env)
    return subprocess.run([SLOP, *args], cwd=cwd, env=environ, capture_output=True, text=True, timeout=60)


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result
    assert result.stdout == ""
    message = result.stderr.strip()
    assert "\n" not in message and "Traceback" not in message, message
    return message


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"SLOP_VERBOSE": "loud"}, "slop: SLOP_VERBOSE must be quiet, normal or full, got 'loud'"),
        ({"SLOP_STEP_LIMIT": "lots"}, "slop: SLOP_STEP_LIMIT must be a number, got 'lots'"),
        ({"SLOP_PRICES": "gpt=cheap/2"}, "slop: SLOP_PRICES: the prices of 'gpt' must be numbers"),
        ({"SLOP_TOOL_OUTPUT_CAP": "10"}, "slop: SLOP_TOOL_OUTPUT_CAP must be at least 1048576 bytes (1 MiB), got 10"),
    ],
)
def test_a_bad_environment_variable_stops_slop_before_the_ledger(project: Path, env: dict[str, str], says: str) -> None:
    message = one_line_error(slop(project, "--prompt", "/help", **env))
    assert message.startswith(says)
    assert not (project / ".slop").exists()  # nothing was created


def test_a_bad_project_file_stops_slop_before_the_ledger(project: Path) -> None:
    path = write_config(project, "[tools]\nstep_limit = 0\n")
    message = one_line_error(slop(project, "--prompt", "hello"))
    assert message.startswith(f"slop: {path} line 2: tools.step_limit must be at least 1, got 0")
    assert not (project / ".slop" / "slop.db").exists()


def test_an_unknown_provider_lists_the_profiles_too(project: Path) -> None:
    write_config(project, '[providers.lab]\nbase_url = "http://127.0.0.1:9/v1"\n')
    message = one_line_error(slop(project, "--prompt", "hi", "--provider", "nosuch"))
    assert message == (
        "slop: unknown provider 'nosuch'; use one of: openai, gemini, gemini_gca, lab "
        "(or add a [providers.NAME] table to the config)"
    )


def test_a_profile_whose_key_variable_is_unset_says_which_variable(project: Path) -> None:
    write_config(
        project,
        '[providers.lab]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "LAB_KEY"\n[models]\nsmall = "lab:tiny"\n',
    )
    result = slop(project, "--prompt", "hi", "--model", "small")
    assert result.returncode == 1
    assert "provider 'lab' reads its key from $LAB_KEY, which is not set" in result.stdout + result.stderr


def test_an_alias_and_a_profile_reach_the_profile_s_server_with_its_key(project: Path, fake_llm: FakeLLM) -> None:
    fake_llm.require_key = "lab-secret-123"
    fake_llm.enqueue_text("hello from the lab")
    write_config(
        project,
        f'[providers.lab]\nbase_url = "{fake_llm.openai_base_url}"\napi_key_env = "LAB_KEY"\n'
        '[models]\nsmall = "lab:tiny-model"\n',
    )
    result = slop(project, "--prompt", "hi", "--model", "small", LAB_KEY="lab-secret-123")
    assert result.returncode == 0, result.stderr
    assert "hello from the lab" in result.stdout
    assert fake_llm.last_request("chat").json["model"] == "tiny-model"


def test_the_project_file_s_approval_default_refuses_changes_in_batch_mode(project: Path, fake_llm: FakeLLM) -> None:
    """approvals.default = "read-only" in the file is --read-only: the model's write is refused."""
    write_config(project, '[approvals]\ndefault = "read-only"\n')
    fake_llm.enqueue_tool_calls([("write_file", {"path": "planted.txt", "content": "x"})])
    fake_llm.enqueue_text("could not write")
    result = slop(
        project, "--prompt", "write it", OPENAI_API_KEY="sk-test-config-1", OPENAI_BASE_URL=fake_llm.openai_base_url
    )
    assert result.returncode == 0, result.stderr
    assert not (project / "planted.txt").exists()
    assert "write_file refused: slop runs with --read-only" in result.stdout + result.stderr


def approved_turn(project: Path, fake_llm: FakeLLM, prompt: str) -> subprocess.CompletedProcess[str]:
    """One `slop --yes --prompt` turn against the fake server."""
    key, url = "sk-test-config-1", fake_llm.openai_base_url
    return slop(project, "--yes", "--prompt", prompt, OPENAI_API_KEY=key, OPENAI_BASE_URL=url)


def test_a_tool_the_config_denies_is_refused_even_with_yes(project: Path, fake_llm: FakeLLM) -> None:
    write_config(project, '[approvals]\nexecute_bash = "deny"\n')
    fake_llm.enqueue_tool_calls([("execute_bash", {"command": "touch planted"})])
    fake_llm.enqueue_text("could not run it")
    result = approved_turn(project, fake_llm, "run it")
    assert result.returncode == 0, result.stderr
    assert not (project / "planted").exists()
    assert 'execute_bash refused: the config denies it ([approvals] execute_bash = "deny")' in result.stdout


def test_the_shell_timeout_of_the_config_file_stops_a_slow_command(project: Path, fake_llm: FakeLLM) -> None:
    write_config(project, "[tools]\nshell_timeout = 1\n")
    fake_llm.enqueue_tool_calls([("execute_bash", {"command": "sleep 30; touch late"})])
    fake_llm.enqueue_text("it timed out")
    result = approved_turn(project, fake_llm, "wait")
    assert result.returncode == 0, result.stderr
    tool_result = next(m for m in fake_llm.last_request("chat").json["messages"] if m["role"] == "tool")
    assert tool_result["content"].startswith("Error: DEADLINE_EXCEEDED: command timed out after 1 s;")
    assert not (project / "late").exists()


def test_the_step_limit_of_the_config_file_ends_a_runaway_turn(project: Path, fake_llm: FakeLLM) -> None:
    write_config(project, "[tools]\nstep_limit = 2\n")
    for _ in range(5):
        fake_llm.enqueue_tool_calls([("list_directory", {})])
    result = slop(
        project, "--prompt", "loop", OPENAI_API_KEY="sk-test-config-1", OPENAI_BASE_URL=fake_llm.openai_base_url
    )
    chats = [r for r in fake_llm.requests if "chat" in r.target]
    assert len(chats) == 2  # two model calls, then slop stopped the turn
    said = result.stdout + result.stderr
    assert "stopped after 2 model calls in one turn (step limit); send 'continue' to go on" in said
