"""Bytes from the terminal -> keys, with terminal replies filtered out.

While a turn runs slop reads the keyboard itself (prompt_toolkit does it at the
prompt). A terminal sends more than keys: cursor-position reports (`ESC[9;1R`,
answers to prompt_toolkit's `ESC[6n` that arrive late), focus events (`ESC[I`,
`ESC[O`), bracketed-paste markers (`ESC[200~` ... `ESC[201~`), arrow and function
keys. None of these may ever become text, so every escape sequence is parsed whole
and dropped; pasted text is kept as one piece."""

from __future__ import annotations

import codecs
from dataclasses import dataclass

ESC = 0x1B
PASTE_START = b"[200~"
PASTE_END = b"\x1b[201~"


@dataclass(frozen=True, slots=True)
class Key:
    kind: str  # text | paste | enter | esc | ctrl-c | backspace | kill-line
    text: str = ""


class KeyDecoder:
    """Incremental: `feed` bytes as they arrive, `lone_esc()` when no more came soon
    after an Esc (then it was the Esc key), `drop_partial()` when a sequence stalled."""

    def __init__(self) -> None:
        self._buffer = b""
        self._paste: bytes | None = None  # bytes of a paste in progress
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")

    @property
    def pending(self) -> str:
        """ "esc" (a lone Esc so far), "sequence" (an unfinished sequence or paste) or ""."""
        if self._paste is not None:
            return "sequence"
        if self._buffer == bytes([ESC]):
            return "esc"
        return "sequence" if self._buffer else ""

    def feed(self, data: bytes) -> list[Key]:
        self._buffer += data
        keys: list[Key] = []
        while self._buffer:
            if self._paste is not None:
                if not self._take_paste(keys):
                    break
                continue
            consumed = self._take_one(keys)
            if consumed == 0:
                break
            self._buffer = self._buffer[consumed:]
        return keys

    def lone_esc(self) -> list[Key]:
        if self.pending == "esc":
            self._buffer = b""
            return [Key("esc")]
        return []

    def drop_partial(self) -> None:
        """A sequence that never finished: drop it rather than let its tail become text."""
        if self._paste is not None:
            return  # a paste may be slow; it ends with its marker
        self._buffer = b""

    # ---- one item at the front of the buffer; returns bytes consumed (0 = need more)
    def _take_one(self, keys: list[Key]) -> int:
        first = self._buffer[0]
        if first == ESC:
            return self._take_escape(keys)
        if first in (0x0D, 0x0A):
            keys.append(Key("enter"))
            if first == 0x0D and self._buffer[1:2] == b"\n":
                return 2
            return 1
        if first == 0x03:
            keys.append(Key("ctrl-c"))
            return 1
        if first in (0x7F, 0x08):
            keys.append(Key("backspace"))
            return 1
        if first == 0x15:
            keys.append(Key("kill-line"))
            return 1
        if first < 0x20:
            return 1  # other control keys mean nothing here
        end = 1
        while end < len(self._buffer) and self._buffer[end] >= 0x20 and self._buffer[end] != 0x7F:
            end += 1
        text = self._utf8.decode(self._buffer[:end])
        if text:
            keys.append(Key("text", text))
        return end

    def _take_escape(self, keys: list[Key]) -> int:
        buf = self._buffer
        if len(buf) < 2:
            return 0
        second = buf[1]
        if second == ord("["):
            end = _csi_end(buf)
            if end == 0:
                return 0
            if buf[1:end] == PASTE_START:
                self._paste = b""
            return end  # any other CSI (CPR, focus, arrows, mouse): not text
        if second == ord("O"):
            return 3 if len(buf) >= 3 else 0  # SS3: F1-F4, keypad
        if second == ord("]"):
            return _osc_end(buf)
        if second == ESC:
            keys.append(Key("esc"))
            return 1
        return 2  # Alt+key: nothing here

    def _take_paste(self, keys: list[Key]) -> bool:
        assert self._paste is not None
        self._paste += self._buffer
        self._buffer = b""
        end = self._paste.find(PASTE_END)
        if end < 0:
            return False
        text = self._paste[:end].decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
        self._buffer = self._paste[end + len(PASTE_END) :]
        self._paste = None
        if text:
            keys.append(Key("paste", text))
        return True


def _csi_end(buf: bytes) -> int:
    """Index after the final byte of the CSI sequence starting at buf[0], 0 if unfinished."""
    for index in range(2, len(buf)):
        byte = buf[index]
        if 0x40 <= byte <= 0x7E:
            return index + 1
        if not 0x20 <= byte <= 0x3F:
            return index  # malformed: drop what came before this byte
    return 0


def _osc_end(buf: bytes) -> int:
    bell = buf.find(b"\x07", 2)
    st = buf.find(b"\x1b\\", 2)
    ends = [i + 1 for i in (bell,) if i >= 0] + [i + 2 for i in (st,) if i >= 0]
    return min(ends) if ends else 0
