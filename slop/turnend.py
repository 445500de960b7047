"""How a turn ends. Each ending is an exception, raised where the turn loop learns it
(the reply was cut off, the user pressed Esc, the model call failed...) and caught once
by `Orchestrator._loop`, the pattern of mini-swe-agent's `TerminatingException`. An
ending knows what the user is told and what the turn's result says; the loop only
stores what a failed call leaves behind.

These are not errors in the `slop.errors` sense: none leaves the orchestrator, and one
of them (`Answered`) is the turn going well."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol

from slop.errors import ContextTooLong, ProviderError
from slop.providers.base import ProviderReply
from slop.records import ToolCall

TRUNCATED = "the reply hit the output limit"
EMPTY_REPLY = "the model sent an empty reply; send 'continue' or rephrase the request"
STREAM_CANCELLED = "turn cancelled; the partial reply is kept and marked interrupted"
TOOLS_CANCELLED = "turn cancelled; running tools were stopped"


class Notices(Protocol):
    """Where an ending tells the user (the turn's EventSink)."""

    def warning(self, text: str) -> None: ...
    def error(self, text: str) -> None: ...


@dataclass
class TurnResult:
    """What `run_turn` returns: the group the turn stored (None when nothing was stored),
    whether it went well, the model's text and how many model calls it made."""

    group_id: str | None
    ok: bool
    text: str = ""
    error: str = ""
    interrupted: bool = False
    steps: int = 0


class TurnEnded(Exception):
    """A turn is over. `notice` is the line the user sees (a warning), `error` what the
    result reports ("" when the turn went well or the user stopped it)."""

    ok: ClassVar[bool] = False
    interrupted: bool = False

    def __init__(self, notice: str = "", error: str = "") -> None:
        super().__init__(notice or error)
        self.notice = notice
        self.error = error

    def tell(self, out: Notices) -> None:
        if self.notice:
            out.warning(self.notice)

    def result(self, group_id: str, text: str, steps: int) -> TurnResult:
        return TurnResult(group_id, self.ok, text, self.error, self.interrupted, steps)


class Answered(TurnEnded):
    """The model answered with text and asked for no tool: the turn is done."""

    ok = True


class EmptyReply(TurnEnded):
    """The model answered with nothing at all."""

    def __init__(self) -> None:
        super().__init__(EMPTY_REPLY, EMPTY_REPLY)


class Interrupted(TurnEnded):
    """The user cancelled (Esc, Ctrl-C, a signal) while the model wrote or tools ran."""

    interrupted = True


class Truncated(TurnEnded):
    """The reply hit the output limit: it is kept, marked truncated, its calls not run."""

    def __init__(self, reply: ProviderReply) -> None:
        super().__init__(_truncated_notice(reply), TRUNCATED)


class ToolCallAsText(TurnEnded):
    """The reply wrote a tool call as text that could not be run (a local model without
    native tool calls, see `providers/text_tools`): said, and kept as it came."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem, problem)


class StepLimit(TurnEnded):
    """The turn made as many model calls as one turn may."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"stopped after {limit} model calls in one turn (step limit); send 'continue' to go on", "step limit"
        )


class CallFailed(TurnEnded):
    """The model call raised. What it streamed before (`partial`) is kept, and a request
    the model never answered is marked failed; the error line is the server's message."""

    def __init__(self, message: str, partial: str = "") -> None:
        super().__init__(error=message)
        self.partial = partial
        self.interrupted = bool(partial)

    def tell(self, out: Notices) -> None:
        out.error(self.error)

    @staticmethod
    def of(exc: ProviderError, prompt_tokens: int) -> CallFailed:
        message = " ".join(str(exc).split())  # one line, whatever the server's message held
        if isinstance(exc, ContextTooLong):
            return PromptTooLong(message, prompt_tokens, exc.partial)
        return CallFailed(message, exc.partial)


class PromptTooLong(CallFailed):
    """The server refused the assembled prompt as too large: the line says how to shrink it."""

    def __init__(self, message: str, prompt_tokens: int, partial: str = "") -> None:
        super().__init__(
            f"{message} (assembled prompt: ~{prompt_tokens} tokens; shrink it with /context window N"
            " or /context drop GID)",
            partial,
        )


def end_after_reply(reply: ProviderReply, calls: tuple[ToolCall, ...]) -> None:
    """Raise how the turn ends if this (stored) reply ends it; return when its tool
    calls are to run."""
    if reply.cancelled:
        raise Interrupted(STREAM_CANCELLED)
    if reply.truncated:
        raise Truncated(reply)
    if not reply.tool_calls and reply.text_tool_problem:
        raise ToolCallAsText(reply.text_tool_problem)
    if not calls:
        if not reply.text.strip():
            raise EmptyReply
        raise Answered


def _truncated_notice(reply: ProviderReply) -> str:
    produced = (
        f" after {reply.usage.completion_tokens:,} tokens" if reply.usage and reply.usage.completion_tokens else ""
    )
    calls = len(reply.tool_calls)
    skipped = f"; its {calls} unfinished tool call(s) were not run" if calls else ""
    return (
        f"{TRUNCATED}{produced} and was cut off{skipped}; it is stored marked truncated. "
        "Ask for a shorter answer or one step at a time, or send 'continue'"
    )
