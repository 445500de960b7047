"""The config files as a user writes them: real files, the real `slop` command.

`slop config` prints the merged result with each value's origin; a bad file is one line
naming the file and the line, and nothing starts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from slop.config import load_config
from slop.errors import ConfigError

SLOP = shutil.which("slop", path=str(Path(sys.executable).parent)) or "slop"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)  # the git top level: where .slop/config.toml is looked for
    (root / "src").mkdir()
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def slop(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE", "SLOP_"))}
    environ.update(SLOP_HOME=os.environ["SLOP_HOME"], **env)
    return subprocess.run([SLOP, *args], cwd=cwd, env=environ, capture_output=True, text=True, timeout=60)


def line_of(output: str, key: str) -> str:
    found = [line for line in output.splitlines() if line.startswith(f"{key} = ")]
    assert len(found) == 1, f"{key} not printed once in:\n{output}"
    return found[0]


def test_project_over_user_and_slop_config_says_where_each_value_came_from(project: Path, isolated_env: Path) -> None:
    user = write(
        isolated_env / "config.toml",
        'model = "gpt-4.1"\nbase_url = "http://user.example/v1"\n[context]\nwindow = 8\nmode = "ranked"\n'
        "[tools]\nshell_timeout = 30\n",
    )
    proj = write(project / ".slop" / "config.toml", "# the project\n[context]\nwindow = 3\n\n[ui]\ncolor = false\n")
    result = slop(project / "src", "config")  # from a subdirectory: the git top level's file is found
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert str(user) in out.splitlines()[0] and str(proj) in out.splitlines()[0]
    assert line_of(out, "context.window").endswith(f"# project {proj}:3")  # project wins
    assert "= 3" in line_of(out, "context.window")
    assert line_of(out, "context.mode").endswith(f"# user {user}:5")  # user fills what the project leaves
    assert line_of(out, "model").endswith(f"# user {user}:1")
    assert line_of(out, "tools.shell_timeout").startswith("tools.shell_timeout = 30")
    assert line_of(out, "ui.color").startswith("ui.color = false")
    assert line_of(out, "tools.step_limit").endswith("# default")


def test_flags_and_environment_win_over_both_files(project: Path, isolated_env: Path) -> None:
    write(isolated_env / "config.toml", 'model = "from-user"\nbase_url = "http://user.example/v1"\n')
    write(project / ".slop" / "config.toml", 'model = "from-project"\n[tools]\nstep_limit = 7\n')
    result = slop(
        project, "config", "--model", "from-flag", "--step-limit", "9", OPENAI_BASE_URL="http://env.example/v1"
    )
    assert result.returncode == 0, result.stderr
    assert line_of(result.stdout, "model").startswith('model = "from-flag"')
    assert line_of(result.stdout, "model").endswith("# flag --model")
    assert line_of(result.stdout, "base_url").endswith("# env OPENAI_BASE_URL")
    assert line_of(result.stdout, "tools.step_limit").endswith("# flag --step-limit")


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ('model = "x"\n\n[context]\nwindow = "five"\n', 4, "context.window must be an integer, got the string 'five'"),
        (
            '[context]\nmode = "window"\nwindwo = 3\n',
            3,
            "unknown key 'context.windwo'; known here: budget, layout, mode, window",
        ),
        ('model = "x"\ncolour = true\n', 2, "unknown key or table 'colour'"),
        ('[approvals]\nexecute_bash = "never"\n', 2, "must be one of 'ask', 'allow', 'deny'"),
        (
            '[providers.local]\nbase_url = "http://localhost:8080/v1"\nwire = "grpc"\n',
            3,
            "providers.local.wire must be one of",
        ),
        ("[tools]\nshell_timeout = 0\n", 2, "tools.shell_timeout must be at least 1"),
        ("[context]\nwindow = \n", 2, "not valid TOML"),
        ('[prices."gpt-4.1"]\ninput = "cheap"\n', 2, "prices.gpt-4.1.input must be a number"),
        ("[mcp.servers.files]\nread_only = true\n", 2, "needs either command = [...] (stdio) or url"),
        ('[ui]\nverbosity = "debug"\n', 2, "ui.verbosity must be one of"),
    ],
)
def test_a_bad_file_is_one_line_naming_file_and_line(project: Path, text: str, line: int, says: str) -> None:
    path = write(project / ".slop" / "config.toml", text)
    result = slop(project, "--prompt", "/help")
    assert result.returncode == 1
    assert result.stdout == ""
    message = result.stderr.strip()
    assert "\n" not in message, message
    assert message.startswith(f"slop: {path} line {line}: "), message
    assert says in message


def test_verbosity_is_the_verbose_vocabulary_and_debug_its_own_key(project: Path) -> None:
    write(project / ".slop" / "config.toml", '[ui]\nverbosity = "quiet"\ndebug = true\n')
    result = slop(project, "config")
    assert result.returncode == 0, result.stderr
    assert line_of(result.stdout, "ui.verbosity").startswith('ui.verbosity = "quiet"')
    assert line_of(result.stdout, "ui.debug").startswith("ui.debug = true")
    verbose = slop(project, "--prompt", "/verbose")
    assert verbose.returncode == 0, verbose.stderr
    assert "tool output: quiet" in verbose.stdout
    overridden = slop(project, "--prompt", "/verbose", SLOP_VERBOSE="full")  # the environment wins over files
    assert "tool output: full" in overridden.stdout


def test_a_bad_user_file_names_the_user_file(project: Path, isolated_env: Path) -> None:
    path = write(isolated_env / "config.toml", "[ui]\nverbosity = 3\n")
    with pytest.raises(ConfigError, match=rf"^{path} line 2: ui.verbosity must be a string, got the number 3"):
        load_config(project)


def test_paths_are_relative_to_the_project_and_tables_of_names_are_replaced_whole(
    project: Path, isolated_env: Path
) -> None:
    write(
        isolated_env / "config.toml",
        '[providers.local]\nbase_url = "http://user:1/v1"\napi_key_env = "USER_KEY"\nmodel = "u"\n'
        '[models]\nfast = "gemini:gemini-2.5-flash"\n',
    )
    write(
        project / ".slop" / "config.toml",
        '[tools]\nallow_paths = ["../shared", "~/notes"]\n[providers.local]\nbase_url = "http://proj:2/v1"\n'
        '[models]\nsmall = "local:qwen"\n',
    )
    config = load_config(project)
    assert config.get("tools.allow_paths") == [str(project / "../shared"), str(Path.home() / "notes")]
    local = config.profiles()["local"]
    assert (local.base_url, local.api_key_env, local.model, local.wire) == ("http://proj:2/v1", "", "", "openai")
    assert config.aliases() == {"fast": "gemini:gemini-2.5-flash", "small": "local:qwen"}  # aliases merge per name


def test_mcp_servers_are_handed_over_validated(project: Path) -> None:
    write(
        project / ".slop" / "config.toml",
        '[mcp.servers.files]\ncommand = ["python", "-m", "files_server"]\nread_only = true\n'
        '[mcp.servers.files.env]\nROOT = "/srv"\n\n[mcp.servers.web]\nurl = "http://127.0.0.1:9/mcp"\n'
        'read_only_tools = ["fetch"]\n',
    )
    servers = load_config(project).mcp_servers()
    files, web = servers["files"], servers["web"]
    assert files.command == ("python", "-m", "files_server") and files.read_only and dict(files.env) == {"ROOT": "/srv"}
    assert web.url == "http://127.0.0.1:9/mcp" and web.read_only_tools == ("fetch",) and not web.read_only
    assert files.source.endswith(".slop/config.toml line 2")


def test_xdg_config_is_read_when_slop_home_is_not_set(project: Path, tmp_path: Path) -> None:
    xdg = write(tmp_path / "xdg" / "slop" / "config.toml", "[context]\nbudget = 20000\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    config = load_config(project, env)
    assert config.get("context.budget") == 20000 and config.files == (str(xdg),)


def test_no_files_is_fine_and_prints_defaults(project: Path) -> None:
    result = slop(project, "config")
    assert result.returncode == 0, result.stderr
    assert "files read (lowest precedence first): none found" in result.stdout
    assert line_of(result.stdout, "context.window").startswith("context.window = 5")


def test_every_key_is_documented() -> None:
    from slop.config.loader import ALL_KEYS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    assert [k.pattern for k in ALL_KEYS if f"`{k.pattern}`" not in doc] == []


def test_layout_of_the_config_file_is_the_default_a_session_can_change(project: Path) -> None:
    write(project / ".slop" / "config.toml", '[context]\nlayout = "cache"\n')
    shown = slop(project, "--prompt", "/context layout")
    assert shown.returncode == 0, shown.stderr
    assert "context layout: cache" in shown.stdout
    chosen = slop(project, "--prompt", "/context layout seed")
    assert chosen.returncode == 0, chosen.stderr
    again = slop(project, "--prompt", "/context layout")
    assert "context layout: seed" in again.stdout  # the session's own choice wins over the file


def test_prices_of_the_config_file_under_slop_prices(project: Path, isolated_env: Path) -> None:
    from slop.settings import env_settings, merged_settings

    write(isolated_env / "config.toml", '[prices."my-model"]\ninput = 3.0\noutput = 12.0\n')
    write(
        project / ".slop" / "config.toml",
        '[prices."fake-gpt"]\ninput = 2.0\ncached_input = 0.5\noutput = 8.0\n',
    )
    config = load_config(project)
    settings = merged_settings(config, env_settings({"SLOP_PRICES": "my-model=1/4"}), {})
    prices = dict(settings.prices)
    assert prices["fake-gpt"] == (2.0, 0.5, 8.0)  # from the project file
    assert prices["my-model"] == (1.0, 4.0)  # SLOP_PRICES over the user file, model by model
    shown = slop(project, "config")
    assert line_of(shown.stdout, "prices.fake-gpt.cached_input").startswith("prices.fake-gpt.cached_input = 0.5")
