"""Who may change files or run commands: ask (y once / a always / n), yes, or read-only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from slop.records import ToolCall

Ask = Callable[[ToolCall, str], str]  # returns "y", "a" or "n"


@dataclass
class ApprovalPolicy:
    mode: str = "ask"  # ask | yes | read-only
    ask: Ask | None = None  # None: nobody to ask (batch mode)
    on_refusal: Callable[[str], None] | None = None
    always: set[str] = field(default_factory=set)
    # shows what an approved-without-asking call will change (--yes, or after "a")
    show: Callable[[ToolCall, str], None] | None = None

    def approve(self, call: ToolCall, preview: str) -> bool:
        # read-only is checked first: neither --yes nor an earlier "always" may override it
        if self.mode == "read-only":
            self._refused(f"{call.name} refused: slop runs with --read-only")
            return False
        if self.mode == "yes" or call.name in self.always:
            if self.show is not None:
                self.show(call, preview)
            return True
        if self.ask is None:
            self._refused(
                f"{call.name} refused: batch mode changes nothing without --yes (rerun with --yes to allow it)"
            )
            return False
        answer = self.ask(call, preview).strip().lower()
        if answer in ("a", "always"):
            self.always.add(call.name)
            return True
        return answer in ("y", "yes")

    def _refused(self, message: str) -> None:
        if self.on_refusal:
            self.on_refusal(message)
