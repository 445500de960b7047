"""A tiny terminal emulator for tests: applies the cursor controls rich emits."""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"\x1b\]8;[^\x1b\x07]*(?:\x1b\\|\x07)"  # OSC 8 hyperlinks
    r"|\x1b\[(?P<args>[0-9;?]*)(?P<cmd>[A-Za-z])"  # CSI sequences
    r"|(?P<text>[^\x1b\r\n]+)|(?P<cr>\r)|(?P<nl>\n)"
)

ANSI = re.compile(r"\x1b\]8;[^\x1b\x07]*(?:\x1b\\|\x07)|\x1b\[[0-9;?]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def screen(raw: str) -> str:
    """The text left on screen (and in scrollback) after writing `raw`."""
    lines: list[str] = [""]
    row = col = 0
    for match in _TOKEN.finditer(raw):
        if match["text"] is not None:
            line = lines[row].ljust(col)
            chunk = match["text"]
            lines[row] = line[:col] + chunk + line[col + len(chunk) :]
            col += len(chunk)
        elif match["cr"]:
            col = 0
        elif match["nl"]:
            row += 1
            col = 0
            if row == len(lines):
                lines.append("")
        elif match["cmd"] == "A":
            row = max(0, row - int(match["args"] or 1))
        elif match["cmd"] == "K" and match["args"] == "2":
            lines[row] = ""
        elif match["cmd"] == "J":
            del lines[row + 1 :]
            lines[row] = lines[row][:col]
    return "\n".join(line.rstrip() for line in lines)


def normalise(text: str) -> str:
    """ANSI stripped and all runs of whitespace collapsed."""
    return " ".join(strip_ansi(text).split())
