"""MessageParser on recorded shapes: OpenAI streams with calls split across chunks and
parallel calls, Gemini multi-part replies, legacy and malformed rows (never raise), and
tool-call isolation across strategies."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai.types.chat import ChatCompletionChunk

from slop import parser
from slop.context.history import enforce_pairs, isolate
from slop.providers import google_wire, openai_wire
from slop.providers.google_wire import GeminiAccumulator
from slop.providers.openai_wire import OpenAIAccumulator as _Accumulator
from slop.records import HistoryEntry, Layer, Message, Prompt, Role, Status, ToolCall

# ---- recorded shapes --------------------------------------------------------------------------
# An OpenAI stream with two parallel calls: the first delta of each call has id, type and
# name with empty arguments, then the arguments arrive in pieces carrying only the index.
OPENAI_CHUNKS: list[dict[str, Any]] = [
    {"delta": {"role": "assistant", "content": ""}},
    {"delta": {"content": "Let me check "}},
    {"delta": {"content": "both."}},
    {
        "delta": {
            "tool_calls": [
                {"index": 0, "id": "call_A1", "type": "function", "function": {"name": "read_file", "arguments": ""}}
            ]
        }
    },
    {"delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"pa'}}]}},
    {"delta": {"tool_calls": [{"index": 0, "function": {"arguments": 'th": "a.p'}}]}},
    {"delta": {"tool_calls": [{"index": 0, "function": {"arguments": 'y"}'}}]}},
    {
        "delta": {
            "tool_calls": [
                {"index": 1, "id": "call_B2", "type": "function", "function": {"name": "grep_tool", "arguments": ""}}
            ]
        }
    },
    {"delta": {"tool_calls": [{"index": 1, "function": {"arguments": '{"pattern": "déjà'}}]}},
    {"delta": {"tool_calls": [{"index": 1, "function": {"arguments": ' vu"}'}}]}},
    {"delta": {}, "finish_reason": "tool_calls"},
]

# A Gemini stream: thoughts, text, then one chunk with two functionCalls (the first signed)
# and a last chunk with finishReason and usage.
GEMINI_CHUNKS: list[dict[str, Any]] = [
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "Need to ", "thought": True}]}}]},
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "read two files.", "thought": True}]}}]},
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "Reading "}]}}]},
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "now."}]}}]},
    {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {"name": "read_file", "args": {"path": "a.py"}},
                            "thoughtSignature": "CiQB+/x9Zm9v/w==",
                        },
                        {"functionCall": {"name": "read_file", "args": {"path": "b.py"}, "id": "api-2"}},
                    ],
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 12, "thoughtsTokenCount": 9},
        "modelVersion": "gemini-2.5-flash",
    },
]


def openai_chunk(i: int, body: dict[str, Any]) -> ChatCompletionChunk:
    choice = {"index": 0, "delta": body["delta"], "finish_reason": body.get("finish_reason")}
    return ChatCompletionChunk.model_validate(
        {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-x", "choices": [choice]}
    )


def row(
    content: str,
    wire: str | None,
    status: str = Status.TOOL_CALL,
    role: str = Role.ASSISTANT,
    i: int = 2,
    call_id: str | None = None,
    group: str = "g1",
) -> Message:
    return Message(i, "s", role, content, status, group, call_id, wire)


def prompt(*messages: Message, wire: str = "gemini") -> Prompt:
    return Prompt((Layer("system", "sys", 1),), tuple(HistoryEntry(m, m.content, 1) for m in messages), (), wire)


# ---- OpenAI --------------------------------------------------------------------------------------
def test_openai_stream_split_and_parallel_calls_round_trip() -> None:
    acc = _Accumulator("gpt-x")
    for i, body in enumerate(OPENAI_CHUNKS):
        acc.add(openai_chunk(i, body))
    reply = acc.reply(cancelled=False)
    parsed = parser.parse(row(reply.native, "openai"))
    assert parsed.text == "Let me check both."
    assert parsed.tool_calls == (
        ToolCall("call_A1", "read_file", '{"path": "a.py"}'),
        ToolCall("call_B2", "grep_tool", '{"pattern": "déjà vu"}'),
    )
    messages = openai_wire.openai_messages(prompt(row(reply.native, "openai"), wire="openai"))
    assert messages[1]["tool_calls"][1]["function"] == {"name": "grep_tool", "arguments": '{"pattern": "déjà vu"}'}
    assert messages[1]["content"] == "Let me check both."


def test_openai_row_without_text_sends_null_content() -> None:
    native = openai_wire.openai_native("", [ToolCall("c1", "ls", "{}")])
    (_, item) = openai_wire.openai_messages(prompt(row(native, "openai"), wire="openai"))
    assert item["content"] is None and item["tool_calls"][0]["id"] == "c1"


def test_openai_variants_read_leniently() -> None:
    data = {
        "role": "assistant",
        "content": [{"type": "text", "text": "part one, "}, {"type": "text", "text": "part two"}],
        "tool_calls": [
            {"id": "x", "type": "function", "function": {"name": "f", "arguments": {"already": "object"}}},
            "junk",
            {"type": "function", "function": {"name": "g"}},
            {"id": "y", "function": None},
        ],
        "reasoning_content": "hidden thoughts",
    }
    parsed = parser.parse(row(json.dumps(data), "openai"))
    assert parsed.text == "part one, part two"
    assert parsed.thoughts == "hidden thoughts"
    assert parsed.tool_calls == (
        ToolCall("x", "f", '{"already": "object"}'),
        ToolCall("call_2", "g", "{}"),
        ToolCall("y", "", "{}"),
    )


# ---- Gemini --------------------------------------------------------------------------------------
def gemini_reply() -> Any:
    ids = iter(["gen-1", "gen-2"])
    acc = GeminiAccumulator("gemini-2.5-flash", new_id=lambda: next(ids))
    events = [e for chunk in GEMINI_CHUNKS for e in acc.add(chunk)]
    acc.check()
    return acc.reply(cancelled=False), events


def test_gemini_multi_part_reply_with_thoughts_text_and_two_calls() -> None:
    reply, events = gemini_reply()
    assert (reply.text, reply.reasoning) == ("Reading now.", "Need to read two files.")
    assert [type(e).__name__ for e in events] == ["ReasoningDelta"] * 2 + ["TextDelta"] * 2
    # 12 candidate tokens + 9 thought tokens: Gemini bills both as output.
    assert reply.usage.prompt_tokens == 50 and reply.usage.completion_tokens == 21
    assert reply.usage.reasoning_tokens == 9
    stored = json.loads(reply.native)
    assert stored["parts"] == [
        {"text": "Need to read two files.", "thought": True},  # streamed pieces merged
        {"text": "Reading now."},
        {
            "functionCall": {"name": "read_file", "args": {"path": "a.py"}, "id": "gen-1"},
            "thoughtSignature": "CiQB+/x9Zm9v/w==",
        },
        {"functionCall": {"name": "read_file", "args": {"path": "b.py"}, "id": "api-2"}},
    ]
    parsed = parser.parse(row(reply.native, "gemini"))
    assert parsed.text == "Reading now." and parsed.thoughts == "Need to read two files."
    assert [(c.id, c.name, json.loads(c.arguments)) for c in parsed.tool_calls] == [
        ("gen-1", "read_file", {"path": "a.py"}),
        ("api-2", "read_file", {"path": "b.py"}),
    ]


def test_signed_parts_are_never_merged() -> None:
    acc = GeminiAccumulator("m")
    acc.add({"candidates": [{"content": {"parts": [{"text": "a"}]}}]})
    acc.add({"candidates": [{"content": {"parts": [{"text": "b", "thoughtSignature": "U0lH"}]}}]})
    acc.add({"candidates": [{"content": {"parts": [{"text": "c"}]}}]})
    assert acc.parts == [{"text": "a"}, {"text": "b", "thoughtSignature": "U0lH"}, {"text": "c"}]


def test_gemini_contents_replays_the_stored_parts_with_signatures() -> None:
    reply, _ = gemini_reply()
    history = (
        row("read a and b", "gemini", Status.COMPLETED, Role.USER, i=1),
        row(reply.native, "gemini"),
        row("A!", "gemini", Status.COMPLETED, Role.TOOL, i=3, call_id="gen-1"),
        row("no such file", "gemini", Status.ERROR, Role.TOOL, i=4, call_id="api-2"),
        row("and then?", "gemini", Status.COMPLETED, Role.USER, i=5),
    )
    contents = google_wire.gemini_contents(prompt(*history))
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    model_parts = contents[1]["parts"]
    assert {"text": "Need to read two files.", "thought": True} not in model_parts  # unsigned thoughts stay home
    assert model_parts[1]["thoughtSignature"] == "CiQB+/x9Zm9v/w=="
    assert contents[2]["parts"] == [
        {"functionResponse": {"id": "gen-1", "name": "read_file", "response": {"output": "A!"}}},
        {"functionResponse": {"id": "api-2", "name": "read_file", "response": {"error": "no such file"}}},
        {"text": "and then?"},
    ]


def test_rendering_a_request_parses_no_row_that_assembly_already_parsed() -> None:
    """Every model call renders the whole window: the wire modules read tool rows through
    the parser's cache, which assembly (pair integrity) has just filled for the same rows."""
    reply, _ = gemini_reply()
    openai_row = openai_wire.openai_native("Listing.", [ToolCall("o1", "ls", "{}")])
    history = (
        row("read a and b", "gemini", Status.COMPLETED, Role.USER, i=1),
        row(reply.native, "gemini"),
        row("A!", "gemini", Status.COMPLETED, Role.TOOL, i=3, call_id="gen-1"),
        row(openai_row, None, i=4),  # a legacy row of the other shape: rebuilt from its parse
        row("ok", None, Status.COMPLETED, Role.TOOL, i=5, call_id="o1"),
    )
    parser.parse_cached.cache_clear()
    for message in history:  # what assembly does before the provider renders the prompt
        parser.parse_cached(message)
    before = parser.parse_cached.cache_info()
    google_wire.gemini_contents(prompt(*history))
    openai_wire.openai_messages(prompt(*history, wire="openai"))
    after = parser.parse_cached.cache_info()
    assert after.misses == before.misses and after.hits >= before.hits + 4  # two tool rows, two renders


