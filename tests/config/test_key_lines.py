"""The line a config error names: found for keys however TOML lets them be written
(tables, dotted and quoted keys, inline tables, multi-line strings, comments)."""

from __future__ import annotations

import pytest

from slop.config.locate import key_line

FILE = """\
# slop settings
model = "gpt-4.1"   # [not a table]

[context]
window = 3
"mode" = "ranked"

[prices."gpt-4.1"]
input = 2.0
'output' = 8.0

[providers . local]
base_url = "http://localhost:8080/v1"
notes = '''
[tools]
step_limit = 1
'''
model = "qwen"

[ui]
editor = \"\"\"code
--wait\"\"\"
color = false
tools.step_limit = 5
[mcp.servers.files]
env = { ROOT = "/srv", MODE = "ro" }
"""


@pytest.mark.parametrize(
    ("path", "line"),
    [
        (("model",), 2),
        (("context",), 4),
        (("context", "window"), 5),
        (("context", "mode"), 6),  # a quoted key
        (("prices", "gpt-4.1", "input"), 9),  # a quoted table name with a dot inside
        (("prices", "gpt-4.1", "output"), 10),  # a literal-string key
        (("providers", "local", "base_url"), 13),  # blanks around the dot of a header
        (("providers", "local", "model"), 18),  # after a multi-line literal string holding a header
        (("ui", "color"), 23),  # after a multi-line basic string
        (("ui", "tools", "step_limit"), 24),  # a dotted key inside a table
        (("mcp", "servers", "files", "env", "ROOT"), 26),  # inside an inline table: its key's line
        (("mcp", "servers", "files"), 25),
    ],
)
def test_the_line_of_a_key(path: tuple[str, ...], line: int) -> None:
    assert key_line(FILE, path) == line


def test_a_key_that_is_not_there_has_no_line_but_its_table_does() -> None:
    assert key_line(FILE, ("context", "budget")) == 4  # the table it would go in
    assert key_line(FILE, ("nothing", "here")) is None
    assert key_line("", ("model",)) is None


def test_a_key_in_a_string_is_not_taken_for_the_key() -> None:
    text = 'model = "x"\nnote = """\nmodel = "fake"\n"""\n'
    assert key_line(text, ("model",)) == 1
    assert key_line(text, ("note",)) == 2
