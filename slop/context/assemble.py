"""assemble(snapshot) -> Prompt: the one function that decides what the model sees.

Used for every model call and by /context show, so what the user inspects is what the
model gets. Pure: no I/O; the caller loads a Snapshot from the store."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from slop.context import layers as L
from slop.context.costs import BEGIN_MARKER, CURRENT_MARKER, kept_tokens, marker_tokens, own_tokens
from slop.context.group_cut import cut_current_group
from slop.context.history import enforce_pairs, group_order, isolate
from slop.context.layout import CONTEXT_HEADER, CONTEXT_MESSAGE_ID, layout_of, split_layers
from slop.context.options import TRUNCATE_ONCE, WINDOW_STEP, option
from slop.context.truncate import TruncationConfig, limit_for, sandwich
from slop.parser import parse
from slop.records import (
    ATTACHMENT_OPEN,
    HistoryEntry,
    Layer,
    Memo,
    Message,
    ParsedMessage,
    Prompt,
    Role,
    SessionInfo,
    Skill,
    Status,
    ToolSpec,
)
from slop.tokenestimate import estimate

INTERRUPTED_NOTE = "\n\n[interrupted by the user]"  # so the model knows the reply is cut short


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything assembly needs, loaded from the store for one moment of one session."""

    session: SessionInfo
    history: tuple[Message, ...]  # already selected by the context strategy, oldest first
    wire: str = "openai"  # the wire format of the provider the prompt is for
    state: str = ""
    memos: tuple[Memo, ...] = ()
    skills: tuple[Skill, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    budget: int = 0  # prompt token budget; 0 = no guard
    output_limit: int = 0  # the reply's token limit the request states; 0 = none
    files_read: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # what the strategy chose and why
    strategy_layer: str = ""  # e.g. the ranked strategy's "history has gaps" note
    instructions: str = ""  # the project instruction files (AGENTS.md ...), already rendered


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
    layers, volatile = split_layers(build_layers(snapshot, config), layout_of(snapshot.session))
    context_entry = volatile_entry(volatile, config)
    tool_tokens = definitions_tokens(snapshot.tools, config.count)
    history = enforce_pairs(isolate(list(snapshot.history), snapshot.wire, config.parse), config.parse)
    once = bool(option(snapshot.session, TRUNCATE_ONCE))
    entries = history_entries(history, config, once=once)
    notes = list(snapshot.notes)
    if snapshot.budget > 0:
        # The markers are added after the guard: keep room for them.
        room = snapshot.budget - sum(layer.tokens for layer in layers) - tool_tokens - marker_tokens(config.count)
        room -= context_entry.tokens if context_entry else 0
        entries, dropped = fit_budget(entries, room, int(option(snapshot.session, WINDOW_STEP)))
        if dropped:
            notes.append(
                f"Budget guard: left out {len(dropped)} oldest group(s) to fit {snapshot.budget} tokens: "
                + ", ".join(dropped)
            )
        cut = cut_current_group(entries, room, config.truncation.inactive_limit, config.count)
        entries = cut.entries
        if cut.note:
            notes.append(cut.note)
    return Prompt(
        layers=tuple(layers),
        history=tuple(place_volatile(add_markers(entries, config), context_entry)),
        tools=snapshot.tools,
        tool_tokens=tool_tokens,
        wire=snapshot.wire,
        budget=snapshot.budget,
        output_limit=snapshot.output_limit,
        notes=tuple(notes),
        token_estimate_exact=config.exact_tokens,
    )


def build_layers(snapshot: Snapshot, config: AssemblyConfig) -> list[Layer]:
    texts = [
        # The tools go out once, as the request's function definitions (counted apart,
        # see definitions_tokens), not repeated as a text layer.
        ("system prompt", config.system_prompt),
        # Stable for a whole session (until the user edits a file): next to the system
        # prompt so a provider's prompt cache keeps the prefix.
        ("project instructions", snapshot.instructions),
        ("skills", L.skills_layer(snapshot.skills)),
        ("history guidelines", L.GUIDELINES),
        ("strategy", snapshot.strategy_layer),
        ("state", L.state_layer(snapshot.state)),
        ("scratchpad", L.scratchpad_layer(snapshot.session.scratchpad)),
        ("memos", L.memos_layer(snapshot.memos)),
        ("files read", L.files_read_layer(snapshot.files_read)),
    ]
    return [Layer(name, text, config.count(text)) for name, text in texts if text]


def definitions_tokens(tools: Sequence[ToolSpec], count: Callable[[str], int]) -> int:
    """What the tool definitions cost: their names, descriptions and JSON schemas as the
    request carries them (provider framing aside)."""
    if not tools:
        return 0
    return count(json.dumps([[t.name, t.description, t.parameters] for t in tools], ensure_ascii=False))


def history_entries(history: list[Message], config: AssemblyConfig, *, once: bool = False) -> list[HistoryEntry]:
    """Apply three-tier truncation to tool results; everything else passes whole.

    `once`: a result stays whole (up to the full limit) while it is one of the newest
    `full_count` results of the history, whatever its group, then is cut once to the
    short limit (no middle tier, no re-cut when its turn ends)."""
    active = history[-1].group_id if history else None
    paged = paged_call_ids(history, active, config)
    active_results = [
        m.id
        for m in history
        if m.role == Role.TOOL and (once or (m.group_id == active and active)) and m.tool_call_id not in paged
    ]
    rank_from_end = {mid: len(active_results) - 1 - i for i, mid in enumerate(active_results)}
    entries = []
    for msg in history:
        own = own_tokens(msg)
        if msg.role == Role.ASSISTANT and msg.status == Status.INTERRUPTED:
            entries.append(HistoryEntry(msg, msg.content + INTERRUPTED_NOTE, own + config.count(INTERRUPTED_NOTE)))
            continue
        if msg.role == Role.USER and ATTACHMENT_OPEN in msg.content:
            entries.append(_cut(msg, own, config.truncation.attachment_limit))
            continue
        if msg.role != Role.TOOL:
            entries.append(HistoryEntry(msg, msg.content, own))
            continue
        if msg.tool_call_id in paged:  # a query_db page of the running turn: already at most one page
            entries.append(HistoryEntry(msg, msg.content, own))
            continue
        in_active = msg.id in rank_from_end
        limit = limit_for(rank_from_end.get(msg.id, 0), in_active, config.truncation)
        if once and in_active and limit == config.truncation.degraded_limit:
            limit = config.truncation.inactive_limit
        entries.append(_cut(msg, own, limit))
    return entries


def _cut(msg: Message, own: int, limit: int) -> HistoryEntry:
    """The row whole, or its head and tail around the query_db hint that pages the rest."""
    text = sandwich(msg.content, limit, msg.id)
    if text is msg.content:
        return HistoryEntry(msg, text, own)
    return HistoryEntry(msg, text, kept_tokens(own, len(text), len(msg.content)), truncated=True)


PAGED_TOOLS = ("query_db",)  # tools whose results are pages the model asked for


def paged_call_ids(history: list[Message], active: str | None, config: AssemblyConfig) -> set[str]:
    """Call ids of the running turn's query_db calls: their results stay whole while the
    turn runs (truncating one would point the model at the very row it just read)."""
    if not active:
        return set()
    ids: set[str] = set()
    for msg in history:
        if msg.group_id == active and msg.status == Status.TOOL_CALL:
            ids |= {c.id for c in config.parse(msg).tool_calls if c.name in PAGED_TOOLS}
    return ids


def fit_budget(entries: list[HistoryEntry], room: int, step: int = 1) -> tuple[list[HistoryEntry], list[str]]:
    """Drop whole oldest groups (never the current one) until the history fits `room`;
    with `step` > 1 a multiple of `step` groups, so the first group kept stays the same
    while the history grows (the request's prefix stays cacheable)."""
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
        if gid == current or (total <= room and len(dropped) % max(1, step) == 0):
            break
        dropped.append(gid)
        total -= sizes[gid]
    gone = set(dropped)
    return [e for e in entries if e.message.group_id not in gone], dropped


def add_markers(entries: list[HistoryEntry], config: AssemblyConfig) -> list[HistoryEntry]:
    """Mark where history begins and which message is the current request: the latest
    user message of the last group, on every call of the turn (not only the first), so
    the request's prefix stays the same while the turn runs."""
    if not entries:
        return entries
    out = list(entries)
    first = out[0]
    if first.message.role in (Role.USER, Role.ASSISTANT) and first.message.status != "tool_call":
        out[0] = _marked(first, BEGIN_MARKER, config)
    current = current_request_index(out)
    if current is not None and current > 0:
        out[current] = _marked(out[current], CURRENT_MARKER, config)
    return out


def current_request_index(entries: list[HistoryEntry]) -> int | None:
    """Index of the latest user message of the last group, if the last group has one."""
    last_group = entries[-1].message.group_id if entries else None
    for i in range(len(entries) - 1, -1, -1):
        msg = entries[i].message
        if msg.group_id != last_group:
            return None
        if msg.role == Role.USER:
            return i
    return None


def _marked(entry: HistoryEntry, marker: str, config: AssemblyConfig) -> HistoryEntry:
    return HistoryEntry(entry.message, marker + entry.content, entry.tokens + config.count(marker), entry.truncated)


def volatile_entry(volatile: list[Layer], config: AssemblyConfig) -> HistoryEntry | None:
    """The cache layout's context message: the volatile layers as one user message."""
    if not volatile:
        return None
    text = CONTEXT_HEADER + "\n\n".join(layer.text for layer in volatile)
    message = Message(CONTEXT_MESSAGE_ID, "", Role.USER, text)
    return HistoryEntry(message, text, config.count(text))


def place_volatile(entries: list[HistoryEntry], context: HistoryEntry | None) -> list[HistoryEntry]:
    """The context message goes right before the current request (at the end when the
    last group has no request), in the request's group and wire format."""
    if context is None:
        return entries
    at = current_request_index(entries) if entries else None
    if at is None:
        at = len(entries)
    anchor = entries[at].message if at < len(entries) else (entries[-1].message if entries else None)
    if anchor is not None:
        message = replace(
            context.message,
            session_id=anchor.session_id,
            group_id=anchor.group_id,
            parsing_strategy=anchor.parsing_strategy,
        )
        context = HistoryEntry(message, context.content, context.tokens)
    return [*entries[:at], context, *entries[at:]]
