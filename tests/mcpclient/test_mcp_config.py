"""MCP server configuration, wire names and schemas: pure functions, no processes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from slop.errors import ConfigError
from slop.mcptools.config import (
    McpServerConfig,
    load_mcp_file,
    secret_values,
    servers_from_mapping,
    servers_from_records,
)
from slop.mcptools.naming import wire_names
from slop.mcptools.tools import normalize_schema
from slop.tools.validate import parse_arguments

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")


def test_toml_tables_become_typed_configs(tmp_path: Path) -> None:
    file = tmp_path / "mcp.toml"
    file.write_text(
        "[mcp.servers.github]\n"
        'url = "https://api.example.com/mcp"\n'
        'headers = { Authorization = "Bearer xyz" }\n'
        "read_only = true\n"
        "[mcp.servers.notes]\n"
        'command = ["python", "server.py"]\n'
        'env = { NOTES_FILE = "/tmp/n.txt" }\n'
        'cwd = "/srv"\n'
        'read_only_tools = ["list_notes"]\n'
        "enabled = false\n"
        "tool_timeout = 30\n"
    )
    github, notes = load_mcp_file(file)
    assert github == McpServerConfig(
        name="github",
        url="https://api.example.com/mcp",
        headers={"Authorization": "Bearer xyz"},
        read_only=True,
        source=str(file),
    )
    assert "Bearer" not in repr(github)  # headers may carry tokens
    assert (notes.command, notes.env, notes.cwd, notes.transport) == (
        ("python", "server.py"),
        {"NOTES_FILE": "/tmp/n.txt"},
        "/srv",
        "stdio",
    )
    assert (notes.read_only_tools, notes.enabled, notes.tool_timeout) == (("list_notes",), False, 30.0)


def test_the_json_mcpservers_format_of_other_clients_is_read(tmp_path: Path) -> None:
    file = tmp_path / "claude.json"
    file.write_text('{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-fs", "/tmp"], "type": "stdio"}}}')
    (fs,) = load_mcp_file(file)
    assert fs.command == ("npx", "-y", "server-fs", "/tmp") and fs.target == "npx -y server-fs /tmp"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"bad.name": {"command": ["x"]}}, "a server name is a letter then letters, digits"),
        ({"a__b": {"command": ["x"]}}, "a server name is a letter then letters, digits"),
        ({"s": {"command": ["x"], "url": "http://h/mcp"}}, "needs either command = ["),
        ({"s": {}}, "needs either command = ["),
        ({"s": {"command": "x", "cmd": 1}}, "unknown key 'cmd'"),
        ({"s": {"command": [1, 2]}}, "command must be a non-empty list of strings"),
        ({"s": {"url": "ftp://h"}}, "url must start with http:// or https://"),
        ({"s": {"url": "http://h/sse", "type": "sse"}}, "SSE servers are not supported"),
        ({"s": {"command": ["x"], "env": {"A": 1}}}, "env must be a table of strings"),
        ({"s": {"command": ["x"], "read_only": "yes"}}, "read_only must be true or false"),
        ({"s": {"command": ["x"], "tool_timeout": 0}}, "tool_timeout must be a positive number of seconds"),
    ],
)
def test_a_bad_server_table_is_a_one_line_error_naming_where(table: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigError) as error:
        servers_from_mapping(table, "/home/u/.slop/mcp.toml")
    text = str(error.value)
    assert text.startswith("/home/u/.slop/mcp.toml: [mcp.servers.") and message in text and "\n" not in text


def test_unreadable_or_malformed_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot read the MCP config .*missing\.toml"):
        load_mcp_file(tmp_path / "missing.toml")
    broken = tmp_path / "broken.json"
    broken.write_text('{"mcpServers": {')
    with pytest.raises(ConfigError, match=r"broken.json line 1: not valid JSON"):
        load_mcp_file(broken)
    empty = tmp_path / "empty.toml"
    empty.write_text("[other]\nx = 1\n")
    with pytest.raises(ConfigError, match=r"no MCP servers in it"):
        load_mcp_file(empty)


def test_wire_names_are_valid_for_openai_and_gemini_and_unique() -> None:
    names = wire_names("gh", ["search", "repo.get", "repo_get", "x" * 80, "ünïcode", "list-issues", "x" * 80 + "y"])
    assert names["search"] == "gh__search" and names["list-issues"] == "gh__list-issues"
    assert names["repo.get"].startswith("gh__repo_get")
    assert len(set(names.values())) == len(names)  # "repo.get" and "repo_get" do not collide
    for wire in names.values():
        assert OPENAI_NAME.match(wire) and GEMINI_NAME.match(wire), wire
    assert wire_names("gh", ["repo.get"]) == {"repo.get": names["repo.get"]}  # stable across restarts


def test_schemas_keep_the_servers_rules_and_accept_free_form_maps() -> None:
    schema = normalize_schema(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "searchArguments",
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "filters": {"type": "object"},
                "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
            },
            "required": ["query"],
        }
    )
    assert "$schema" not in schema and "title" not in schema
    args, error = parse_arguments(schema, '{"query": "bug", "filters": {"label": "p1", "state": "open"}, "limit": 5}')
    assert error is None and args == {"query": "bug", "filters": {"label": "p1", "state": "open"}, "limit": 5}
    _, error = parse_arguments(schema, '{"query": "bug", "lmit": 5}')
    assert error == "Error: INVALID_ARGUMENT: unknown field 'lmit' (accepted: query, filters, limit)"
    _, error = parse_arguments(schema, '{"limit": 5}')
    assert error == "Error: INVALID_ARGUMENT: missing required field 'query'"
    assert normalize_schema({}) == {"type": "object", "properties": {}}


def test_header_values_and_secret_env_values_are_redacted_but_paths_are_not() -> None:
    servers = servers_from_mapping(
        {
            "gh": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ghp_abcdefgh12345"}},
            "db": {"command": ["db-mcp"], "env": {"DB_PASSWORD": "hunter2hunter2", "DATA_DIR": "/srv/data/dir"}},
        }
    )
    secrets = secret_values(servers)
    assert "Bearer ghp_abcdefgh12345" in secrets and "ghp_abcdefgh12345" in secrets
    assert "hunter2hunter2" in secrets and "/srv/data/dir" not in secrets


@dataclass(frozen=True)
class LoaderRecord:  # the shape of the config file loader's McpServer
    name: str
    command: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    read_only: bool = False
    read_only_tools: tuple[str, ...] = ()
    enabled: bool = True
    source: str = ""


def test_records_of_the_config_loader_become_checked_configs() -> None:
    records = {
        "notes": LoaderRecord("notes", command=("python", "s.py"), read_only_tools=("list",), source="a.toml line 3"),
        "gh": LoaderRecord("gh", url="https://h/mcp", enabled=False, source="b.toml line 9"),
    }
    gh, notes = servers_from_records(records)
    assert (notes.command, notes.read_only_tools, notes.source) == (("python", "s.py"), ("list",), "a.toml line 3")
    assert (gh.url, gh.enabled, gh.source) == ("https://h/mcp", False, "b.toml line 9")
    with pytest.raises(ConfigError, match=r"\[mcp\.servers\.my\.srv\]: a server name is a letter"):
        servers_from_records({"my.srv": LoaderRecord("my.srv", command=("x",))})
