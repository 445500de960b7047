"""/session export through the engine against the fake server: a real tool turn, then the
file parsed back (jsonl), hostile text escaped (HTML), markdown readable, bad input refused."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from tests.e2e.conftest import AppFactory
from tests.e2e.wires import both_wires  # noqa: F401  (the `wire` fixture, both wires)
from tests.fakellm import FakeLLM

HOSTILE = "<script>alert('x')</script> & <img src=x onerror=alert(1)> \"quotes\" ```"
STATE = "\n\n### STATE\nGoal: g\nContext: -\nResolved: -\nTechnical Anchors: -"


def tool_turn(make_app: AppFactory, fake_llm: FakeLLM) -> tuple[object, object]:
    app, rec = make_app()
    fake_llm.enqueue_tool_calls([("read_file", {"path": "hello.py"})])
    fake_llm.enqueue_text("It prints hello. " + HOSTILE + STATE)
    assert app.engine.handle("what does hello.py do? " + HOSTILE).ok
    return app, rec


def test_jsonl_parses_back_to_every_row_with_calls_and_results(
    make_app: AppFactory, fake_llm: FakeLLM, project: Path
) -> None:
    app, rec = tool_turn(make_app, fake_llm)
    assert app.engine.handle("/session export jsonl out/turn.jsonl").ok is False  # no such folder: one line
    assert "cannot write" in rec.kinds("error")[-1]
    assert app.engine.handle("/session export jsonl turn.jsonl").ok
    rows = [json.loads(line) for line in (project / "turn.jsonl").read_text().splitlines()]
    assert [r["role"] for r in rows] == ["user", "assistant", "tool", "assistant"]
    assert rows[0]["content"] == "what does hello.py do? " + HOSTILE
    [call] = rows[1]["tool_calls"]
    assert call["name"] == "read_file" and json.loads(call["arguments"]) == {"path": "hello.py"}
    assert rows[2]["tool_call_id"] == call["id"] and "print('hello')" in rows[2]["content"]
    assert rows[3]["content"].startswith("It prints hello.")
    assert {r["session"] for r in rows} == {"default"}
    assert "exported 4 messages" in rec.kinds("success")[-1]


class Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_is_self_contained_and_escapes_hostile_text(
    make_app: AppFactory, fake_llm: FakeLLM, project: Path
) -> None:
    app, _rec = tool_turn(make_app, fake_llm)
    assert app.engine.handle("/session export html").ok
    page = (project / "slop-default.html").read_text()
    parsed = Collect()
    parsed.feed(page)
    assert "script" not in parsed.tags and "img" not in parsed.tags  # the hostile markup stayed text
    assert HOSTILE in "".join(parsed.text)  # and reads back exactly
    assert "http" not in page.replace('http-equiv="Content-Security-Policy"', "")  # nothing loaded from elsewhere
    assert "read_file" in page


def test_markdown_is_the_default_and_overwriting_asks(make_app: AppFactory, fake_llm: FakeLLM, project: Path) -> None:
    app, rec = tool_turn(make_app, fake_llm)
    assert app.engine.handle("/session export").ok
    text = (project / "slop-default.md").read_text()
    assert text.startswith("# slop session `default`")
    assert "**Tool call** `read_file`" in text and '"path": "hello.py"' in text
    assert "```\nFile: hello.py" in text and "print('hello')" in text  # the tool result, fenced
    rec.confirms = [False]  # type: ignore[attr-defined]
    (project / "slop-default.md").write_text("mine")
    assert app.engine.handle("/session export md").ok
    assert (project / "slop-default.md").read_text() == "mine"


def test_bad_format_and_empty_session_are_one_line_errors(make_app: AppFactory) -> None:
    app, rec = make_app()
    assert not app.engine.handle("/session export notes.txt").ok
    assert "which format for 'notes.txt'" in rec.kinds("error")[-1]
    assert not app.engine.handle("/session export").ok
    assert rec.kinds("error")[-1] == "session 'default' has no messages to export"
