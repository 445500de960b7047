"""Rank fusion and query expansion for the ranked strategy: pure functions over
rankings and stored rows, apart from the strategy's budget filling."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from itertools import chain

from slop.context.textsearch import informative, words
from slop.parser import parse_cached
from slop.records import Message, Role, Status


@dataclass(frozen=True, slots=True)
class Ranked:
    group_id: str
    score: float
    bm25_rank: int | None
    recency_rank: int | None
    expanded_rank: int | None = None


def rrf(
    bm25_order: list[str],
    recency_order: list[str],
    *,
    k: float = 60,
    w_bm25: float = 1.5,
    w_recency: float = 1.0,
    expanded_order: list[str] | None = None,
    w_expanded: float = 0.0,
) -> list[Ranked]:
    """Reciprocal Rank Fusion (1-based ranks): score = sum of w / (k + rank) over the
    rankings a group is in. Best first; ties go to the newer group (ids grow with time)."""
    expanded_order = expanded_order or []
    b = {g: i + 1 for i, g in enumerate(bm25_order)}
    r = {g: i + 1 for i, g in enumerate(recency_order)}
    e = {g: i + 1 for i, g in enumerate(expanded_order)}
    out = []
    for gid in dict.fromkeys([*bm25_order, *recency_order, *expanded_order]):
        score = sum(w / (k + ranks[gid]) for ranks, w in ((b, w_bm25), (r, w_recency), (e, w_expanded)) if gid in ranks)
        out.append(Ranked(gid, score, b.get(gid), r.get(gid), e.get(gid)))
    out.sort(key=lambda x: x.group_id, reverse=True)
    return sorted(out, key=lambda x: -x.score)  # stable: equal scores stay newest first


# What feedback reads of each message: its opening, and of a tool result what a finished
# turn's result shows (TruncationConfig.inactive_limit): a group of an agent turn can hold
# dozens of whole files, 100,000s of characters, whose words are noise to the query.
FEEDBACK_CHARS = 2000
FEEDBACK_RESULT_CHARS = 300


def expansion_terms(messages: list[Message], terms: list[str], n: int) -> list[str]:
    """Pseudo-relevance feedback: the `n` informative words that occur in most of the
    top hits' messages (in two at least, unless there is one), other than the query's
    own; equal counts: the word seen first."""
    if n <= 0 or not messages:
        return []
    per_message = [words(_feedback_text(msg)) for msg in messages]
    distinct = list(map(set, per_message))  # a message counts a word once
    shared: set[str] = set()
    if len(distinct) == 1:
        shared = distinct[0]
    else:  # set algebra in C: a few thousand words, of which a few hundred recur
        once: set[str] = set()
        for message_words in distinct:
            shared |= message_words & once
            once |= message_words
    shared = {w for w in shared.difference(terms) if not w.isdigit() and informative(w)}
    counts = Counter(chain.from_iterable(message_words & shared for message_words in distinct))
    # text order (not a set's: that follows the per-process hash seed), kept by the stable sort
    in_order = [w for w in dict.fromkeys(chain.from_iterable(per_message)) if w in shared]
    return sorted(in_order, key=counts.__getitem__, reverse=True)[:n]


def _feedback_text(msg: Message) -> str:
    if msg.role == Role.TOOL:
        return msg.content[:FEEDBACK_RESULT_CHARS]
    return readable(msg)[:FEEDBACK_CHARS]


def readable(msg: Message) -> str:
    """What a row says, without the provider's JSON structure: a tool-call row's keys
    ("role", "tool_calls", "function", ...) are in every such row, so as expansion words
    they would match every tool call of the session. The tool's name is left out for
    the same reason: "read" and "file" of read_file are in every call of that tool (a
    third of a busy session's rows), so as expansion words they widened the query to
    all of them, and made the expanded search read them all."""
    if msg.status != Status.TOOL_CALL:
        return msg.content
    parsed = parse_cached(msg)
    return " ".join([parsed.text, *(_values(c.arguments) for c in parsed.tool_calls)])


def _values(arguments: str) -> str:
    """The argument values of a call (its keys are structure too)."""
    try:
        data = json.loads(arguments or "{}")
    except ValueError:
        return arguments
    return " ".join(str(v) for v in data.values()) if isinstance(data, dict) else str(data)
