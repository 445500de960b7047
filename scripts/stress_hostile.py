"""The long version of the hostile-output tests: thousands of hostile replies, absurd
slash commands and hand-edited rows through the real engine, against the fake server.

    .venv/bin/python scripts/stress_hostile.py [--n 2000] [--seed 1] [--big-every 250]

Each round picks a category at random, runs it through `Engine.handle` (what the REPL
and batch mode run) with batch mode's JSON output going to a strict UTF-8 stream, and
then checks: no internal error (the last-resort handler never fired, no debug log),
every error line is one line, and every request slop sent since the last check is one a
strict OpenAI-compatible / Gemini server accepts. Half the rounds use each wire format.
Prints one table row per category; exits 1 if any figure that must be 0 is not."""

from __future__ import annotations

import argparse
import io
import random
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slop.app import App, build
from slop.approval import ApprovalPolicy
from slop.batch import JsonEvents
from slop.settings import Settings
from tests.fakellm import FakeLLM, ToolCallSpec, ToolCallsReply
from tests.hostile.conftest import assert_valid_request

HUGE_NUMBERS = ["9" * 26, "-" + "9" * 26, "9" * 5000, "1e999", "nan", "inf", "-1", "0", "²", "٣", "0x10", "1_0"]
ODD_WORDS = ["", "x" * 300, "'", '"', "\\", "\x1b[2J", "\ud800", "a\nb", "--help", "default", "list", "show"]
SOME = "WHERE id IN (SELECT id FROM messages {where} ORDER BY random() LIMIT {n})"
EDITS = [
    "UPDATE messages SET tokens='lots', content_tokens='many' " + SOME.format(where="", n=3),
    "UPDATE messages SET content=CAST(content AS BLOB) " + SOME.format(where="", n=3),
    "UPDATE messages SET content=X'FF00FE61' " + SOME.format(where="WHERE role='user'", n=1),
    "UPDATE messages SET content=CAST(X'FF61' AS TEXT) " + SOME.format(where="", n=1),
    "UPDATE messages SET content='{\"tool_calls\": [garbage' " + SOME.format(where="WHERE status='tool_call'", n=1),
    "UPDATE messages SET tool_call_id=NULL " + SOME.format(where="WHERE role='tool'", n=1),
    "UPDATE messages SET call_ids='nonsense' " + SOME.format(where="WHERE status='tool_call'", n=1),
    "UPDATE sessions SET context_size='lots'",
    "UPDATE sessions SET context_size=1e300",
    "UPDATE sessions SET settings='{not json', active_skills='[oops'",
    'UPDATE sessions SET settings=\'{"budget": "big", "throttle": [1], "context_mode": 7, "messages": 1e999}\'',
    "UPDATE usage SET prompt_tokens='x', total_tokens='y'",
]
READ_COMMANDS = ["/message list", "/context show", "/session list", "/usage", "/context window", "/undo", "/schema"]


@dataclass
class Tally:
    rounds: int = 0
    failed_as_expected: int = 0  # the run reported an error or warning (a hostile reply usually should)
    internal_errors: int = 0
    multi_line_errors: int = 0
    invalid_requests: int = 0
    slowest: float = 0.0
    examples: list[str] = field(default_factory=list)


@dataclass
class Rig:
    fake: FakeLLM
    app: App
    events: JsonEvents
    db: Path
    home: Path
    checked: int = 0  # fake.requests already validated

    def run(self, line: str) -> tuple[Any, list[dict[str, Any]]]:
        start = len(self.events.events)
        outcome = self.app.engine.handle(line)
        return outcome, self.events.events[start:]


def make_rig(fake: FakeLLM, base: Path, protocol: str) -> Rig:
    (base / "project").mkdir(parents=True, exist_ok=True)
    (base / "project" / "notes.txt").write_text("remember the milk\n")
    values: dict[str, Any] = {
        "db_path": str(base / "ledger.db"),
        "home": str(base / "home"),
        "project_root": str(base / "project"),
        "max_retries": 0,
        "approval": "read-only",
    }
    if protocol == "openai":
        values.update(openai_api_key="sk-stress", openai_base_url=fake.openai_base_url, model="fake-gpt")
    else:
        values.update(gemini_api_key="stress", gemini_base_url=fake.gemini_base_url, model="gemini-2.5-flash")
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)  # strict, like stdout
    events = JsonEvents("jsonl", out=out)
    app = build(Settings(**values), events, events, ApprovalPolicy("read-only", None, events.warning))
    return Rig(fake, app, events, base / "ledger.db", base / "home")


