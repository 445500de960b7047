"""Hypothesis fuzz of what slop decodes from a model and from its own ledger.

* argument text: decoding never raises anything but the ValueError validation turns
  into an error result; what is replayed is always a JSON object;
* streamed chunks (real SDK chunk types for OpenAI, REST dicts for Gemini): the
  accumulators either return a reply whose text and native JSON can be stored and
  printed, or raise the one-line BadResponse;
* any ledger history, however mangled: the request built from it is one a strict
  server accepts (pairs intact, arguments objects, roles alternating for Gemini)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from slop import parser
from slop.context.assemble import Snapshot, assemble
from slop.errors import BadResponse
from slop.providers import google_wire, openai_wire
from slop.providers.google_wire import GeminiAccumulator, rest_request
from slop.providers.openai_compat import OpenAIProvider
from slop.providers.openai_wire import OpenAIAccumulator as _Accumulator
from slop.records import Message, Role, SessionInfo, Status, Wire
from slop.tools.validate import parse_arguments
from slop.ui.textfit import flatten_args
from tests.hostile.conftest import assert_valid_gemini, assert_valid_openai

FUZZ = settings(max_examples=200, deadline=None, database=None)

HOSTILE_TEXT = st.one_of(
    st.text(),
    st.sampled_from(["[" * 50000, "{" * 3000, "9" * 5000, '{"a": ' + "9" * 5000 + "}", "\ud800", "{}", "[]", "null"]),
    st.builds(lambda n: "[" * n + "]" * n, st.integers(0, 3000)),
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text()),
        lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
        max_leaves=10,
    ).map(lambda v: json.dumps(v)),
)
SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def utf8(text: str) -> None:
    text.encode("utf-8")  # raises on a lone surrogate


@FUZZ
@given(HOSTILE_TEXT)
def test_argument_text(raw: str) -> None:
    try:
        parser.decode_json(raw)
    except ValueError:
        pass
    args, error = parse_arguments(SCHEMA, raw)
    assert (args is None) != (error is None)
    assert isinstance(json.loads(parser.sendable_arguments(raw)), dict)
    assert isinstance(google_wire.gemini_args(raw), dict)
    assert isinstance(flatten_args(raw), str)


# ---- streamed chunks -------------------------------------------------------------------
def openai_chunk(delta: dict[str, Any], finish: str | None) -> Any:
    from openai.types.chat import ChatCompletionChunk

    return ChatCompletionChunk.model_validate(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


DELTAS = st.one_of(
    st.fixed_dictionaries({"content": HOSTILE_TEXT}),
    st.fixed_dictionaries({"reasoning_content": st.text()}),
    st.fixed_dictionaries(
        {
            "tool_calls": st.lists(
                st.fixed_dictionaries(
                    {
                        "index": st.integers(0, 3),
                        "id": st.one_of(st.none(), st.text(max_size=8)),
                        "function": st.fixed_dictionaries(
                            {"name": st.one_of(st.none(), st.text(max_size=8)), "arguments": HOSTILE_TEXT}
                        ),
                    }
                ),
                max_size=2,
            )
        }
    ),
)


@FUZZ
@given(
    st.lists(st.tuples(DELTAS, st.sampled_from([None, None, "stop", "length", "tool_calls"])), max_size=6),
    st.booleans(),
)
def test_openai_stream_chunks(chunks: list[tuple[dict[str, Any], str | None]], cancelled: bool) -> None:
    acc = _Accumulator("m")
    for delta, finish in chunks:
        for event in acc.add(openai_chunk(delta, finish)):
            utf8(event.text)
    reply = acc.reply(cancelled)
    for text in (reply.text, reply.reasoning, reply.native, *(c.arguments for c in reply.tool_calls)):
        utf8(text)
    if reply.native:  # what is stored reads back as the same calls (ids are given when stored)
        stored = parser.parse(_row(reply.native, Wire.OPENAI)).tool_calls
        assert [(c.name, c.arguments) for c in stored] == [(c.name, c.arguments) for c in reply.tool_calls]


GEMINI_PARTS = st.lists(
    st.one_of(
        st.fixed_dictionaries({"text": HOSTILE_TEXT}),
        st.fixed_dictionaries({"text": st.text(), "thought": st.just(True)}),
        st.fixed_dictionaries(
            {
                "functionCall": st.fixed_dictionaries(
                    {
                        "name": st.text(max_size=8),
                        "args": st.dictionaries(st.text(max_size=4), HOSTILE_TEXT, max_size=2),
                    }
                )
            }
        ),
        st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=2),
        st.integers(),
    ),
    max_size=3,
)
GEMINI_CHUNKS = st.one_of(
    st.fixed_dictionaries(
        {
            "candidates": st.lists(
                st.fixed_dictionaries(
                    {"content": st.fixed_dictionaries({"parts": GEMINI_PARTS})},
                    optional={"finishReason": st.sampled_from(["STOP", "MAX_TOKENS", "SAFETY", "OTHER", ""])},
                ),
                max_size=1,
            )
        },
        optional={
            "usageMetadata": st.dictionaries(
                st.sampled_from(["promptTokenCount", "candidatesTokenCount"]), st.integers(0, 10**6)
            )
        },
    ),
    st.lists(st.integers(), max_size=2),
    st.text(max_size=5),
)


@FUZZ
@given(st.lists(GEMINI_CHUNKS, max_size=5), st.booleans())
def test_gemini_stream_chunks(chunks: list[Any], cancelled: bool) -> None:
    acc = GeminiAccumulator("m")
    try:
        for chunk in chunks:
            for event in acc.add(chunk):
                utf8(event.text)
        acc.check()
    except BadResponse as exc:
        assert "\n" not in str(exc)
        return
    reply = acc.reply(cancelled)
    for text in (reply.text, reply.reasoning):
        utf8(text)
    json.loads(reply.native or "{}")


# ---- any ledger history -----------------------------------------------------------------------
IDS = st.sampled_from(["c1", "c2", "c3", ""])
OPENAI_NATIVE = st.builds(
    lambda text, calls: openai_wire.openai_native(text, calls),
    st.text(max_size=5),
    st.lists(st.builds(lambda i, a: parser.ToolCall(i, "read_file", a), IDS, HOSTILE_TEXT), max_size=2),
)
ROWS = st.lists(
    st.tuples(
        st.sampled_from([Role.USER, Role.ASSISTANT, Role.TOOL, Role.SYSTEM]),
        st.sampled_from(
            [Status.COMPLETED, Status.TOOL_CALL, Status.ERROR, Status.INTERRUPTED, Status.TRUNCATED, "weird"]
        ),
        st.one_of(st.text(max_size=10), OPENAI_NATIVE, st.sampled_from(["{garbage", '{"parts": 1}', ""])),
        IDS,
        st.one_of(st.none(), IDS, st.just("c1\nc2")),
        st.sampled_from([Wire.OPENAI, Wire.GEMINI, None]),
        st.integers(0, 3),
    ),
    max_size=12,
)


def _row(content: str, wire: str | None, i: int = 1, **fields: Any) -> Message:
    defaults: dict[str, Any] = {"role": Role.ASSISTANT, "status": Status.TOOL_CALL}
    defaults.update(fields)
    return Message(i, "s", content=content, parsing_strategy=wire, **defaults)


@FUZZ
@given(ROWS, st.sampled_from([Wire.OPENAI, Wire.GEMINI]))
def test_any_history_makes_a_valid_request(rows: list[tuple[Any, ...]], wire: str) -> None:
    history = tuple(
        _row(
            content,
            row_strategy,
            i + 1,
            role=role,
            status=status,
            tool_call_id=call_id or None,
            call_ids=call_ids,
            group_id=f"{group:019d}",
        )
        for i, (role, status, content, call_id, call_ids, row_strategy, group) in enumerate(rows)
    )
    history = tuple(sorted(history, key=lambda m: (m.group_id, m.id)))
    prompt = assemble(Snapshot(session=SessionInfo("s"), history=history, wire=wire))
    if wire == Wire.OPENAI:  # the bodies the providers send
        body = OpenAIProvider(api_key="x").request_body(prompt)
        assert_valid_openai({**body, "max_tokens": 1})
    else:
        request = rest_request(prompt, include_thoughts=False)
        if request["contents"] and request["contents"][0]["role"] == "user":
            assert_valid_gemini({**request, "generationConfig": {"maxOutputTokens": 1}})
    json.dumps(prompt.system_text).encode("utf-8")
