"""Every key a config file may set: a good value loads, a wrong one stops slop with
one message naming the file, the line and what the key wants.

These read real files with the real loader, the way slop reads them at start-up."""

from __future__ import annotations

from pathlib import Path

import pytest

from slop.config import load_config
from slop.config.loader import ALL_KEYS, load_file
from slop.config.schema import Key
from slop.errors import ConfigError

# A value of the right kind, and one of the wrong kind with how the error names it.
GOOD = {"str": '"x"', "int": "5000000", "float": "2.5", "bool": "true", "list[str]": '["a", "b"]'}
WRONG = {
    "str": ("3", "must be a string, got the number 3"),
    "int": ('"five"', "must be an integer, got the string 'five'"),
    "float": ('"cheap"', "must be a number, got the string 'cheap'"),
    "bool": ('"yes"', "must be true or false, got the string 'yes'"),
    "list[str]": ("[1, 2]", "must be a list of strings, got a list"),
}


def concrete(key: Key) -> tuple[str, ...]:
    """The key's path with each free name (`*`) filled in, as a user would write it."""
    return tuple("name" if part == "*" else part for part in key.pattern.split("."))


def toml_for(path: tuple[str, ...], value: str) -> str:
    """`path = value` under its table header, after two lines of comment, so the key is on line 4."""
    header = f"[{'.'.join(path[:-1])}]\n" if len(path) > 1 else ""
    filler = "# settings for this project\n" + ("\n" if header else "\n\n")
    return f"{filler}{header}{path[-1]} = {value}\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def good_value(key: Key) -> str:
    if key.choices:
        return f'"{key.choices[-1]}"'
    return GOOD[key.kind]


@pytest.mark.parametrize("key", ALL_KEYS, ids=lambda k: k.pattern)
def test_every_key_takes_a_value_of_its_kind(key: Key, tmp_path: Path) -> None:
    path = concrete(key)
    entries = load_file(write(tmp_path / "config.toml", toml_for(path, good_value(key))), "project", tmp_path)
    assert entries is not None and path in entries
    entry = entries[path]
    assert entry.source == f"project {tmp_path / 'config.toml'}:4"
    assert entry.key.pattern == key.pattern


@pytest.mark.parametrize("key", ALL_KEYS, ids=lambda k: k.pattern)
def test_every_key_refuses_the_wrong_kind_naming_file_and_line(key: Key, tmp_path: Path) -> None:
    path = concrete(key)
    value, says = WRONG[key.kind]
    file = write(tmp_path / "config.toml", toml_for(path, value))
    with pytest.raises(ConfigError) as caught:
        load_file(file)
    message = str(caught.value)
    assert message.startswith(f"{file} line 4: {'.'.join(path)} {says}")
    assert message.endswith(f"({key.help})")  # the key's own help says what it is for
    assert "\n" not in message


CHOICE_KEYS = [k for k in ALL_KEYS if k.choices]
MINIMUM_KEYS = [k for k in ALL_KEYS if k.minimum is not None]


@pytest.mark.parametrize("key", CHOICE_KEYS, ids=lambda k: k.pattern)
def test_a_key_with_choices_lists_them_when_refusing(key: Key, tmp_path: Path) -> None:
    path = concrete(key)
    file = write(tmp_path / "config.toml", toml_for(path, '"sometimes"'))
    with pytest.raises(ConfigError) as caught:
        load_file(file)
    listed = ", ".join(repr(c) for c in key.choices)
    assert f"{'.'.join(path)} must be one of {listed}, got 'sometimes'" in str(caught.value)
    for choice in key.choices:  # and takes each of them
        assert load_file(write(tmp_path / "ok.toml", toml_for(path, f'"{choice}"'))) is not None


@pytest.mark.parametrize("key", MINIMUM_KEYS, ids=lambda k: k.pattern)
def test_a_key_with_a_minimum_takes_it_and_refuses_below(key: Key, tmp_path: Path) -> None:
    assert key.minimum is not None
    path = concrete(key)
    lowest = int(key.minimum) if key.kind == "int" else key.minimum
    entries = load_file(write(tmp_path / "ok.toml", toml_for(path, str(lowest))))
    assert entries is not None and entries[path].value == lowest
    below = lowest - 1 if key.kind == "int" else lowest - 0.5
    file = write(tmp_path / "low.toml", toml_for(path, str(below)))
    with pytest.raises(ConfigError) as caught:
        load_file(file)
    # the minimum as the user would type it back (1048576, not 1.04858e+06)
    assert f"line 4: {'.'.join(path)} must be at least {lowest}, got {below}" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[context]\nwindow = true\n", "context.window must be an integer, got a boolean"),
        ("[context]\nwindow = 2.5\n", "context.window must be an integer, got the number 2.5"),
        ("[tools]\nshell_timeout = false\n", "tools.shell_timeout must be a number, got a boolean"),
        ("model = { name = 'x' }\n", "model must be a string, got a table"),
        ('model = ["a", "b"]\n', "model must be a string, got a list"),
        ('[tools]\nallow_paths = "../lib"\n', "tools.allow_paths must be a list of strings, got the string"),
        ('[tools]\nallow_paths = ["../lib", 3]\n', "tools.allow_paths must be a list of strings, got a list"),
        ("[ui]\ncolor = 0\n", "ui.color must be true or false, got the number 0"),
        ("[mcp.servers.x]\ncommand = 'server'\n", "mcp.servers.x.command must be a list of strings"),
        ("[mcp.servers.x.env]\nPORT = 8080\n", "mcp.servers.x.env.PORT must be a string, got the number 8080"),
    ],
)
def test_near_misses_of_a_type_are_refused(text: str, says: str, tmp_path: Path) -> None:
    """TOML's `true` is not 1 and 2.5 is not a count: a value that Python would coerce is still wrong."""
    with pytest.raises(ConfigError, match=says.replace(".", r"\.").replace("[", r"\[")):
        load_file(write(tmp_path / "config.toml", text))


