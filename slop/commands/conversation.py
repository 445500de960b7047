"""What the user's inputs change as they go, between commands and turns: the one mutable
part of a CommandContext (typed fields, where an untyped dict used to be)."""

from __future__ import annotations

from dataclasses import dataclass, field

from slop.commands.helpers import fence

MAX_ATTACHED_CHARS = 40_000  # one `!!` output's share of the next message; the head and tail are kept


@dataclass(frozen=True, slots=True)
class ShellOutput:
    """A `!!command` run, waiting to go in front of the next message sent to the model."""

    command: str
    output: str
    code: int | None
    problem: str

    def for_model(self) -> str:
        status = self.problem or f"exit code {self.code}"
        body = cut_middle(self.output.rstrip("\n"), MAX_ATTACHED_CHARS)
        return f"Output of `{self.command}` ({status}), run by the user:\n{fence(body or '(no output)')}"


@dataclass(slots=True)
class Conversation:
    """One per REPL or batch run. `session` is the current session's name (/session
    switches it); `last_input` what /edit opens; `waiting` the `!!` outputs the next
    message carries; `model_names` the names the last /models listed, per provider (what
    /model completes and checks against, without asking the network)."""

    session: str = "default"
    last_input: str = ""
    waiting: list[ShellOutput] = field(default_factory=list)
    model_names: dict[str, list[str]] = field(default_factory=dict)


def cut_middle(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    left = len(text) - 2 * half
    return f"{text[:half]}\n[... {left} characters of output left out ...]\n{text[-half:]}"
