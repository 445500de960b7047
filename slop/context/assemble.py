"""assemble(snapshot) -> Prompt: the one function that decides what the model sees.

Used for every model call and by /context show, so what the user inspects is what the
model gets. Pure: no I/O; the caller loads a Snapshot from the store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from slop.context import layers as L
from slop.context.history import enforce_pairs, group_order, isolate
from slop.context.tokens import estimate
from slop.context.truncate import TruncationConfig, limit_for, sandwich
from slop.parser import parse
from slop.records import HistoryEntry, Layer, Memo, Message, ParsedMessage, Prompt, Role, SessionInfo, Skill, ToolSpec

BEGIN_MARKER = "## Begin Conversation History\n"
CURRENT_MARKER = "## End of History\n\n### CURRENT REQUEST\n"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything assembly needs, loaded from the store for one moment of one session."""

    session: SessionInfo
    history: tuple[Message, ...]  # already selected by the context strategy, oldest first
    strategy: str = "openai"
    state: str = ""
    memos: tuple[Memo, ...] = ()
    skills: tuple[Skill, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    budget: int = 0  # prompt token budget; 0 = no guard
    output_limit: int = 0  # the reply's token limit the request states; 0 = none
    files_read: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # what the strategy chose and why
    strategy_layer: str = ""  # e.g. the ranked strategy's "history has gaps" note


@dataclass(frozen=True, slots=True)
class AssemblyConfig:
    truncation: TruncationConfig = field(default_factory=TruncationConfig)
    count: Callable[[str], int] = estimate  # for layer texts; messages carry their counts
    exact_tokens: bool = True
    system_prompt: str = L.SYSTEM_PROMPT
    # Reads a stored row (parser.parse); a caller may pass a memoised one: rows never
    # change once written, and the same window is parsed on every model call.
    parse: Callable[[Message], ParsedMessage] = parse


def assemble(snapshot: Snapshot, config: AssemblyConfig | None = None) -> Prompt:
    config = config or AssemblyConfig()
    layers = build_layers(snapshot, config)
    history = enforce_pairs(isolate(list(snapshot.history), snapshot.strategy, config.parse), config.parse)
    entries = history_entries(history, config)
    notes = list(snapshot.notes)
    if snapshot.budget > 0:
        entries, dropped = fit_budget(entries, snapshot.budget - sum(layer.tokens for layer in layers))
        if dropped:
            notes.append(
                f"Budget guard: left out {len(dropped)} oldest group(s) to fit {snapshot.budget} tokens: "
                + ", ".join(dropped)
            )
    return Prompt(
        layers=tuple(layers),
        history=tuple(add_markers(entries, config)),
        tools=snapshot.tools,
        strategy=snapshot.strategy,
        budget=snapshot.budget,
        output_limit=snapshot.output_limit,
        notes=tuple(notes),
        token_estimate_exact=config.exact_tokens,
    )


def build_layers(snapshot: Snapshot, config: AssemblyConfig) -> list[Layer]:
    texts = [
        ("system prompt", config.system_prompt),
        ("tools", L.tools_layer(snapshot.tools)),
        ("skills", L.skills_layer(snapshot.skills)),
        ("history guidelines", L.GUIDELINES),
        ("strategy", snapshot.strategy_layer),
        ("state", L.state_layer(snapshot.state)),
        ("scratchpad", L.scratchpad_layer(snapshot.session.scratchpad)),
        ("memos", L.memos_layer(snapshot.memos)),
        ("files read", L.files_read_layer(snapshot.files_read)),
    ]
    return [Layer(name, text, config.count(text)) for name, text in texts if text]


def history_entries(history: list[Message], config: AssemblyConfig) -> list[HistoryEntry]:
    """Apply three-tier truncation to tool results; everything else passes whole."""
    active = history[-1].group_id if history else None
    active_results = [m.id for m in history if m.role == Role.TOOL and m.group_id == active and active]
    rank_from_end = {mid: len(active_results) - 1 - i for i, mid in enumerate(active_results)}
    entries = []
    for msg in history:
        own = msg.content_tokens or estimate(msg.content)
        if msg.role != Role.TOOL:
            entries.append(HistoryEntry(msg, msg.content, own))
            continue
        in_active = msg.id in rank_from_end
        limit = limit_for(rank_from_end.get(msg.id, 0), in_active, config.truncation)
        text = sandwich(msg.content, limit, msg.id)
        if text is msg.content:
            entries.append(HistoryEntry(msg, text, own))
        else:
            scaled = max(1, round(own * len(text) / max(1, len(msg.content))))
            entries.append(HistoryEntry(msg, text, scaled, truncated=True))
    return entries


def fit_budget(entries: list[HistoryEntry], room: int) -> tuple[list[HistoryEntry], list[str]]:
    """Drop whole oldest groups (never the current one) until the history fits `room`."""
    total = sum(e.tokens for e in entries)
    if total <= room:
        return entries, []
    groups = group_order([e.message for e in entries])
    current = entries[-1].message.group_id if entries else None
    sizes: dict[str | None, int] = {}
    for e in entries:
        sizes[e.message.group_id] = sizes.get(e.message.group_id, 0) + e.tokens
    dropped: list[str] = []
    for gid in groups:
        if total <= room or gid == current:
            break
        dropped.append(gid)
        total -= sizes[gid]
    gone = set(dropped)
    return [e for e in entries if e.message.group_id not in gone], dropped


def add_markers(entries: list[HistoryEntry], config: AssemblyConfig) -> list[HistoryEntry]:
    """Mark where history begins and which message is the current request."""
    if not entries:
        return entries
    out = list(entries)
    first, last = out[0], out[-1]
    if first.message.role in (Role.USER, Role.ASSISTANT) and first.message.status != "tool_call":
        out[0] = HistoryEntry(first.message, BEGIN_MARKER + first.content, first.tokens + 8, first.truncated)
    if len(out) > 1 and last.message.role == Role.USER:
        out[-1] = HistoryEntry(last.message, CURRENT_MARKER + last.content, last.tokens + 12, last.truncated)
    return out