# ---- hostile rounds -----------------------------------------------------------------------
def hostile_arguments(rng: random.Random) -> str:
    depth = rng.choice([10, 900, 1100, 5000, 50000])
    return rng.choice(
        [
            "[" * depth,
            "[" * depth + "]" * depth,
            '{"path": ' + "9" * rng.choice([4000, 5000, 20000]) + "}",
            '{"path": "notes.txt"',
            "[1, 2]",
            "null",
            '{"path": "\\ud800"}',
            "".join(rng.choice('{}[]":,9a ') for _ in range(rng.randint(0, 60))),
        ]
    )


def script_reply(rng: random.Random, fake: FakeLLM, protocol: str, big: bool) -> str:
    if big:
        fake.enqueue_text("x" * (10 * 1024 * 1024))
        return "10 MB reply"
    kinds = ["arguments", "surrogate", "length", "empty", "stream error", "context error", "length with call"]
    kind = rng.choice(kinds if protocol == "openai" else [k for k in kinds if k != "arguments"])
    if kind == "arguments":
        fake.enqueue(ToolCallsReply((ToolCallSpec("read_file", hostile_arguments(rng)),)))
        fake.enqueue_text("noted")
    elif kind == "surrogate":
        text = "".join(rng.choice(["a", " ", "\ud800", "\udfff", "\ud83d\ude00", "é", "\n"]) for _ in range(40))
        fake.enqueue_text(text)
    elif kind == "length":
        fake.enqueue_text('```json\n{\n  "name":', finish="length")
    elif kind == "length with call":
        fake.enqueue(ToolCallsReply((ToolCallSpec("read_file", '{"path": "no'),), finish="length"))
    elif kind == "empty":
        fake.enqueue_text("")
    elif kind == "stream error":
        fake.enqueue_stream_error(f"upstream failure {rng.randint(0, 999)}", text_prefix=rng.choice(["", "Partial "]))
    else:
        body = rng.choice(
            [
                {"error": {"message": "maximum context length exceeded", "code": "context_length_exceeded"}},
                {
                    "error": {
                        "code": 400,
                        "message": "the request exceeds the available context size",
                        "type": "exceed_context_size_error",
                    }
                },
                {
                    "object": "error",
                    "message": "This model's maximum context length is 4096 tokens. However, you "
                    "requested 5000 tokens.",
                    "type": "BadRequestError",
                    "code": 400,
                },
            ]
        )
        if protocol == "openai":
            fake.enqueue_error(400, body=body)
        else:
            fake.enqueue_error(400, message="The input token count (2000000) exceeds the maximum number of tokens.")
    return kind


def absurd_command(rng: random.Random, rig: Rig) -> str:
    commands = [(c.name, tuple(c.subcommands)) for c in rig.app.registry.commands() if c.name not in ("/exec", "/exit")]
    name, subs = rng.choice(commands)
    parts = [name]
    if subs and rng.random() < 0.7:
        parts.append(rng.choice(subs))
    for _ in range(rng.randint(0, 3)):
        parts.append(rng.choice(HUGE_NUMBERS + ODD_WORDS + [str(rng.randint(-(10**30), 10**30))]))
    return " ".join(parts)


def hand_edit(rng: random.Random, rig: Rig) -> str:
    conn = sqlite3.connect(rig.db)
    try:
        conn.execute(rng.choice(EDITS))
        conn.commit()
    finally:
        conn.close()
    return rng.choice(READ_COMMANDS)


