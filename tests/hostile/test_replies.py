"""The hostile-reply table: broken or hostile model output, through the real engine in
batch mode, for both wire formats where the case exists on that wire.

Every row proves: no traceback, the run ends with its `done` line and the right exit
code, errors are one line, nothing is written to the debug log (no bug was hit), the
ledger holds what it should, and the next turn of the same session sends a request a
strict server accepts and succeeds."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.fakellm import FakeLLM, ToolCallSpec, ToolCallsReply
from tests.hostile.conftest import Batch, Run, assert_valid_request

BIG = 10 * 1024 * 1024  # a 10 MB reply without whitespace


@dataclass(frozen=True)
class Case:
    name: str
    protocols: tuple[str, ...]
    script: Callable[[FakeLLM], None]
    code: int  # exit code of the hostile turn
    says: str = ""  # in the error or warning lines (or the done error)
    status: str | None = None  # the stored status of the turn's last assistant row
    check: Callable[[Run, sqlite3.Connection], None] | None = field(default=None)


def calls(fake: FakeLLM, arguments: str) -> None:
    fake.enqueue(ToolCallsReply((ToolCallSpec("read_file", arguments),)))
    fake.enqueue_text("I will send proper arguments next time.")


def stored_arguments_kept(expected: str) -> Callable[[Run, sqlite3.Connection], None]:
    def check(run: Run, db: sqlite3.Connection) -> None:
        (content,) = db.execute("SELECT content FROM messages WHERE status='tool_call'").fetchone()
        stored = json.loads(content)["tool_calls"][0]["function"]["arguments"]
        assert stored == expected, "the ledger keeps the arguments exactly as the model sent them"
        results = db.execute("SELECT content FROM messages WHERE role='tool'").fetchall()
        assert results and "INVALID_ARGUMENT" in results[0][0], "the model hears what was wrong"
        assert any(e["type"] == "tool_result" and e["status"] == "error" for e in run.events)

    return check


def replacement_stored(run: Run, db: sqlite3.Connection) -> None:
    (content,) = db.execute("SELECT content FROM messages WHERE role='assistant'").fetchone()
    assert content == "a\ufffdb", "the lone surrogate is stored as U+FFFD, the rest kept"
    assert run.texts("assistant") == ["a\ufffdb"]


def big_reply_stored(run: Run, db: sqlite3.Connection) -> None:
    length, tokens = db.execute(
        "SELECT length(content), content_tokens FROM messages WHERE role='assistant'"
    ).fetchone()
    assert length == BIG, "all 10 MB are kept"
    assert BIG // 8 <= tokens < BIG, "its size is counted (exactly up to the cap, extrapolated beyond)"


def cut_calls_not_run(run: Run, db: sqlite3.Connection) -> None:
    assert not any(e["type"] == "tool_call" for e in run.events), "a call cut by the output limit is not run"
    assert db.execute("SELECT COUNT(*) FROM messages WHERE role='tool' OR status='tool_call'").fetchone() == (0,)


def message_kept(text: str) -> Callable[[Run, sqlite3.Connection], None]:
    def check(run: Run, db: sqlite3.Connection) -> None:
        assert text in run.done["error"], "the server's own message is kept"
        assert "cut off mid-stream" not in run.done["error"]

    return check


OPENAI_CONTEXT_ERRORS = {
    "openai": {
        "error": {
            "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in "
            "130000 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    },
    "llama.cpp": {
        "error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 5000,
            "n_ctx": 4096,
        }
    },
    "vllm": {
        "object": "error",
        "message": "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens "
        "(4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    },
    "vllm-model-length": {
        "error": {
            "message": "The decoder prompt (length 5000) is longer than the maximum model length of 4096. "
            "Make sure that `max_model_len` is no smaller than the number of text tokens.",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        }
    },
}

BOTH = ("openai", "gemini")
ALL = ("openai", "gemini", "gca")  # gca: Gemini Code Assist, the same replies in its envelope
CASES = [
    Case(
        "arguments [ * 50000", ("openai",), lambda f: calls(f, "[" * 50000), 0, check=stored_arguments_kept("[" * 50000)
    ),
    Case(
        "arguments: a 5,000-digit integer",
        ("openai",),
        lambda f: calls(f, '{"path": ' + "9" * 5000 + "}"),
        0,
        check=stored_arguments_kept('{"path": ' + "9" * 5000 + "}"),
    ),
    Case(
        "arguments: invalid JSON",
        ("openai",),
        lambda f: calls(f, '{"path": "notes.txt"'),
        0,
        check=stored_arguments_kept('{"path": "notes.txt"'),
    ),
    Case(
        "arguments: a JSON array", ("openai",), lambda f: calls(f, "[1, 2]"), 0, check=stored_arguments_kept("[1, 2]")
    ),
    Case(
        "arguments a string (not an object) on the Gemini wire",
        ("gemini",),
        lambda f: f.enqueue(ToolCallsReply((ToolCallSpec("read_file", '{"path": "notes.txt"'),))),
        1,
        says="malformed reply",
    ),
    Case("a lone surrogate in streamed text", ALL, lambda f: f.enqueue_text("a\ud800b"), 0, check=replacement_stored),
    Case("10 MB without whitespace", BOTH, lambda f: f.enqueue_text("x" * BIG), 0, check=big_reply_stored),
    Case(
        "finish_reason length / MAX_TOKENS",
        ALL,
        lambda f: f.enqueue_text('```json\n{\n  "name":', finish="length"),
        1,
        says="the reply hit the output limit",
        status="truncated",
    ),
    Case(
        "tool calls cut by the output limit",
        ALL,
        lambda f: f.enqueue(ToolCallsReply((ToolCallSpec("read_file", {"path": "notes.txt"}),), finish="length")),
        1,
        says="1 unfinished tool call(s) were not run",
        check=cut_calls_not_run,
    ),
    Case("an empty final reply", ALL, lambda f: f.enqueue_text(""), 1, says="empty reply"),
    Case(
        "an error object inside the stream",
        ALL,
        lambda f: f.enqueue_stream_error("upstream provider overloaded (fake)", text_prefix="Let me "),
        1,
        says="upstream provider overloaded (fake)",
        status="failed",  # the first call of the turn failed: the group is kept, marked failed (/retry)
        check=message_kept("upstream provider overloaded (fake)"),
    ),
    *(
        Case(
            f"context too long: {server}",
            ("openai",),
            lambda f, body=body: f.enqueue_error(400, body=body),
            1,
            says="/context window",
        )
        for server, body in OPENAI_CONTEXT_ERRORS.items()
    ),
    Case(
        "context too long: Gemini 400",
        ("gemini",),
        lambda f: f.enqueue_error(
            400, message="The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
        ),
        1,
        says="/context window",
    ),
]
TABLE = [pytest.param(case, protocol, id=f"{case.name} [{protocol}]") for case in CASES for protocol in case.protocols]


@pytest.mark.parametrize(("case", "protocol"), TABLE)
def test_hostile_reply(case: Case, protocol: str, batch_for: Callable[[str], Batch], fake_llm: FakeLLM) -> None:
    batch = batch_for(protocol)
    case.script(fake_llm)
    run = batch("read notes.txt please")
    assert run.code == case.code, run.events
    assert run.done["ok"] is (case.code == 0)
    if case.code:
        assert run.done["error"], "a failed run says why in its done line"
    if case.says:
        said = " ".join([*run.texts("error"), *run.texts("warning"), run.done.get("error") or ""])
        assert case.says in said, said
    db = sqlite3.connect(batch.db)
    try:
        if case.status:
            row = db.execute("SELECT status FROM messages WHERE role='assistant' ORDER BY id DESC LIMIT 1").fetchone()
            assert row == (case.status,)
        if case.check:
            case.check(run, db)
    finally:
        db.close()
    fake_llm.enqueue_text("Fine again.")
    after = batch("and now?")
    assert after.code == 0 and after.texts("assistant") == ["Fine again."], after.events
    for request in fake_llm.requests:
        if request.path.endswith(("completions", "streamGenerateContent")):
            assert_valid_request(request)
    assert batch.crash_logs() == [], "no internal error was hit"


@pytest.mark.parametrize(
    ("protocol", "path", "limit"),
    [
        ("openai", ("max_tokens",), 16_384),  # gpt-4o-mini, the default model: its reserve
        ("gemini", ("generationConfig", "maxOutputTokens"), 65_536),  # gemini-2.5-flash
    ],
)
def test_output_limit_is_stated_from_the_budget_reserve(
    protocol: str, path: tuple[str, ...], limit: int, batch_for: Callable[[str], Batch], fake_llm: FakeLLM
) -> None:
    """The request states the output reserve the prompt budget already assumes, so a
    server without a default of its own cannot run on."""
    batch = batch_for(protocol)
    fake_llm.enqueue_text("ok")
    assert batch("hi").code == 0
    value = fake_llm.last_request().json
    for key in path:
        value = value[key]
    assert value == limit


def test_hostile_reply_in_a_child_process(batch_for: Callable[[str], Batch], fake_llm: FakeLLM) -> None:
    """The same as a user's script sees it: `python -m slop` as a separate process, its
    stdout read as bytes (valid UTF-8 even though the model sent a lone surrogate), its
    exit code and last line."""
    batch = batch_for("openai")
    fake_llm.enqueue_text("half a \ud800 reply", finish="length")
    run = batch.process("go")
    assert run.code == 1 and run.done["ok"] is False
    assert run.done["error"] == "the reply hit the output limit"
    assert run.texts("assistant") == ["half a \ufffd reply"]
    fake_llm.enqueue_text("whole")
    assert batch("again").code == 0
    assert batch.crash_logs() == []


def test_unexpected_exception_becomes_one_line_and_a_debug_log(
    batch_for: Callable[[str], Batch], fake_llm: FakeLLM, tmp_path: Path
) -> None:
    """The last-resort handler: a bug (here a tool that raises what no code expects) ends
    as one error line naming the debug log; the log holds the traceback and is 0600."""
    from slop.app import build
    from slop.approval import ApprovalPolicy
    from slop.batch import JsonEvents
    from slop.settings import Settings

    settings = Settings(
        db_path=str(tmp_path / "ledger.db"),
        home=str(tmp_path / "home"),
        openai_api_key="sk-x",
        openai_base_url=fake_llm.openai_base_url,
        max_retries=0,
    )
    events = JsonEvents("json", out=open(tmp_path / "out.json", "w"))  # noqa: SIM115 - closed below
    app = build(settings, events, events, ApprovalPolicy("yes"))
    try:

        def broken(*_args: object, **_kwargs: object) -> object:
            raise RecursionError("maximum recursion depth exceeded (injected)")

        app.ctx.orchestrator.run_turn = broken  # type: ignore[method-assign]
        outcome = app.engine.handle("hello")
        assert outcome.ok is False and outcome.internal
        assert outcome.error.startswith("internal error (RecursionError: maximum recursion depth exceeded")
        assert "\n" not in outcome.error
        (log,) = sorted((tmp_path / "home" / "logs").glob("*.log"))
        assert str(log) in outcome.error
        assert "Traceback (most recent call last)" in log.read_text() and "broken" in log.read_text()
        assert log.stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "home" / "logs").stat().st_mode & 0o777 == 0o700
        assert app.engine.handle("/session list").ok, "the next input works"
    finally:
        app.close()
        events.out.close()
