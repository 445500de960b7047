"""Who may change files or run commands: ask (y once / a always / n), yes, or read-only,
with per-tool rules from the config files (`[approvals] execute_bash = "deny"`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from slop.records import ToolCall

Ask = Callable[[ToolCall, str], str]  # returns "y", "a" or "n"
USER_REFUSED = "the user refused this call"  # what the model is told when the user said no


@dataclass
class ApprovalPolicy:
    mode: str = "ask"  # ask | yes | read-only
    ask: Ask | None = None  # None: nobody to ask (batch mode)
    on_refusal: Callable[[str], None] | None = None
    always: set[str] = field(default_factory=set)
    per_tool: Mapping[str, str] = field(default_factory=dict)  # tool -> ask | allow | deny (config)
    # shows what an approved-without-asking call will change (--yes, or after "a")
    show: Callable[[ToolCall, str], None] | None = None

    def approve(self, call: ToolCall, preview: str) -> str | None:
        """None when the call may run, else what the model is told (see tools.base.Approver)."""
        rule = self.per_tool.get(call.name, "ask")
        # read-only is checked first: neither --yes, an earlier "always" nor the config's allow may
        # override it; deny is a safety rule of the config that not even --yes lifts
        if self.mode == "read-only":
            self._refused(f"{call.name} refused: slop runs with --read-only")
            return "slop runs read-only (--read-only): no call may change anything; say what you would change instead"
        if rule == "deny":
            self._refused(f'{call.name} refused: the config denies it ([approvals] {call.name} = "deny")')
            return f"the user's configuration denies {call.name} in this project; do not call it again"
        if self.mode == "yes" or rule == "allow" or call.name in self.always:
            if self.show is not None:
                self.show(call, preview)
            return None
        if self.ask is None:
            self._refused(
                f"{call.name} refused: batch mode changes nothing without --yes (rerun with --yes to allow it)"
            )
            return "this run cannot ask the user (batch mode without --yes): nothing may change; say what you would do"
        answer = self.ask(call, preview).strip().lower()
        if answer in ("a", "always"):
            self.always.add(call.name)
            return None
        return None if answer in ("y", "yes") else USER_REFUSED

    def _refused(self, message: str) -> None:
        if self.on_refusal:
            self.on_refusal(message)
