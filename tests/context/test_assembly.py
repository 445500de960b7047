"""Pure assembly on in-memory records: layers, isolation, pairs, truncation, budget, markers."""

from __future__ import annotations

import json

import pytest

from slop.context.assemble import AssemblyConfig, Snapshot, assemble
from slop.context.costs import BEGIN_MARKER, CURRENT_MARKER
from slop.context.truncate import HINT, TruncationConfig, sandwich
from slop.providers.google_wire import gemini_native
from slop.providers.openai_wire import openai_native
from slop.records import Memo, Message, Role, SessionInfo, Skill, Status, ToolCall, ToolSpec

SESSION = SessionInfo("s", scratchpad="- [ ] step one")


class Ledger:
    """Builds message records the way the orchestrator stores them."""

    def __init__(self) -> None:
        self.rows: list[Message] = []

    def add(self, role: str, content: str, gid: str, **kw: object) -> Message:
        msg = Message(
            len(self.rows) + 1, "s", role, content, group_id=gid, content_tokens=max(1, len(content) // 4), **kw
        )  # type: ignore[arg-type]
        self.rows.append(msg)
        return msg

    def tool_turn(self, gid: str, outputs: list[str], wire: str = "openai") -> None:
        self.add(Role.USER, f"task {gid}", gid, parsing_strategy=wire)
        calls = [ToolCall(f"c{gid}-{i}", "read_file", json.dumps({"path": f"f{i}"})) for i in range(len(outputs))]
        if wire == "openai":
            native = openai_native("looking", calls)
        else:
            native = gemini_native(
                [{"text": "looking"}]
                + [{"functionCall": {"id": c.id, "name": c.name, "args": json.loads(c.arguments)}} for c in calls]
            )
        self.add(Role.ASSISTANT, native, gid, status=Status.TOOL_CALL, parsing_strategy=wire)
        for call, out in zip(calls, outputs, strict=True):
            self.add(Role.TOOL, out, gid, tool_call_id=call.id, parsing_strategy=wire)


def build(rows: list[Message], wire: str = "openai", **kw: object) -> object:
    return assemble(Snapshot(SESSION, tuple(rows), wire=wire, **kw))  # type: ignore[arg-type]


def test_layers_in_seed_order() -> None:
    prompt = assemble(
        Snapshot(
            SESSION,
            (),
            state="### STATE\nGoal: g",
            memos=(Memo(1, "use WAL", ("sqlite",)),),
            skills=(Skill(1, "planner", "", "Plan first."),),
            tools=(ToolSpec("read_file", "Read a file", {"type": "object"}),),
        )
    )
    names = [layer.name for layer in prompt.layers]
    # the tools go out once, as function definitions: no text layer repeats them
    assert names == ["system prompt", "skills", "history guidelines", "state", "scratchpad", "memos"]
    text = prompt.system_text
    assert text.index("### Skill: planner") < text.index("## Global State")
    assert "query_db" in text and "- [sqlite] use WAL" in text and "## Available Tools" not in text
    assert all(layer.tokens > 0 for layer in prompt.layers)
    # ... and their definitions are counted in the total
    assert prompt.tool_tokens > 0
    assert prompt.total_tokens == sum(layer.tokens for layer in prompt.layers) + prompt.tool_tokens


def test_markers_on_first_and_current_request() -> None:
    ledger = Ledger()
    ledger.add(Role.USER, "hi", "1")
    ledger.add(Role.ASSISTANT, "hello", "1")
    ledger.add(Role.USER, "next", "2")
    history = build(ledger.rows).history  # type: ignore[attr-defined]
    assert history[0].content == BEGIN_MARKER + "hi"
    assert history[-1].content == CURRENT_MARKER + "next"


def test_current_request_marker_stays_on_every_call_of_the_turn() -> None:
    ledger = Ledger()
    ledger.add(Role.USER, "hi", "1")
    ledger.add(Role.ASSISTANT, "hello", "1")
    ledger.tool_turn("2", ["out"])  # the second call of turn 2: its request is no longer last
    history = build(ledger.rows).history  # type: ignore[attr-defined]
    request = next(e for e in history if e.message.group_id == "2" and e.message.role == Role.USER)
    assert request.content == CURRENT_MARKER + "task 2"
    assert sum(CURRENT_MARKER in e.content for e in history) == 1


def test_three_tiers_and_hint() -> None:
    ledger = Ledger()
    ledger.tool_turn("1", ["A" * 3000])
    ledger.tool_turn("2", [f"{i}" * 6000 for i in range(7)])
    prompt = build(ledger.rows)
    tool_entries = [e for e in prompt.history if e.message.role == Role.TOOL]  # type: ignore[attr-defined]
    old, active = tool_entries[0], tool_entries[1:]
    assert len(old.content) <= 300 + 40 and old.truncated
    assert f'query_db(sql="SELECT substr(content, 28, 4000) FROM messages WHERE id={old.message.id}")' in old.content
    assert "characters 28-2883 of 3000 not shown" in old.content
    assert [len(e.content) for e in active[:2]] == [1000, 1000]  # degraded: older results of the active group
    assert all(len(e.content) == 5000 for e in active[2:])  # the 5 most recent
    assert old.tokens < old.message.content_tokens


def test_small_results_untouched_and_configurable_limits() -> None:
    ledger = Ledger()
    ledger.tool_turn("1", ["short", "x" * 500])
    ledger.add(Role.USER, "next", "2")
    config = AssemblyConfig(truncation=TruncationConfig(inactive_limit=200))
    entries = [
        e for e in assemble(Snapshot(SESSION, tuple(ledger.rows)), config).history if e.message.role == Role.TOOL
    ]
    assert entries[0].content == "short" and not entries[0].truncated
    assert len(entries[1].content) == 200


def test_user_assistant_and_arguments_never_truncated() -> None:
    ledger = Ledger()
    big = "y" * 20000
    ledger.add(Role.USER, big, "1")
    ledger.add(Role.ASSISTANT, big, "1")
    ledger.add(Role.USER, "next", "2")
    contents = [e.content for e in build(ledger.rows).history]  # type: ignore[attr-defined]
    assert contents[0].endswith(big) and contents[1] == big


def test_sandwich_keeps_head_and_tail_and_never_splits_characters() -> None:
    text = "START " + "日本語テキスト" * 500 + " END"
    cut = sandwich(text, 1000, 42)
    assert cut.startswith("START") and cut.endswith(" END") and len(cut) <= 1000
    cut.encode("utf-8")  # valid text: no half characters
    # the hint names the first character not shown and pages from it; head + pages + tail = the row
    head, rest = cut.split("\n\n... [TRUNCATED: characters ", 1)
    start, rest = rest.split("-", 1)
    end = int(rest.split(" ", 1)[0])
    assert int(start) == len(head) + 1 and f"of {len(text)} not shown" in cut
    assert f"substr(content, {start}, 4000) FROM messages WHERE id=42" in cut
    tail = cut.rsplit("] ...\n\n", 1)[1]
    assert text[: int(start) - 1] + text[int(start) - 1 : end] + tail == text
    assert HINT.count("{id}") == 1


@pytest.mark.parametrize("wire", ["gemini", "gemini_gca"])
def test_isolation_hides_foreign_tool_rows_but_keeps_text(wire: str) -> None:
    ledger = Ledger()
    ledger.tool_turn("1", ["out"], wire="openai")
    ledger.add(Role.ASSISTANT, "done", "1", parsing_strategy="openai")
    history = build(ledger.rows, wire=wire).history  # type: ignore[attr-defined]
    roles = [(e.message.role, e.message.status) for e in history]
    assert (Role.TOOL, Status.COMPLETED) not in roles
    assert [e.content for e in history if e.message.role == Role.ASSISTANT] == ["looking", "done"]
    same = build(ledger.rows, wire="openai").history  # type: ignore[attr-defined]
    assert any(e.message.role == Role.TOOL for e in same)


def test_gemini_and_gca_share_tool_rows() -> None:
    ledger = Ledger()
    ledger.tool_turn("1", ["out"], wire="gemini")
    history = build(ledger.rows, wire="gemini_gca").history  # type: ignore[attr-defined]
    assert any(e.message.role == Role.TOOL for e in history)


def test_orphans_are_removed_in_pairs() -> None:
    ledger = Ledger()
    ledger.tool_turn("1", ["a", "b"])
    rows = [r for r in ledger.rows if r.tool_call_id != "c1-1"]  # one result missing (crash mid-dispatch)
    rows.append(Message(99, "s", Role.TOOL, "stray", group_id="1", tool_call_id="nobody"))
    history = build(rows).history  # type: ignore[attr-defined]
    assert not any(e.message.role == Role.TOOL for e in history)
    assert [e.message.status for e in history if e.message.role == Role.ASSISTANT] == [Status.COMPLETED]


def test_budget_guard_drops_oldest_whole_groups_never_current() -> None:
    ledger = Ledger()
    for gid in ("1", "2", "3"):
        ledger.add(Role.USER, "q" * 4000, gid)
        ledger.add(Role.ASSISTANT, "a" * 4000, gid)
    base = build([]).total_tokens  # type: ignore[attr-defined]
    prompt = build(ledger.rows, budget=base + 2100)
    gids = [e.message.group_id for e in prompt.history]  # type: ignore[attr-defined]
    assert gids == ["3", "3"]
    assert any("left out 2 oldest group(s)" in n and "1, 2" in n for n in prompt.notes)  # type: ignore[attr-defined]
    tiny = build(ledger.rows, budget=10)
    assert {e.message.group_id for e in tiny.history} == {"3"}  # type: ignore[attr-defined]
