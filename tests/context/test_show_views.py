"""/context show's two views of an assembled prompt: the full one (every layer and message as
sent, tool calls by name and id, truncated results flagged) and the brief one (one line per
layer and group, why each group is in, the oldest giving way when the screen is short)."""

from __future__ import annotations

import json

from slop.context.layout import CONTEXT_HEADER, CONTEXT_MESSAGE_ID
from slop.context.show import ShowContext, format_brief, format_prompt, header
from slop.records import HistoryEntry, Layer, Message, Prompt, Role, Status, ToolSpec


def _entry(mid: int, role: str, text: str, gid: str, tokens: int = 10) -> HistoryEntry:
    return HistoryEntry(Message(mid, "s", role, text, group_id=gid), text, tokens)


def _prompt() -> Prompt:
    call = {
        "role": "assistant",
        "content": "Reading it.",
        "tool_calls": [{"id": "call_7", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}],
    }
    history = (
        _entry(1, Role.USER, "## Begin Conversation History\nhow is the parser built", "g1"),
        _entry(2, Role.ASSISTANT, "It has three passes.", "g1"),
        _entry(3, Role.SYSTEM, "## Summary of earlier context\nthe cache", "g2"),
        _entry(4, Role.USER, "and the cache?", "g3"),
        HistoryEntry(
            Message(5, "s", Role.ASSISTANT, json.dumps(call), Status.TOOL_CALL, "g3", parsing_strategy="openai"),
            json.dumps(call),
            12,
        ),
        HistoryEntry(Message(6, "s", Role.TOOL, "x" * 900, group_id="g3", tool_call_id="call_7"), "x" * 300, 80, True),
        _entry(7, Role.USER, "## End of History\n\n### CURRENT REQUEST\nnow fix it", "g4"),
    )
    layers = (Layer("system prompt", "You are slop.", 5), Layer("state", "### STATE\nGoal: fix", 7))
    tools = (ToolSpec("read_file", "Read a file.", {"type": "object"}),)
    return Prompt(layers, history, tools, "openai", budget=1000, tool_tokens=40, notes=("Strategy window: last 5.",))


def test_the_header_states_provider_wire_mode_totals_and_notes() -> None:
    where = ShowContext(provider="openai:gpt-x", wire="gemini", mode="ranked", window=0, layout="cache")
    lines = header(_prompt(), where)
    assert lines[0] == "=== Next request ==="
    assert lines[1] == (
        "provider: openai:gpt-x | wire: Gemini generateContent | context mode: ranked | window: all | layout: cache"
    )
    total = 5 + 7 + 40 + (10 * 5 + 12 + 80)
    assert lines[2].startswith(f"total: {total} tokens of a 1000 token budget ({total // 10}%)")
    assert "(system 12, tool definitions 40, history 142)" in lines[2]
    assert lines[-1] == "note: Strategy window: last 5."


def test_the_placeholder_line_says_what_the_real_message_may_change() -> None:
    where = ShowContext(placeholder="<your next message>", depends="the ranked selection")
    line = next(x for x in header(_prompt(), where) if x.startswith("next message:"))
    assert "<your next message> stands in for it; with your real text the ranked selection may differ" in line


def test_estimated_counts_are_labelled() -> None:
    prompt = _prompt()
    estimated = Prompt(prompt.layers, prompt.history, prompt.tools, "openai", token_estimate_exact=False)
    assert "(estimated: no tokenizer encoding available, counts are chars/4)" in header(estimated, ShowContext())[2]


def test_the_full_view_shows_every_layer_call_and_result_as_sent() -> None:
    full = format_prompt(_prompt())
    assert "--- layer: system prompt (5 tokens) ---\nYou are slop." in full
    assert "--- layer: state (7 tokens) ---\n### STATE\nGoal: fix" in full
    assert "--- tool definitions (40 tokens): read_file ---" in full
    assert "--- history: 7 messages in 4 group(s), 142 tokens ---" in full
    assert "[assistant #5 gid=g3 12 tokens]\nReading it.\n-> tool call read_file({}) id=call_7" in full
    assert "[tool #6 gid=g3 80 tokens truncated]\n<- result for call_7 (completed):\n" + "x" * 300 + "\n" in full
    assert "x" * 301 not in full  # the truncated text, as sent, not the stored row


def test_the_brief_view_has_one_line_per_group_with_why_it_is_in() -> None:
    brief = format_brief(_prompt(), ShowContext(reason="in the window"), width=120)
    lines = brief.splitlines()
    groups = lines[lines.index(next(x for x in lines if x.startswith("history:"))) + 1 :]
    assert [g.split()[0] for g in groups] == ["g1", "g2", "g3", "g4"]
    assert "in the window" in groups[0] and "how is the parser built" in groups[0]
    assert "## Begin" not in groups[0]
    assert "summary" in groups[1]
    assert "1 truncated" in groups[2] and "3 msg" in groups[2] and "and the cache?" in groups[2]
    assert "current request" in groups[3] and groups[3].endswith("now fix it")
    assert all(len(line) <= 120 for line in lines)


def test_a_short_screen_lists_the_newest_groups_and_says_how_many_are_not_listed() -> None:
    full_height = len(format_brief(_prompt(), ShowContext(), width=80).splitlines())
    brief = format_brief(_prompt(), ShowContext(), width=80, max_lines=full_height).splitlines()
    assert len(brief) < full_height  # room is kept for the hint line printed below it
    assert brief[-1].split()[0] == "g4"  # the current request is always listed
    skipped = next(line for line in brief if "older group(s) not listed" in line)
    listed = [line.split()[0] for line in brief[brief.index(skipped) + 1 :]]
    assert skipped.strip() == f"… {4 - len(listed)} older group(s) not listed (in the request; /context show --full)"


def test_the_cache_layouts_context_message_is_named_as_such() -> None:
    prompt = _prompt()
    context = HistoryEntry(
        Message(CONTEXT_MESSAGE_ID, "s", Role.USER, "", group_id="g4"), CONTEXT_HEADER + "### STATE\nGoal: x", 9
    )
    with_context = Prompt(prompt.layers, (*prompt.history[:-1], context, prompt.history[-1]), (), "openai")
    full = format_prompt(with_context)
    assert "[context message (layout cache: STATE, scratchpad, memos, files read) 9 tokens]" in full
    brief = format_brief(with_context, ShowContext(), width=120)
    assert "context message" in brief and "now fix it" in brief.splitlines()[-1]
