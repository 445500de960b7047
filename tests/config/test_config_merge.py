"""Where a setting comes from: defaults < user file < project file < environment < flags.

Settings are built the way `slop` builds them at start-up (`slop.cli.settings_from` on
parsed flags, in the project's folder, with the test's environment), so each case is
what a user running `slop` there would get, and what `slop config` would name."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from slop.cli import parser, settings_from
from slop.config import load_config
from slop.errors import ConfigError
from slop.settings import Settings, env_settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def start(*flags: str) -> Settings:
    """The settings `slop FLAGS` would start with in the current folder."""
    return settings_from(parser().parse_args(list(flags)))


LAYERS = ("user", "project", "env", "flag")


@pytest.mark.parametrize(
    "present",
    [(), ("user",), ("project",), ("user", "project"), ("user", "project", "env"), ("project", "flag"), LAYERS],
    ids=lambda p: "+".join(p) or "defaults",
)
def test_each_layer_wins_over_the_ones_below_it(
    present: tuple[str, ...], project: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = {"user": 11, "project": 22, "env": 33, "flag": 44}
    user = write(isolated_env / "config.toml", f"[tools]\nstep_limit = {value['user']}\n")
    proj = write(project / ".slop" / "config.toml", f"# proj\n[tools]\nstep_limit = {value['project']}\n")
    if "user" not in present:
        user.unlink()
    if "project" not in present:
        proj.unlink()
    if "env" in present:
        monkeypatch.setenv("SLOP_STEP_LIMIT", str(value["env"]))
    settings = start(*(("--step-limit", str(value["flag"])) if "flag" in present else ()))
    top = present[-1] if present else None
    expected_source = {
        None: None,
        "user": f"user {user}:2",
        "project": f"project {proj}:3",
        "env": "env SLOP_STEP_LIMIT",
        "flag": "flag --step-limit",
    }[top]
    assert settings.step_limit == (value[top] if top else 50)
    assert settings.sources.get("step_limit") == expected_source


def test_keys_merge_one_by_one_across_the_files(project: Path, isolated_env: Path) -> None:
    write(isolated_env / "config.toml", '[tools]\nstep_limit = 9\nshell_timeout = 45\n[ui]\neditor = "vim"\n')
    write(project / ".slop" / "config.toml", "[tools]\nstep_limit = 3\n")
    settings = start()
    assert (settings.step_limit, settings.shell_timeout, settings.editor) == (3, 45, "vim")


def test_an_empty_environment_variable_does_not_hide_a_configured_value(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project / ".slop" / "config.toml", 'base_url = "http://files.example/v1"\nmodel = "from-file"\n')
    monkeypatch.setenv("OPENAI_BASE_URL", "")
    monkeypatch.setenv("SLOP_MODEL", "")
    settings = start()
    assert (settings.openai_base_url, settings.model) == ("http://files.example/v1", "from-file")


def test_read_only_is_the_stricter_of_two_flags_and_both_beat_the_file(project: Path) -> None:
    write(project / ".slop" / "config.toml", '[approvals]\ndefault = "yes"\n')
    assert start().approval == "yes"
    assert start("--read-only").approval == "read-only"
    assert start("--yes", "--read-only").approval == "read-only"
    assert start("--read-only").sources["approval"] == "flag --yes/--read-only"


def test_ui_color_false_means_plain_output_and_no_color_env_also_does(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project / ".slop" / "config.toml", "[ui]\ncolor = true\n")
    assert start().no_color is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert start().no_color is True  # the environment over the file
    monkeypatch.delenv("NO_COLOR")
    write(project / ".slop" / "config.toml", "[ui]\ncolor = false\n")
    assert start().no_color is True


def test_per_tool_approvals_merge_tool_by_tool_and_leave_the_default_out(project: Path, isolated_env: Path) -> None:
    write(isolated_env / "config.toml", '[approvals]\nexecute_bash = "deny"\napply_patch = "ask"\n')
    write(project / ".slop" / "config.toml", '[approvals]\ndefault = "read-only"\napply_patch = "allow"\n')
    settings = start()
    assert settings.config.tool_approvals() == {"execute_bash": "deny", "apply_patch": "allow"}
    assert settings.approval == "read-only"


def test_the_xdg_config_file_wins_over_the_data_folder_one(project: Path, tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg"), "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    data = write(tmp_path / "data" / "slop" / "config.toml", "[context]\nwindow = 2\nbudget = 900\n")
    xdg = write(tmp_path / "cfg" / "slop" / "config.toml", "[context]\nwindow = 4\n")
    config = load_config(project, env)
    assert config.files == (str(data), str(xdg))
    assert (config.get("context.window"), config.get("context.budget")) == (4, 900)
    assert config.source("context.window") == f"user {xdg}:2"


def test_slop_home_replaces_the_xdg_files(project: Path, tmp_path: Path) -> None:
    write(tmp_path / "cfg" / "slop" / "config.toml", "[context]\nwindow = 4\n")
    home = write(tmp_path / "home" / "config.toml", "[context]\nbudget = 700\n")
    env = {"SLOP_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    config = load_config(project, env)
    assert config.files == (str(home),)
    assert config.get("context.window") is None and config.get("context.budget") == 700


def test_relative_paths_follow_the_file_that_wrote_them(project: Path, isolated_env: Path) -> None:
    write(isolated_env / "config.toml", 'db = "ledgers/main.db"\n[tools]\nallow_paths = ["notes"]\n')
    settings = start()
    assert settings.db_path == str(isolated_env / "ledgers" / "main.db")  # a user file: its own folder
    assert settings.allow_paths == (str(isolated_env / "notes"),)
    write(project / ".slop" / "config.toml", 'db = "var/slop.db"\n[tools]\nallow_paths = ["/abs", "../lib"]\n')
    settings = start()
    assert settings.db_path == str(project / "var" / "slop.db")  # the project file: the project root
    assert settings.allow_paths == ("/abs", str(project / "../lib"))
    assert start("--db", "cli.db").db_path == "cli.db"  # a flag is the user's own text


def test_a_profile_is_taken_whole_from_the_highest_file(project: Path, isolated_env: Path) -> None:
    write(
        isolated_env / "config.toml",
        '[providers.lab]\nbase_url = "http://user/v1"\nwire = "gemini"\napi_key_env = "LAB_KEY"\n'
        '[providers.home]\nbase_url = "http://home/v1"\nmodel = "m"\n',
    )
    write(project / ".slop" / "config.toml", '[providers.lab]\nbase_url = "http://proj/v1"\n')
    profiles = start().config.profiles()
    assert profiles["lab"].base_url == "http://proj/v1"
    assert (profiles["lab"].wire, profiles["lab"].api_key_env) == ("openai", "")  # nothing inherited
    assert (profiles["home"].base_url, profiles["home"].model) == ("http://home/v1", "m")  # untouched


def test_prices_are_taken_whole_per_model(project: Path, isolated_env: Path) -> None:
    write(
        isolated_env / "config.toml",
        '[prices."gpt-4.1"]\ninput = 2.0\ncached_input = 0.5\noutput = 8.0\n[prices.other]\ninput = 1\noutput = 2\n',
    )
    write(project / ".slop" / "config.toml", '[prices."gpt-4.1"]\ninput = 3.0\noutput = 9.0\n')
    prices = dict(start().prices)
    assert prices["gpt-4.1"] == (3.0, 9.0)  # no cached price: the project's table has none
    assert prices["other"] == (1, 2)


def test_slop_prices_adds_to_the_files_model_by_model(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(
        project / ".slop" / "config.toml", "[prices.a]\ninput = 1.0\noutput = 2.0\n[prices.b]\ninput = 5\noutput = 6\n"
    )
    monkeypatch.setenv("SLOP_PRICES", "b=0.1/0.05/0.2, c=7/8")
    settings = start()
    assert dict(settings.prices) == {"a": (1.0, 2.0), "b": (0.1, 0.05, 0.2), "c": (7.0, 8.0)}
    assert settings.sources["prices"] == "env SLOP_PRICES"


def test_an_mcp_server_is_taken_whole_and_its_cwd_follows_the_file(project: Path, isolated_env: Path) -> None:
    write(
        isolated_env / "config.toml",
        '[mcp.servers.docs]\ncommand = ["docs-server"]\ncwd = "srv"\n[mcp.servers.docs.env]\nTOKEN_FILE = "t"\n'
        '[mcp.servers.web]\nurl = "http://127.0.0.1:1/mcp"\nenabled = false\n'
        '[mcp.servers.web.headers]\nAuthorization = "Bearer x"\n',
    )
    write(project / ".slop" / "config.toml", '[mcp.servers.docs]\ncommand = ["docs-server", "--ro"]\ncwd = "tools"\n')
    servers = start().config.mcp_servers()
    docs, web = servers["docs"], servers["web"]
    assert docs.command == ("docs-server", "--ro") and dict(docs.env) == {}  # the user's env is not inherited
    assert docs.cwd == str(project / "tools")
    assert docs.source == f"{project / '.slop' / 'config.toml'} line 2"  # the table's first key
    assert web.enabled is False and dict(web.headers) == {"Authorization": "Bearer x"}
    assert web.command == () and web.url == "http://127.0.0.1:1/mcp"


def test_an_mcp_server_with_both_command_and_url_is_refused_at_its_table(project: Path) -> None:
    path = write(
        project / ".slop" / "config.toml",
        '[context]\nwindow = 2\n\n[mcp.servers.both]\ncommand = ["x"]\nurl = "http://127.0.0.1:1/mcp"\n',
    )
    with pytest.raises(ConfigError) as caught:
        start()
    assert str(caught.value) == (
        f'{path} line 5: [mcp.servers.both] needs either command = [...] (stdio) or url = "..." (HTTP)'
    )


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("SLOP_VERBOSE", "loud", "SLOP_VERBOSE must be quiet, normal or full, got 'loud'"),
        ("SLOP_STEP_LIMIT", "many", "SLOP_STEP_LIMIT must be a number, got 'many'"),
        ("SLOP_SHELL_TIMEOUT", "2m", "SLOP_SHELL_TIMEOUT must be a number, got '2m'"),
        ("SLOP_TOOL_OUTPUT_CAP", "4096", "SLOP_TOOL_OUTPUT_CAP must be at least 1048576 bytes (1 MiB), got 4096"),
        ("SLOP_PRICES", "gpt=1", "SLOP_PRICES: 'gpt=1' is not model=INPUT/CACHED/OUTPUT (dollars per 1M tokens)"),
        ("SLOP_PRICES", "=1/2", "SLOP_PRICES: '=1/2' is not model=INPUT/CACHED/OUTPUT"),
        ("SLOP_PRICES", "gpt=1/2/3/4", "is not model=INPUT/CACHED/OUTPUT"),
        ("SLOP_PRICES", "gpt=one/2", "SLOP_PRICES: the prices of 'gpt' must be numbers (dollars per 1M tokens)"),
        ("SLOP_PRICES", "gpt=-1/2", "SLOP_PRICES: the prices of 'gpt' cannot be negative"),
    ],
)
def test_a_bad_environment_value_is_one_message_naming_the_variable(name: str, value: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        env_settings({name: value})
    assert says in str(caught.value)


def test_environment_values_are_read_with_their_types() -> None:
    values = env_settings(
        {
            "SLOP_VERBOSE": " Quiet ",
            "SLOP_STEP_LIMIT": "12",
            "SLOP_SHELL_TIMEOUT": "7.5",
            "SLOP_PASTE_WARN_SHARE": "0",
            "GOOGLE_API_KEY": "g-key",
        }
    )
    assert values["verbosity"] == "quiet"
    assert (values["step_limit"], values["shell_timeout"], values["paste_warn_share"]) == (12, 7.5, 0.0)
    assert values["gemini_api_key"] == "g-key"  # GOOGLE_API_KEY when GEMINI_API_KEY is not set
    assert env_settings({"GEMINI_API_KEY": "a", "GOOGLE_API_KEY": "b"})["gemini_api_key"] == "a"


# ---- `slop config` -------------------------------------------------------------------


def run_config(capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    from slop.cli import main

    assert main(["config", *flags]) == 0
    return capsys.readouterr().out


def test_slop_config_lines_up_the_sources_in_one_column(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project / ".slop" / "config.toml", '[providers.local]\nbase_url = "http://localhost:8080/v1"\n')
    body = run_config(capsys).splitlines()[1:]
    columns = {line.index("  # ") for line in body}
    assert len(columns) == 1, body  # every comment starts in the same column
    longest = max(len(line.split("  # ")[0].rstrip()) for line in body)
    assert columns == {longest}


def test_slop_config_quotes_names_toml_needs_quoted_and_leaves_unset_keys_out(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        project / ".slop" / "config.toml",
        '[prices."gpt-4.1"]\ninput = 2.0\noutput = 8.0\n[models]\nfast_one = "local:qwen"\n'
        '[tools]\nallow_paths = ["/srv/a", "/srv/b"]\n',
    )
    out = run_config(capsys)
    assert 'prices."gpt-4.1".input = 2.0' in out
    assert 'models.fast_one = "local:qwen"' in out
    assert 'tools.allow_paths = ["/srv/a", "/srv/b"]' in out
    assert "\nprovider = " not in out and "\nui.editor = " not in out  # nothing set them, no default to show


def test_slop_config_prints_toml_that_reads_back_as_the_same_configuration(
    project: Path, isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(isolated_env / "config.toml", '[ui]\ncolor = false\neditor = "code --wait"\n[context]\nwindow = 7\n')
    write(
        project / ".slop" / "config.toml",
        '[prices."gpt-4.1"]\ninput = 2.0\noutput = 8.0\n[mcp.servers.files]\ncommand = ["srv", "-q"]\n'
        '[approvals]\nexecute_bash = "deny"\n',
    )
    printed = tomllib.loads(run_config(capsys, "--step-limit", "12"))
    assert printed["context"]["window"] == 7 and printed["ui"]["color"] is False
    assert printed["ui"]["editor"] == "code --wait" and printed["tools"]["step_limit"] == 12
    assert printed["prices"]["gpt-4.1"] == {"input": 2.0, "output": 8.0}
    assert printed["mcp"]["servers"]["files"]["command"] == ["srv", "-q"]
    assert printed["approvals"]["execute_bash"] == "deny"
    # pasted back as a project file, it loads without a complaint and gives the same values
    write(project / ".slop" / "config.toml", run_config(capsys, "--step-limit", "12"))
    (isolated_env / "config.toml").unlink()
    again = start()
    assert (again.step_limit, again.no_color, again.editor) == (12, True, "code --wait")
    assert again.config.get("context.window") == 7


def test_names_with_dots_or_spaces_are_quoted_so_the_output_reads_back(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        project / ".slop" / "config.toml",
        '[mcp.servers."files.v2"]\ncommand = ["srv"]\n[mcp.servers."files.v2".env]\n"MY VAR" = "x"\n'
        '[models]\n"gpt 4" = "openai:gpt-4"\n[approvals]\n"weird.tool" = "deny"\n',
    )
    out = run_config(capsys)
    assert 'mcp.servers."files.v2".env."MY VAR" = "x"' in out
    assert 'approvals."weird.tool" = "deny"' in out
    printed = tomllib.loads(out)
    assert printed["mcp"]["servers"]["files.v2"] == {"command": ["srv"], "env": {"MY VAR": "x"}}
    assert printed["models"] == {"gpt 4": "openai:gpt-4"}
    assert printed["approvals"]["weird.tool"] == "deny"
