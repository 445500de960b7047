"""The prefix-cache model the benchmarks bill with, and what the layouts and the window
step do to it."""

from __future__ import annotations

from dataclasses import replace

from slop.context.assemble import Snapshot, assemble
from slop.context.layout import CONTEXT_HEADER
from slop.context.prefix_cache import CacheMeter, billed_equivalent, cached_tokens
from slop.context.strategies.window import stepped_window
from slop.records import Message, Prompt, Role, SessionInfo, ToolSpec

TOOLS = (ToolSpec("execute_bash", "Run a command", {"type": "object", "properties": {"command": {"type": "string"}}}),)


def test_cached_tokens_follow_the_documented_rules() -> None:
    assert cached_tokens(5000, 1000) == 0  # a prompt under 1,024 tokens is never cached
    assert cached_tokens(1000, 4000) == 0  # nor a common prefix under 1,024
    assert cached_tokens(1100, 4000) == 1024  # 128-token blocks, rounded down
    assert cached_tokens(9999, 3000) == 2944  # never more than the prompt
    assert billed_equivalent(4000, 2000) == 2500


def conversation(turns: int) -> list[Message]:
    rows = []
    for i in range(turns):
        gid = f"{i:04d}"
        rows.append(
            Message(
                2 * i + 1, "s", Role.USER, f"question {i} " + "about the server " * 40, group_id=gid, content_tokens=170
            )
        )
        rows.append(
            Message(
                2 * i + 2,
                "s",
                Role.ASSISTANT,
                f"answer {i} " + "it listens on 8443 " * 40,
                group_id=gid,
                content_tokens=210,
            )
        )
    return rows


def calls(layout: str, turns: int = 12, step: int = 1, budget: int = 0) -> CacheMeter:
    """A session where every turn adds a group and changes the STATE, billed call by call."""
    meter = CacheMeter()
    rows = conversation(turns)
    session = SessionInfo("s", options={"layout": layout, "window_step": step})
    for n in range(1, turns + 1):
        snapshot = Snapshot(
            session, tuple(rows[: 2 * n]), state=f"### STATE\nGoal: turn {n}", tools=TOOLS, budget=budget
        )
        meter.observe(assemble(snapshot))
    return meter


def test_the_cache_layout_keeps_the_history_cacheable_when_the_state_changes() -> None:
    seed, cache = calls("seed"), calls("cache")
    assert seed.prompt_tokens > 0 and abs(seed.prompt_tokens - cache.prompt_tokens) < seed.prompt_tokens * 0.02
    # seed: the STATE sits in the system instruction, before the history: only what
    # comes before it can be cached, and that is under 1,024 tokens here.
    assert seed.cached == 0
    assert cache.cached_share > 0.5 and cache.billed < 0.7 * seed.billed


def test_the_context_message_sits_right_before_the_current_request() -> None:
    prompt: Prompt = assemble(
        Snapshot(SessionInfo("s", options={"layout": "cache"}), tuple(conversation(3)), state="### STATE\nGoal: g")
    )
    assert "## Global State (Anchor)" not in prompt.system_text
    contents = [e.content for e in prompt.history]
    request = next(i for i, c in enumerate(contents) if "### CURRENT REQUEST" in c)
    assert contents[request - 1].startswith(CONTEXT_HEADER) and "Goal: g" in contents[request - 1]
    assert sum(c.startswith(CONTEXT_HEADER) for c in contents) == 1
    seed = assemble(Snapshot(SessionInfo("s"), tuple(conversation(3)), state="### STATE\nGoal: g"))
    assert "## Global State (Anchor)" in seed.system_text and not any(
        e.content.startswith(CONTEXT_HEADER) for e in seed.history
    )
    # Same layers, same tokens, only placed differently.
    assert abs(prompt.total_tokens - seed.total_tokens) <= 12


def test_stepped_window_keeps_its_first_group_for_several_turns() -> None:
    firsts = [stepped_window(groups, 5, 4) for groups in range(1, 20)]
    assert firsts[:5] == [1, 2, 3, 4, 5]  # fills up to N
    dropped = [g - k for g, k in zip(range(1, 20), firsts, strict=True)]
    assert all(d % 4 == 0 for d in dropped)  # slides 4 groups at a time
    assert all(2 <= k <= 5 for k in firsts[4:])  # between N - step + 1 and N groups
    assert stepped_window(19, 5, 1) == 5


def test_the_budget_guard_slides_in_steps_too() -> None:
    one, four = calls("cache", turns=24, budget=3000), calls("cache", turns=24, step=4, budget=3000)
    assert four.cached > one.cached  # the first group kept stays put for several turns
    session = SessionInfo("s", options={"window_step": 4})
    rows = conversation(24)
    firsts = set()
    for n in range(12, 24):
        prompt = assemble(Snapshot(replace(session), tuple(rows[: 2 * n]), tools=TOOLS, budget=3000))
        assert prompt.total_tokens <= 3000
        firsts.add(prompt.history[0].message.group_id)
    assert len(firsts) <= 4  # 12 turns, the window's first group changed every 4 at most
