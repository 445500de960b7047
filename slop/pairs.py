"""Which tool result answers which tool-call row: by position, not by id string alone.

A result belongs to the nearest earlier call row that issued its id and has not had
that id answered yet. Ids are unique per ledger for rows slop writes today (see
`store/messages.py:reserve_call_ids`), but legacy rows and cloned sessions may repeat
`call_0`; matching by position keeps an unanswered call from looking answered by an
older call's result of the same id."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from slop.parser import parse
from slop.records import Message, ParsedMessage, Role, Status

Parse = Callable[[Message], ParsedMessage]


@dataclass(frozen=True, slots=True)
class Pairing:
    """Indexes into the list given to `pair_results`."""

    results: dict[int, list[int]]  # call row -> its results, in stored order
    unanswered: dict[int, list[str]]  # call row -> ids that got no result
    call_ids: dict[int, list[str]]  # call row -> the ids it issued, in call order

    def complete(self, index: int) -> bool:
        return bool(self.call_ids.get(index)) and not self.unanswered.get(index)


def is_call_row(msg: Message) -> bool:
    return msg.role == Role.ASSISTANT and msg.status == Status.TOOL_CALL


def call_ids_of(msg: Message, parse: Parse = parse) -> list[str]:
    if msg.call_ids:
        return [cid for cid in msg.call_ids.split("\n") if cid]
    return [call.id for call in parse(msg).tool_calls]


def pair_results(messages: Sequence[Message], parse: Parse = parse) -> Pairing:
    pending: dict[str, list[int]] = {}  # call id -> call rows still waiting for it, oldest first
    results: dict[int, list[int]] = {}
    call_ids: dict[int, list[str]] = {}
    missing: dict[int, list[str]] = {}
    for index, msg in enumerate(messages):
        if is_call_row(msg):
            ids = call_ids_of(msg, parse)
            call_ids[index], results[index], missing[index] = ids, [], list(ids)
            for cid in ids:
                pending.setdefault(cid, []).append(index)
        elif msg.role == Role.TOOL and msg.tool_call_id:
            waiting = pending.get(msg.tool_call_id)
            if waiting:
                owner = waiting.pop()  # the nearest earlier call row
                results[owner].append(index)
                missing[owner].remove(msg.tool_call_id)
    unanswered = {index: ids for index, ids in missing.items() if ids}
    return Pairing(results, unanswered, call_ids)