def test_gemini_row_without_call_ids_gets_stable_fallback_ids() -> None:
    native = json.dumps({"role": "model", "parts": [{"text": "x"}, {"functionCall": {"name": "ls", "args": {}}}]})
    parsed = parser.parse(row(native, "gemini"))
    assert parsed.tool_calls == (ToolCall("ls_1", "ls", "{}"),)
    contents = google_wire.gemini_contents(
        prompt(row(native, "gemini"), row("r", "gemini", role=Role.TOOL, status=Status.COMPLETED, call_id="ls_1"))
    )
    assert contents[0]["parts"][1]["functionCall"]["id"] == "ls_1"
    assert contents[1]["parts"][0]["functionResponse"]["name"] == "ls"


# ---- legacy and malformed rows ------------------------------------------------------------------------
def test_legacy_rows_without_a_strategy_are_read_by_shape() -> None:
    gemini_native = json.dumps({"role": "model", "parts": [{"functionCall": {"id": "g", "name": "ls", "args": {}}}]})
    openai_native = openai_wire.openai_native("hi", [ToolCall("o", "ls", '{"path": "."}')])
    assert parser.parse(row(gemini_native, None)).tool_calls == (ToolCall("g", "ls", "{}"),)
    assert parser.parse(row(openai_native, None)).tool_calls == (ToolCall("o", "ls", '{"path": "."}'),)
    # an OpenAI-shaped row sent to Gemini is rebuilt as Gemini parts, not sent raw
    contents = google_wire.gemini_contents(prompt(row(openai_native, None)))
    assert contents == [
        {"role": "model", "parts": [{"text": "hi"}, {"functionCall": {"id": "o", "name": "ls", "args": {"path": "."}}}]}
    ]
    # and a Gemini-shaped one sent to OpenAI becomes tool_calls
    (_, item) = openai_wire.openai_messages(prompt(row(gemini_native, None), wire="openai"))
    assert item["tool_calls"][0]["id"] == "g"


