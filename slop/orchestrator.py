"""One turn: store the input, assemble, call the model, store the reply, run tools, loop.

Depends on small interfaces only (Provider, EventSink, ToolRunner); no SDK, no
terminal code. Every step is its own transaction, so an interrupted turn leaves whole
rows and a ledger the next turn can continue from."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from slop.context.costs import CURRENT_MARKER
from slop.context.state import extract_state
from slop.context.strategies.base import Summarizer
from slop.errors import CommandError, ProviderError
from slop.parser import with_call_ids
from slop.providers.base import Provider, ProviderReply, ReasoningDelta, StreamEvent, TextDelta
from slop.records import (
    HistoryEntry,
    Layer,
    Message,
    NewMessage,
    Prompt,
    Role,
    Status,
    StatusName,
    ToolCall,
    ToolResult,
    Wire,
)
from slop.snapshot import ContextService
from slop.store import Store
from slop.tokenestimate import estimate
from slop.turnend import TOOLS_CANCELLED, CallFailed, Interrupted, StepLimit, TurnEnded, TurnResult, end_after_reply


class EventSink(Protocol):
    """Where a turn reports what happens (the terminal renderer, or JSON lines)."""

    def user_echo(self, text: str, group_id: str) -> None: ...
    def assistant_start(self) -> None: ...
    def assistant_delta(self, text: str) -> None: ...
    def reasoning_delta(self, text: str) -> None: ...
    def assistant_end(self, tokens: int | None, interrupted: bool = False) -> None: ...
    def tool_call_start(self, name: str, args_json: str) -> None: ...
    def tool_call_done(self, name: str, args_json: str, status: str, duration: float, summary: str) -> None: ...
    def info(self, text: str) -> None: ...
    def warning(self, text: str) -> None: ...
    def error(self, text: str) -> None: ...


class ToolRunner(Protocol):
    """Runs one reply's tool calls; results come back in call order."""

    def run(
        self, calls: Sequence[ToolCall], session_id: str, group_id: str, cancel: threading.Event, sink: EventSink
    ) -> list[ToolResult]: ...


NO_PROVIDER = (
    "no model provider is configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for other OpenAI-compatible "
    "servers) or GEMINI_API_KEY, then restart slop; slash commands work meanwhile"
)


@dataclass
class _Turn:
    """One running turn: where it stores and reports, and what it has so far."""

    session: str
    gid: str
    provider: Provider
    sink: EventSink
    cancel: threading.Event
    answer: str = ""  # the model's text over all steps
    step: int = 0  # model calls made


PLACEHOLDER = "<your next message>"


@dataclass(frozen=True, slots=True)
class Preview:
    """The request the next model call sends if `text` is the next user message."""

    prompt: Prompt
    provider: Provider | None
    text: str
    placeholder: bool  # no message given: `text` is PLACEHOLDER

    def wire_body(self) -> dict[str, Any] | None:
        return self.provider.wire_body(self.prompt) if self.provider else None


class _Discard(Exception):
    """Raised to roll back the preview's transaction."""


class _SummaryDue(Exception):
    """The preview's stand-in summarizer: the real call would first ask for a summary."""