def test_an_integer_is_a_number_for_a_float_key(tmp_path: Path) -> None:
    entries = load_file(write(tmp_path / "config.toml", "[tools]\nshell_timeout = 30\n"))
    assert entries is not None and entries[("tools", "shell_timeout")].value == 30


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("[context]\nsize = 3\n", 2, "unknown key 'context.size'; known here: budget, layout, mode, window"),
        ("[ui]\ntheme = 'dark'\n", 2, "unknown key 'ui.theme'; known here: color, debug, editor, paste_warn_share"),
        ('[prices."gpt-4.1"]\ncache = 0.5\n', 2, "unknown key 'prices.gpt-4.1.cache'; known here: cached_input"),
        ("[providers.local]\nkey = 'K'\n", 2, "unknown key 'providers.local.key'; known here: api_key_env, base_url"),
        ("[mcp.servers.x]\nargs = []\n", 2, "unknown key 'mcp.servers.x.args'; known here: command, cwd, enabled"),
        ("\n\n[editor]\ncommand = 'vim'\n", 4, "unknown key or table 'editor'; known: provider, model, base_url, db"),
        ("window = 3\n", 1, "unknown key or table 'window'"),
    ],
)
def test_an_unknown_key_names_its_line_and_the_keys_known_here(text: str, line: int, says: str, tmp_path: Path) -> None:
    file = write(tmp_path / "config.toml", text)
    with pytest.raises(ConfigError) as caught:
        load_file(file)
    assert str(caught.value).startswith(f"{file} line {line}: {says}")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('# dotted keys at the top level\n\ncontext.window = "x"\n', 3),
        ('[context]\nmode = "window"\n\n# the window\n  window   =   "x"   # indented\n', 5),
        ('context = { mode = "window", window = "x" }\n', 1),
        ('model = """\n[context]\nwindow = 1\n"""\n[context]\nwindow = "x"\n', 6),  # key-looking lines in a string
        ('model = "a"\n[ "context" ]\n"window" = "x"\n', 3),
        ("[tools]\nstep_limit = 3\n[context]\nbudget = 1\nwindow = 'x'\n", 5),
    ],
)
def test_the_line_is_found_however_the_key_is_written(text: str, line: int, tmp_path: Path) -> None:
    file = write(tmp_path / "config.toml", text)
    with pytest.raises(ConfigError, match=rf"^{file} line {line}: context\.window must be an integer"):
        load_file(file)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[context]\nwindow = 3\nwindow = 4\n", 3),  # a key set twice
        ('model = "a\n', 1),  # an unclosed string
        ("[context\nwindow = 3\n", 1),
        ("\n\n\n[ui]\ncolor = yes\n", 5),
    ],
)
def test_bad_toml_names_the_line_and_says_it_is_not_toml(text: str, line: int, tmp_path: Path) -> None:
    file = write(tmp_path / "config.toml", text)
    with pytest.raises(ConfigError) as caught:
        load_file(file)
    message = str(caught.value)
    assert message.startswith(f"{file} line {line}: ") and message.endswith("(not valid TOML)")
    assert "column" not in message  # tomllib's position, said once as the line


def test_a_file_that_is_not_utf8_is_refused_with_what_to_do(tmp_path: Path) -> None:
    file = tmp_path / "config.toml"
    file.write_bytes(b'model = "caf\xe9"\n')
    with pytest.raises(ConfigError, match=rf"^cannot read config file {file}: .*; fix or remove it$"):
        load_file(file)


def test_a_folder_where_the_file_belongs_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.toml").mkdir()
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_file(tmp_path / "config.toml")


def test_an_empty_file_and_empty_tables_set_nothing(tmp_path: Path) -> None:
    assert load_file(write(tmp_path / "empty.toml", "")) == {}
    assert load_file(write(tmp_path / "tables.toml", "[context]\n[ui]\n# nothing yet\n")) == {}
    assert load_file(tmp_path / "missing.toml") is None


def test_the_project_file_with_a_bad_key_stops_loading_even_if_the_user_file_is_fine(
    tmp_path: Path, isolated_env: Path
) -> None:
    write(isolated_env / "config.toml", "[context]\nwindow = 8\n")
    root = tmp_path / "proj"
    bad = write(root / ".slop" / "config.toml", "[context]\nwindow = -1\n")
    with pytest.raises(ConfigError, match=rf"^{bad} line 2: context\.window must be at least 0, got -1"):
        load_config(root)


def test_a_profile_named_like_a_built_in_provider_is_refused_not_ignored(tmp_path: Path) -> None:
    from slop.config.schema import BUILT_IN_PROVIDERS
    from slop.providers.specs import BUILTIN_NAMES

    assert BUILT_IN_PROVIDERS == BUILTIN_NAMES  # the config's list follows the provider table
    for name in BUILTIN_NAMES:
        file = write(tmp_path / f"{name}.toml", f'# proxy\n[providers.{name}]\nbase_url = "http://127.0.0.1:9/v1"\n')
        with pytest.raises(ConfigError) as caught:
            load_file(file)
        assert str(caught.value) == (
            f"{file} line 3: [providers.{name}] would be ignored: {name!r} is a built-in provider; "
            f"give the profile a name of its own, e.g. [providers.{name}-proxy]"
        )
    entries = load_file(write(tmp_path / "ok.toml", '[providers.openai-proxy]\nbase_url = "http://127.0.0.1:9/v1"\n'))
    assert entries is not None and ("providers", "openai-proxy", "base_url") in entries