MALFORMED = [
    "not json at all {",
    "",
    "[1, 2, 3]",
    "null",
    '"a string"',
    '{"tool_calls": "nope"}',
    '{"tool_calls": [null, 3, "x", {"function": "str"}]}',
    '{"parts": "nope"}',
    '{"parts": [null, 1, "text", {"functionCall": null}, {"functionCall": "x"}, {"text": 5}, {"thought": true}]}',
    '{"parts": [{"functionCall": {"name": "f", "args": "raw string"}}]}',
    '{"content": {"weird": true}}',
]


@pytest.mark.parametrize("wire", ["openai", "gemini", "gemini_gca", None, "unknown"])
@pytest.mark.parametrize("content", MALFORMED)
def test_malformed_rows_never_raise(content: str, wire: str | None) -> None:
    message = row(content, wire)
    parsed = parser.parse(message)
    assert isinstance(parsed.text, str)
    for call in parsed.tool_calls:
        assert isinstance(call.arguments, str) and isinstance(call.id, str)
    openai_wire.openai_messages(prompt(message, wire="openai"))
    google_wire.gemini_contents(prompt(message))
    parser.tool_names_by_call_id([message])
    enforce_pairs(isolate([message], "gemini"))


def test_unreadable_row_reads_back_as_its_raw_text() -> None:
    assert parser.parse(row("oops {", "openai")).text == "oops {"
    assert parser.parse(row("oops {", "gemini")).tool_calls == ()
    assert google_wire.gemini_contents(prompt(row("oops {", "gemini"))) == [
        {"role": "model", "parts": [{"text": "oops {"}]}
    ]