@dataclass
class Orchestrator:
    store: Store
    context: ContextService
    provider: Callable[[], Provider | None]
    tools: ToolRunner
    step_limit: int = 50

    def prompt_for(self, session: str) -> Prompt | None:
        """The exact prompt the next call would send (for /context show)."""
        provider = self.provider()
        wire = provider.wire if provider else Wire.OPENAI
        model = provider.model if provider else ""
        return self.context.prompt(session, wire, model)

    def preview(self, session: str, text: str = "") -> Preview:
        """The prompt of the next call as if `text` (else a placeholder) had been sent now.

        The very steps of a send run (input check, the user row stored, the strategy's
        maintenance, assembly) inside one transaction that is then rolled back, so the
        window count, truncation tiers, memos and ranked / relevance selection are those
        of the real call and nothing is stored. A model-written summary cannot be
        previewed: when one is due, a note says so and the history is shown before it."""
        provider = self.provider()
        wire = provider.wire if provider else Wire.OPENAI
        model = provider.model if provider else ""
        message = text or PLACEHOLDER
        # Only what the user typed is checked: the placeholder stands for a request not yet written.
        rejected = self.context.validate_input(session, text) if text else None
        if rejected:
            raise CommandError(rejected)
        due: list[str] = []

        def summary_probe(instructions: str, transcript: str) -> str:
            due.append(instructions)
            raise _SummaryDue("a summary is due")

        prompt: Prompt | None = None
        try:
            with self.store.db.transaction():
                self._store_request(session, self.store.messages.new_group_id(), message, wire)
                self.context.maintain(session, wire, model, summary_probe if provider else None)
                prompt = self.context.prompt(session, wire, model)
                raise _Discard
        except _Discard:
            pass
        assert prompt is not None
        if due:
            note = (
                "before this call the context mode will ask the model for a summary of older history; "
                "this preview shows the history before that summary"
            )
            prompt = replace(prompt, notes=(*prompt.notes, note))
        return Preview(prompt, provider, message, placeholder=not text)

    def _store_request(self, session: str, gid: str, text: str, wire: str) -> None:
        self.store.messages.append(session, gid, NewMessage(Role.USER, text, parsing_strategy=wire))

    def run_turn(self, session: str, text: str, sink: EventSink, cancel: threading.Event | None = None) -> TurnResult:
        cancel = cancel or threading.Event()
        provider = self.provider()
        if provider is None:
            sink.error(NO_PROVIDER)
            return TurnResult(None, ok=False, error=NO_PROVIDER)
        rejected = self.context.validate_input(session, text)  # e.g. the messages mode's length limit
        if rejected:
            sink.error(rejected)
            return TurnResult(None, ok=False, error=rejected)
        # One running turn per session across processes (docs/reliability.md); a
        # SessionBusy error here leaves the ledger untouched.
        with self.store.turn_locks.hold(session, on_lost=cancel.set):
            closed = self.store.close_unanswered_calls(session)
            if closed:
                sink.info(f"closed {closed} tool call(s) an earlier slop left unfinished (marked cancelled)")
            gid = self.store.messages.new_group_id()
            self._store_request(session, gid, text, provider.wire)
            sink.user_echo(text, gid)
            return self._loop(_Turn(session, gid, provider, sink, cancel))

    def _loop(self, turn: _Turn) -> TurnResult:
        """Step until the turn ends: each step calls the model and runs the tools it asks
        for. How the turn ended is raised where it is learnt and caught here, once."""
        try:
            while turn.step < self.step_limit:
                turn.step += 1
                self._step(turn)
            raise StepLimit(self.step_limit)
        except TurnEnded as ended:
            ended.tell(turn.sink)
            if isinstance(ended, CallFailed):
                self._keep_failed_call(turn, ended)
            return ended.result(turn.gid, turn.answer, turn.step)

    def _step(self, turn: _Turn) -> None:
        """Maintain the context, assemble, call the model, store its reply; run its tools
        unless the reply ends the turn."""
        session, provider, sink = turn.session, turn.provider, turn.sink
        upkeep = self.context.maintain(session, provider.wire, provider.model, self.summarizer(session, turn.cancel))
        for line in upkeep.report:  # compaction by the compact / relevance strategies
            sink.info(line)
        prompt = self.context.prompt(session, provider.wire, provider.model)
        for line in self.context.announce_new_memos():
            sink.warning(line)
        reply = self._call(provider, prompt, sink, turn.cancel)
        calls = self._store_reply(session, turn.gid, provider, reply)
        turn.answer += reply.text
        end_after_reply(reply, calls)
        results = self.tools.run(calls, session, turn.gid, turn.cancel, sink)
        self._store_results(session, turn.gid, provider, results)
        if turn.cancel.is_set():
            raise Interrupted(TOOLS_CANCELLED)
        self._throttle(session, turn.cancel)

    def _keep_failed_call(self, turn: _Turn, failed: CallFailed) -> None:
        """What a failed call streamed is kept, marked interrupted. When the turn's first
        call failed, the request stays in the ledger marked failed, so it is not sent with
        later requests (the model never answered it)."""
        turn.answer += failed.partial
        self._store_partial(turn.session, turn.gid, turn.provider, failed.partial)
        if turn.step == 1:
            self.store.messages.set_group_status(turn.session, turn.gid, Status.FAILED)
            turn.sink.info(
                "your message is kept, marked failed: it is not sent with later requests; /retry sends it again"
            )

    def summarizer(self, session: str, cancel: threading.Event | None = None) -> Summarizer | None:
        """A one-shot call to the active provider for context summaries: not a turn, so
        nothing is stored but its usage. None without a provider."""
        provider = self.provider()
        if provider is None:
            return None

        def summarize(instructions: str, transcript: str) -> str:
            request = Message(0, session, Role.USER, transcript, content_tokens=estimate(transcript))
            prompt = Prompt(
                layers=(Layer("summary instructions", instructions, estimate(instructions)),),
                history=(HistoryEntry(request, transcript, request.content_tokens),),
                tools=(),
                wire=provider.wire,
            )
            reply = provider.stream(prompt, cancel or threading.Event(), lambda _event: None)
            if reply.usage:
                self.store.usage.record(session, None, reply.usage)
            if reply.cancelled:
                raise ProviderError("the summary call was cancelled")
            return reply.text

        return summarize

    def _call(self, provider: Provider, prompt: Prompt, sink: EventSink, cancel: threading.Event) -> ProviderReply:
        """One model call, streamed to the sink; raises CallFailed when the provider fails."""
        sink.assistant_start()

        def on_event(event: StreamEvent) -> None:
            if isinstance(event, TextDelta):
                sink.assistant_delta(event.text)
            elif isinstance(event, ReasoningDelta):
                sink.reasoning_delta(event.text)

        try:
            reply = provider.stream(prompt, cancel, on_event)
        except ProviderError as exc:
            sink.assistant_end(None, interrupted=bool(exc.partial))
            raise CallFailed.of(exc, prompt.total_tokens) from exc
        weight = reply.usage.total_tokens if reply.usage else None
        sink.assistant_end(weight, interrupted=reply.cancelled)
        return reply

    def _store_reply(self, session: str, gid: str, provider: Provider, reply: ProviderReply) -> tuple[ToolCall, ...]:
        """Store the reply; returns its tool calls under the ids they were stored with."""
        weight = reply.usage.total_tokens if reply.usage else None
        calls = () if reply.truncated else reply.tool_calls  # cut calls are not run, nor stored as calls
        with self.store.db.transaction():
            row = None
            if calls:
                ids = self.store.messages.reserve_call_ids([call.id for call in calls])
                native = (
                    reply.native if ids == [c.id for c in calls] else with_call_ids(reply.native, provider.wire, ids)
                )
                calls = tuple(replace(call, id=cid) for call, cid in zip(calls, ids, strict=True))
                row = NewMessage(
                    Role.ASSISTANT,
                    native,
                    Status.TOOL_CALL,
                    parsing_strategy=provider.wire,
                    tokens=weight,
                    reasoning=reply.reasoning or None,
                    call_ids="\n".join(ids),
                )
            elif reply.text or reply.reasoning or not reply.cancelled:
                status: StatusName = (
                    Status.TRUNCATED if reply.truncated else Status.INTERRUPTED if reply.cancelled else Status.COMPLETED
                )
                row = NewMessage(
                    Role.ASSISTANT,
                    reply.text,
                    status,
                    parsing_strategy=provider.wire,
                    tokens=weight,
                    reasoning=reply.reasoning or None,
                )
            if row is not None:
                self.store.messages.append(session, gid, row)
            if reply.usage:
                self.store.usage.record(session, gid, reply.usage)
            state = extract_state(reply.text) if reply.text and not (reply.cancelled or reply.truncated) else None
            if state:
                self.store.sessions.push_state(session, gid, state)
        return calls

    def _store_partial(self, session: str, gid: str, provider: Provider, text: str) -> None:
        if text:
            self.store.messages.append(
                session, gid, NewMessage(Role.ASSISTANT, text, Status.INTERRUPTED, parsing_strategy=provider.wire)
            )

    def _store_results(self, session: str, gid: str, provider: Provider, results: list[ToolResult]) -> None:
        rows = [
            NewMessage(Role.TOOL, r.content, r.status, tool_call_id=r.call_id, parsing_strategy=provider.wire)
            for r in results
        ]
        with self.store.db.transaction():  # all results of one reply, or none
            self.store.messages.append_many(session, gid, rows)
            for r in results:
                self.store.catalog.count_tool_call(r.name)

    def _throttle(self, session: str, cancel: threading.Event) -> None:
        pause = self.store.sessions.get(session).throttle
        if pause > 0:
            cancel.wait(pause)  # interruptible sleep

    def rebuild_state(self, session: str, sink: EventSink, cancel: threading.Event | None = None) -> str:
        """Ask the model for a fresh STATE from the current window; without a model,
        fall back to the last STATE found in the window.

        One call, not a turn: the instruction rides after the window the next request
        would carry and is not stored, so it takes no window slot and leaves no group;
        the STATE it returns is tied to the latest group (an /undo of it takes it back)."""
        provider = self.provider()
        if provider is None:
            return self._state_from_window(session)
        base = self.context.prompt(session, provider.wire, provider.model)
        request = Message(0, session, Role.USER, REBUILD_REQUEST, content_tokens=estimate(REBUILD_REQUEST))
        entry = HistoryEntry(request, CURRENT_MARKER + REBUILD_REQUEST, request.content_tokens)
        history = tuple(  # the instruction is the current request now, not the last user message
            replace(e, content=e.content.removeprefix(CURRENT_MARKER)) for e in base.history
        )
        prompt = replace(base, history=(*history, entry))
        try:
            reply = self._call(provider, prompt, sink, cancel or threading.Event())
        except CallFailed as failed:
            failed.tell(sink)
            return "the STATE rebuild call failed; the previous STATE is kept."
        if reply.usage:
            self.store.usage.record(session, None, reply.usage)
        state = extract_state(reply.text) if not reply.cancelled else None
        if not state:
            return "the model's answer had no usable ### STATE block; the previous STATE is kept."
        self.store.sessions.push_state(session, self.store.messages.last_group_id(session), state)
        return "STATE rebuilt by the model from the current window."

    def _state_from_window(self, session: str) -> str:
        prompt = self.context.prompt(session, Wire.OPENAI, "")
        for entry in reversed(prompt.history):
            if entry.message.role == Role.ASSISTANT:
                state = extract_state(entry.message.content)
                if state:
                    self.store.sessions.push_state(session, entry.message.group_id, state)
                    return "no model reachable: STATE restored from the last STATE block in the window."
        return "no model reachable and no STATE block in the window; the STATE is unchanged."


REBUILD_REQUEST = (
    "Rebuild the ### STATE block from the conversation history in your context. Reply with only a fresh, accurate "
    "### STATE block in the required format (Goal, Context, Resolved, Technical Anchors)."
)