# ---- checks -------------------------------------------------------------------------------
def check(rig: Rig, tally: Tally, line: str, outcome: Any, events: list[dict[str, Any]], seconds: float) -> None:
    tally.rounds += 1
    tally.slowest = max(tally.slowest, seconds)
    if outcome.internal:
        tally.internal_errors += 1
        tally.examples.append(f"internal error on {line[:60]!r}: {outcome.error[:200]}")
    if not outcome.ok or any(e["type"] in ("error", "warning") for e in events):
        tally.failed_as_expected += 1
    for event in events:
        if event["type"] in ("error", "warning") and "\n" in event["text"]:
            tally.multi_line_errors += 1
            tally.examples.append(f"multi-line error on {line[:60]!r}")
    requests = rig.fake.requests
    for request in requests[rig.checked :]:
        if request.path.endswith(("completions", "streamGenerateContent")):
            try:
                assert_valid_request(request)
            except (AssertionError, ValueError, KeyError) as exc:
                tally.invalid_requests += 1
                tally.examples.append(f"invalid request after {line[:60]!r}: {exc}")
    rig.checked = len(requests)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="rounds in all (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--big-every", type=int, default=250, help="one 10 MB reply every N reply rounds")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tallies: dict[str, Tally] = {}
    started = time.perf_counter()
    with FakeLLM() as fake, tempfile.TemporaryDirectory() as tmp:
        rigs = {p: make_rig(fake, Path(tmp) / p, p) for p in ("openai", "gemini")}
        replies = 0
        try:
            for _ in range(args.n):
                protocol = rng.choice(["openai", "gemini"])
                rig = rigs[protocol]
                category = rng.choices(["reply", "command", "edit"], weights=[5, 4, 1])[0]
                if category == "reply":
                    replies += 1
                    kind = script_reply(rng, fake, protocol, big=replies % args.big_every == 0)
                    line, name = rng.choice(["read notes.txt", "hello", "go on"]), f"reply: {kind}"
                elif category == "command":
                    line, name = absurd_command(rng, rig), "slash command (fuzzed)"
                else:
                    line, name = hand_edit(rng, rig), "hand-edited row + command"
                t0 = time.perf_counter()
                outcome, events = rig.run(line)
                elapsed = time.perf_counter() - t0
                while fake.pending:  # a reply a failed turn did not consume must not leak into the next round
                    fake._next_reply()
                check(rig, tallies.setdefault(f"{name} [{protocol}]", Tally()), line, outcome, events, elapsed)
                # the session must go on: a plain turn after every round
                fake.enqueue_text("fine")
                t0 = time.perf_counter()
                outcome, events = rig.run("are you still there?")
                follow = tallies.setdefault(f"follow-up turn [{protocol}]", Tally())
                check(rig, follow, "follow-up", outcome, events, time.perf_counter() - t0)
                if not outcome.ok:
                    follow.examples.append(f"follow-up failed after {line[:60]!r}: {outcome.error[:200]}")
        finally:
            for rig in rigs.values():
                rig.app.close()
        logs = [p for rig in rigs.values() for p in (rig.home / "logs").glob("*.log")]
    print_table(tallies, time.perf_counter() - started, args, len(logs))
    bad = sum(t.internal_errors + t.multi_line_errors + t.invalid_requests for t in tallies.values()) + len(logs)
    failed_follow_ups = sum(t.failed_as_expected for name, t in tallies.items() if name.startswith("follow-up"))
    return 1 if bad or failed_follow_ups else 0


def print_table(tallies: dict[str, Tally], seconds: float, args: argparse.Namespace, logs: int) -> None:
    header = (
        f"{'category':46} {'rounds':>6} {'error shown':>11} {'tracebacks':>10} {'multi-line':>10}"
        f" {'invalid req':>11} {'slowest':>8}"
    )
    print(f"stress_hostile: --n {args.n} --seed {args.seed} --big-every {args.big_every}")
    print(header)
    print("-" * len(header))
    for name in sorted(tallies):
        t = tallies[name]
        print(
            f"{name:46} {t.rounds:6} {t.failed_as_expected:11} {t.internal_errors:10} {t.multi_line_errors:10}"
            f" {t.invalid_requests:11} {t.slowest:7.2f}s"
        )
    total = Tally()
    for t in tallies.values():
        total.rounds += t.rounds
        total.internal_errors += t.internal_errors
        total.multi_line_errors += t.multi_line_errors
        total.invalid_requests += t.invalid_requests
    print("-" * len(header))
    print(
        f"{'total':46} {total.rounds:6} {'':11} {total.internal_errors:10} {total.multi_line_errors:10}"
        f" {total.invalid_requests:11} {seconds:7.0f}s wall"
    )
    print(f"debug logs written: {logs}")
    for t in tallies.values():
        for example in t.examples[:3]:
            print("  " + example)


if __name__ == "__main__":
    sys.exit(main())