def test_plain_rows_and_reasoning() -> None:
    answer = Message(1, "s", Role.ASSISTANT, "4", Status.COMPLETED, "g", None, "openai", reasoning="2+2")
    assert parser.parse(answer) == parser.ParsedMessage("4", (), "2+2")
    calls = Message(
        2,
        "s",
        Role.ASSISTANT,
        openai_wire.openai_native("", [ToolCall("c", "f", "{}")]),
        Status.TOOL_CALL,
        "g",
        None,
        "openai",
        reasoning="think",
    )
    assert parser.parse(calls).thoughts == "think"


def test_gemini_args_of_odd_argument_text() -> None:
    assert google_wire.gemini_args('{"a": 1}') == {"a": 1}
    assert google_wire.gemini_args("[1]") == {}  # not an object: the same placeholder as OpenAI gets
    assert google_wire.gemini_args("not json") == {}  # the placeholder: the error result says what was wrong
    assert google_wire.gemini_args("") == {}


# ---- isolation ------------------------------------------------------------------------------------
def openai_group() -> list[Message]:
    return [
        row("look", "openai", Status.COMPLETED, Role.USER, i=1),
        row(openai_wire.openai_native("Checking.", [ToolCall("o1", "ls", "{}")]), "openai", i=2),
        row("a b c", "openai", Status.COMPLETED, Role.TOOL, i=3, call_id="o1"),
        row("Found a, b, c.", "openai", Status.COMPLETED, Role.ASSISTANT, i=4),
    ]


def gemini_group() -> list[Message]:
    native = google_wire.gemini_native([{"functionCall": {"id": "g1", "name": "ls", "args": {}}}])
    return [
        row("again", "gemini", Status.COMPLETED, Role.USER, i=5, group="g2"),
        row(native, "gemini", i=6, group="g2"),
        row("a b c", "gemini", Status.COMPLETED, Role.TOOL, i=7, call_id="g1", group="g2"),
        row("Same.", "gemini", Status.COMPLETED, Role.ASSISTANT, i=8, group="g2"),
    ]


def test_isolation_keeps_text_and_only_compatible_tool_rows() -> None:
    history = openai_group() + gemini_group()
    for_gemini = enforce_pairs(isolate(history, "gemini"))
    assert [(m.id, m.status) for m in for_gemini] == [
        (1, Status.COMPLETED),
        (2, Status.COMPLETED),
        (4, Status.COMPLETED),  # 2: its text, as text
        (5, Status.COMPLETED),
        (6, Status.TOOL_CALL),
        (7, Status.COMPLETED),
        (8, Status.COMPLETED),
    ]
    assert for_gemini[1].content == "Checking."
    for_gca = enforce_pairs(isolate(history, "gemini_gca"))
    assert [m.id for m in for_gca] == [m.id for m in for_gemini]  # gemini and gemini_gca are one family
    for_openai = enforce_pairs(isolate(history, "openai"))
    assert [m.id for m in for_openai] == [1, 2, 3, 4, 5, 8]  # the Gemini call had no text: gone
    assert for_openai[1].status == Status.TOOL_CALL


def test_pairs_are_kept_whole() -> None:
    native = openai_wire.openai_native("", [ToolCall("x1", "ls", "{}"), ToolCall("x2", "ls", "{}")])
    history = [
        row(native, "openai"),
        row("r1", "openai", Status.COMPLETED, Role.TOOL, i=3, call_id="x1"),
        row("orphan", "openai", Status.COMPLETED, Role.TOOL, i=4, call_id="zz"),
    ]
    assert enforce_pairs(history) == []  # x2's result is missing: the call row and x1's result go
