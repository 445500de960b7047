"""SQLite's varints, as its record format and FTS5's shadow tables write them."""

from __future__ import annotations


def varint(blob: bytes, pos: int = 0) -> tuple[int, int]:
    """The varint at `pos` and the position after it: 7 bits a byte, the high bit set
    when more follow, a ninth byte giving all 8 bits. IndexError if the blob ends first."""
    value = 0
    for i in range(8):
        byte = blob[pos + i]
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, pos + i + 1
    return (value << 8) | blob[pos + 8], pos + 9
