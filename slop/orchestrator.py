"""One turn: store the input, assemble, call the model, store the reply, run tools, loop.

Depends on small interfaces only (Provider, EventSink, ToolRunner); no SDK, no
terminal code. Every step is its own transaction, so an interrupted turn leaves whole
rows and a ledger the next turn can continue from."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from slop.context.state import extract_state
from slop.context.strategies import Summarizer
from slop.context.tokens import estimate
from slop.errors import ContextTooLong, ProviderError
from slop.providers.base import Provider, ProviderReply, ReasoningDelta, StreamEvent, TextDelta
from slop.records import HistoryEntry, Layer, Message, NewMessage, Prompt, Role, Status, ToolCall, ToolResult
from slop.snapshot import ContextService
from slop.store import Store


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
class TurnResult:
    group_id: str | None
    ok: bool
    text: str = ""
    error: str = ""
    interrupted: bool = False
    steps: int = 0


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
        strategy = provider.strategy if provider else "openai"
        model = provider.model if provider else ""
        return self.context.prompt(session, strategy, model)

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
        gid = self.store.messages.new_group_id()
        self.store.messages.append(session, gid, NewMessage(Role.USER, text, parsing_strategy=provider.strategy))
        sink.user_echo(text, gid)
        return self._loop(session, gid, provider, sink, cancel)

    def _loop(self, session: str, gid: str, provider: Provider, sink: EventSink, cancel: threading.Event) -> TurnResult:
        answer = ""
        for step in range(1, self.step_limit + 1):
            upkeep = self.context.maintain(session, provider.strategy, provider.model, self.summarizer(session, cancel))
            for line in upkeep.report:  # compaction by the compact / relevance strategies
                sink.info(line)
            prompt = self.context.prompt(session, provider.strategy, provider.model)
            for line in self.context.announce_new_memos():
                sink.warning(line)
            reply = self._call(provider, prompt, sink, cancel)
            if isinstance(reply, TurnResult):
                reply.group_id = gid
                if reply.interrupted or reply.text:
                    self._store_partial(session, gid, provider, reply.text)
                return reply
            self._store_reply(session, gid, provider, reply)
            answer += reply.text
            if reply.cancelled:
                sink.warning("turn cancelled; the partial reply is kept and marked interrupted")
                return TurnResult(gid, ok=False, text=answer, interrupted=True, steps=step)
            if not reply.tool_calls:
                return TurnResult(gid, ok=True, text=answer, steps=step)
            results = self.tools.run(reply.tool_calls, session, gid, cancel, sink)
            self._store_results(session, gid, provider, results)
            if cancel.is_set():
                sink.warning("turn cancelled; running tools were stopped")
                return TurnResult(gid, ok=False, text=answer, interrupted=True, steps=step)
            self._throttle(session, cancel)
        sink.warning(f"stopped after {self.step_limit} model calls in one turn (step limit); send 'continue' to go on")
        return TurnResult(gid, ok=False, text=answer, error="step limit", steps=self.step_limit)

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
                strategy=provider.strategy,
            )
            reply = provider.stream(prompt, cancel or threading.Event(), lambda _event: None)
            if reply.usage:
                self.store.usage.record(session, None, reply.usage)
            if reply.cancelled:
                raise ProviderError("the summary call was cancelled")
            return reply.text

        return summarize

    def _call(
        self, provider: Provider, prompt: Prompt, sink: EventSink, cancel: threading.Event
    ) -> ProviderReply | TurnResult:
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
            message = str(exc)
            if isinstance(exc, ContextTooLong):
                message += (
                    f" (assembled prompt: ~{prompt.total_tokens} tokens; shrink it with /context window N"
                    " or /context drop GID)"
                )
            sink.error(message)
            return TurnResult(None, ok=False, text=exc.partial, error=message, interrupted=bool(exc.partial))
        weight = reply.usage.total_tokens if reply.usage else None
        sink.assistant_end(weight, interrupted=reply.cancelled)
        return reply

    def _store_reply(self, session: str, gid: str, provider: Provider, reply: ProviderReply) -> None:
        weight = reply.usage.total_tokens if reply.usage else None
        if reply.tool_calls:
            row = NewMessage(
                Role.ASSISTANT,
                reply.native,
                Status.TOOL_CALL,
                parsing_strategy=provider.strategy,
                tokens=weight,
                reasoning=reply.reasoning or None,
                call_ids="\n".join(call.id for call in reply.tool_calls),
            )
        elif reply.text or reply.reasoning or not reply.cancelled:
            status = Status.INTERRUPTED if reply.cancelled else Status.COMPLETED
            row = NewMessage(
                Role.ASSISTANT,
                reply.text,
                status,
                parsing_strategy=provider.strategy,
                tokens=weight,
                reasoning=reply.reasoning or None,
            )
        else:
            row = None
        with self.store.db.transaction():
            if row is not None:
                self.store.messages.append(session, gid, row)
            if reply.usage:
                self.store.usage.record(session, gid, reply.usage)
            state = extract_state(reply.text) if reply.text and not reply.cancelled else None
            if state:
                self.store.sessions.push_state(session, gid, state)

    def _store_partial(self, session: str, gid: str, provider: Provider, text: str) -> None:
        if text:
            self.store.messages.append(
                session, gid, NewMessage(Role.ASSISTANT, text, Status.INTERRUPTED, parsing_strategy=provider.strategy)
            )

    def _store_results(self, session: str, gid: str, provider: Provider, results: list[ToolResult]) -> None:
        rows = [
            NewMessage(Role.TOOL, r.content, r.status, tool_call_id=r.call_id, parsing_strategy=provider.strategy)
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
        fall back to the last STATE found in the window."""
        provider = self.provider()
        if provider is not None:
            result = self.run_turn(session, REBUILD_REQUEST, sink, cancel)
            if result.ok and extract_state(result.text):
                return "STATE rebuilt by the model from the current window."
            if result.ok:
                return "the model's answer had no usable ### STATE block; the previous STATE is kept."
        return self._state_from_window(session)

    def _state_from_window(self, session: str) -> str:
        prompt = self.context.prompt(session, "openai", "")
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
