"""Bounded receivers for subprocess output (see proc.run_process).

They keep only what will be shown, so memory stays flat whatever a command prints.
"""

from __future__ import annotations

import re
import threading
from collections import Counter

from slop.tools.output import CUT_NOTE, cut_line


def _utf8_len(lead: int) -> int:
    """Length of the UTF-8 sequence a lead byte starts."""
    if lead >= 0xF0:
        return 4
    if lead >= 0xE0:
        return 3
    if lead >= 0xC0:
        return 2
    return 1


def _trim_utf8_end(data: bytes) -> bytes:
    """Drop a multi-byte character cut in half at the end of `data`."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # a lead byte or ASCII
            return data if back >= _utf8_len(byte) else data[:-back]
    return data


def _trim_utf8_start(data: bytes) -> bytes:
    """Drop continuation bytes of a character cut in half at the start of `data`."""
    skip = 0
    while skip < min(3, len(data)) and data[skip] & 0xC0 == 0x80:
        skip += 1
    return data[skip:]


class HeadTailSink:
    """Keeps the first and last `limit // 2` bytes of a stream and counts the rest."""

    def __init__(self, limit: int) -> None:
        self._head_max = limit // 2
        self._tail_max = limit - self._head_max
        self._head = bytearray()
        self._tail = bytearray()
        self._total = 0
        self._limit = limit
        self._kept_newlines = 0  # newlines in head + the current tail window, counted lazily
        self._newlines = 0
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        with self._lock:
            self._total += len(chunk)
            self._newlines += chunk.count(b"\n")
            room = self._head_max - len(self._head)
            if room > 0:
                self._head += chunk[:room]
                chunk = chunk[room:]
            self._tail += chunk
            if len(self._tail) > 2 * self._tail_max:  # trim rarely: amortised O(1)
                del self._tail[: len(self._tail) - self._tail_max]

    def text(self) -> str:
        """The captured output, with a note in place of what was cut."""
        with self._lock:
            tail = bytes(self._tail[-self._tail_max :]) if self._tail_max else b""
            head = bytes(self._head)
            cut = self._total - len(head) - len(tail)
        if cut <= 0:
            return (head + tail).decode("utf-8", "replace")
        lines = self._newlines - head.count(b"\n") - tail.count(b"\n")
        note = CUT_NOTE.format(
            lines=lines, cut=cut, start=len(head) + 1, end=len(head) + cut, total=self._total, cap=self._limit
        )
        return (
            _trim_utf8_end(head).decode("utf-8", "replace")
            + f"\n{note}\n"
            + _trim_utf8_start(tail).decode("utf-8", "replace")
        )


# `path:12:text` is a match line in grep -n / git grep -n output (`path-12-` is context).
_MATCH_LINE = re.compile(rb"^(.+?):\d+:")


class LineSink:
    """Keeps the first `max_lines` lines, counts the others and the matches per file."""

    def __init__(self, max_lines: int, max_line_chars: int = 400) -> None:
        self.max_lines = max_lines
        self.max_line_chars = max_line_chars
        self.lines: list[str] = []
        self.total = 0
        self.per_file: Counter[str] = Counter()
        self._partial = b""
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        with self._lock:
            data = self._partial + chunk
            *complete, self._partial = data.split(b"\n")
            for raw in complete:
                self._add(raw)

    def finish(self) -> None:
        """Account for a last line without a trailing newline."""
        with self._lock:
            if self._partial:
                self._add(self._partial)
                self._partial = b""

    def _add(self, raw: bytes) -> None:
        self.total += 1
        match = _MATCH_LINE.match(raw)
        if match:
            self.per_file[match.group(1).decode("utf-8", "replace")] += 1
        if len(self.lines) < self.max_lines:
            self.lines.append(cut_line(raw.decode("utf-8", "replace").rstrip("\r"), self.max_line_chars))

    @property
    def omitted(self) -> int:
        return self.total - len(self.lines)
