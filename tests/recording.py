"""A recording EventSink + CommandIO: what a turn or command showed the user, as data."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Recorder:
    events: list[tuple[str, str]] = field(default_factory=list)
    edits: list[Callable[[str], str | None]] = field(default_factory=list)  # scripted editor sessions
    confirms: list[bool] = field(default_factory=list)
    viewed: list[str] = field(default_factory=list)
    paged: list[str] = field(default_factory=list)
    data_values: list[object] = field(default_factory=list)
    height: int = 0  # screen_height(): 0 = no screen, like batch mode
    width: int = 0

    def _add(self, kind: str, text: str = "") -> None:
        self.events.append((kind, text))

    def kinds(self, kind: str) -> list[str]:
        return [text for k, text in self.events if k == kind]

    @property
    def text(self) -> str:
        return "\n".join(f"{k}: {t}" for k, t in self.events)

    # EventSink
    def user_echo(self, text: str, group_id: str) -> None:
        self._add("user", text)

    def assistant_start(self) -> None:
        self._add("assistant_start")

    def assistant_delta(self, text: str) -> None:
        self._add("delta", text)

    def reasoning_delta(self, text: str) -> None:
        self._add("reasoning", text)

    def assistant_end(self, tokens: int | None, interrupted: bool = False) -> None:
        self._add("assistant_end", f"{tokens}{' interrupted' if interrupted else ''}")

    def tool_call_start(self, name: str, args_json: str) -> None:
        self._add("tool_start", name)

    def tool_call_done(self, name: str, args_json: str, status: str, duration: float, summary: str) -> None:
        self._add("tool_done", f"{name} {status} {summary}")

    # CommandIO
    def info(self, text: str) -> None:
        self._add("info", text)

    def success(self, text: str) -> None:
        self._add("success", text)

    def warning(self, text: str) -> None:
        self._add("warning", text)

    def error(self, text: str) -> None:
        self._add("error", text)

    def markdown(self, text: str) -> None:
        self._add("markdown", text)

    def plain(self, text: str) -> None:
        self._add("plain", text)

    def table(self, title: str | None, columns: list[str], rows: list[list[str]]) -> None:
        self._add("table", "\n".join(" | ".join(r) for r in [columns, *rows]))

    def edit(self, text: str, suffix: str = ".md") -> str | None:
        if not self.edits:
            raise AssertionError(f"unexpected editor session on:\n{text}")
        return self.edits.pop(0)(text)

    def view(self, text: str, suffix: str = ".txt") -> None:
        self.viewed.append(text)
        self._add("view", text)

    def data(self, value: object) -> None:
        self.data_values.append(value)
        self._add("data", "")

    def screen_height(self) -> int:
        return self.height

    def screen_width(self) -> int:
        return self.width

    def page(self, text: str, suffix: str = ".txt") -> str:
        self.paged.append(text)
        self._add("page", text)
        return "a test pager"

    def confirm(self, question: str) -> bool:
        self._add("confirm", question)
        return self.confirms.pop(0) if self.confirms else False
