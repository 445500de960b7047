"""Batch output for scripts: --output-format json (one object) or jsonl (one event a line).

Events: user, assistant (text), reasoning, tool_call, tool_result, usage, info, warning,
error, done. The same object serves as EventSink and CommandIO."""

from __future__ import annotations

import json
import re
import sys
from typing import IO, Any

from slop.textsafe import single_line

# Characters JSON may carry raw that a terminal would obey or hide (C1 controls, bidi
# overrides, zero-width and separator characters): written as \uXXXX, which decodes
# to the same string, so `cat` of the output cannot rewrite the screen.
_TERMINAL_UNSAFE = re.compile("[\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def dumps(value: Any, indent: int | None = None) -> str:
    """One JSON document, UTF-8 text kept readable, terminal-unsafe characters escaped."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return _TERMINAL_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class JsonEvents:
    def __init__(self, fmt: str, out: IO[str] | None = None) -> None:
        self.fmt = fmt
        self.out = out or sys.stdout
        self.events: list[dict[str, Any]] = []
        self._text = ""
        self._reasoning = ""

    def emit(self, kind: str, **data: Any) -> None:
        event = {"type": kind, **data}
        self.events.append(event)
        if self.fmt == "jsonl":
            self.out.write(_line(event) + "\n")
            self.out.flush()

    # EventSink
    def user_echo(self, text: str, group_id: str) -> None:
        self.emit("user", text=text, group_id=group_id)

    def assistant_start(self) -> None:
        self._text, self._reasoning = "", ""

    def assistant_delta(self, text: str) -> None:
        self._text += text

    def reasoning_delta(self, text: str) -> None:
        self._reasoning += text

    def assistant_end(self, tokens: int | None, interrupted: bool = False) -> None:
        if self._reasoning:
            self.emit("reasoning", text=self._reasoning)
        if self._text or interrupted:
            self.emit("assistant", text=self._text, interrupted=interrupted)
        if tokens:
            self.emit("usage", total_tokens=tokens)

    def tool_call_start(self, name: str, args_json: str) -> None:
        self.emit("tool_call", name=name, arguments=args_json)

    def tool_call_done(self, name: str, args_json: str, status: str, duration: float, summary: str) -> None:
        self.emit("tool_result", name=name, status=status, duration=round(duration, 3), summary=summary)

    # CommandIO
    def info(self, text: str) -> None:
        self.emit("info", text=text)

    def success(self, text: str) -> None:
        self.emit("info", text=text)

    def warning(self, text: str) -> None:
        self.emit("warning", text=text)

    def error(self, text: str) -> None:
        self.emit("error", text=single_line(text))

    def markdown(self, text: str) -> None:
        self.emit("info", text=text)

    def plain(self, text: str) -> None:
        self.emit("info", text=text)

    def table(self, title: str | None, columns: list[str], rows: list[list[str]]) -> None:
        self.emit("table", title=title, columns=columns, rows=rows)

    def edit(self, text: str, suffix: str = ".md") -> str | None:
        self.error("this command needs an editor, which batch mode does not open")
        return None

    def view(self, text: str, suffix: str = ".txt") -> None:
        self.emit("info", text=text)

    def confirm(self, question: str) -> bool:
        return False

    def data(self, value: Any) -> None:
        self.emit("request", body=value)

    def screen_height(self) -> int:
        return 0

    def screen_width(self) -> int:
        return 0

    def page(self, text: str, suffix: str = ".txt") -> str:
        self.emit("info", text=text)
        return ""

    def finish(self, ok: bool, **data: Any) -> None:
        self.emit("done", ok=ok, **data)
        if self.fmt == "json":
            texts = [e["text"] for e in self.events if e["type"] == "assistant"]
            summary = {"ok": ok, "text": "".join(texts), "events": self.events, **data}
            self.out.write(_line(summary) + "\n")
            self.out.flush()


def _line(obj: Any) -> str:
    """One JSON line, UTF-8 where it can be; text a UTF-8 stdout cannot carry (a lone
    surrogate that slipped past the providers) goes out as a \\u escape instead of
    ending the run without its `done` line."""
    text = dumps(obj)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj, ensure_ascii=True)
    return text
