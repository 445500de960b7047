"""Control characters from the model or a tool, made visible before they reach the terminal.

Text a model or a tool produced is untrusted: an escape sequence in it could move the
cursor, erase the line an approval prompt is showing, set the window title or clear
the screen, and a bidi override can show a command in an order other than the one
bash reads. Every string of that kind passes through :func:`visible` (or a
:class:`DeltaSanitiser`, for streamed replies) where it enters the renderer, so what
the user reads is what the text holds. The styling rich adds is ours and is added
after this step.

What is replaced, each by an escape a programmer can read back (``\\x1b``, ``\\r``,
``\\u202e``):

* C0 controls except tab and newline (ESC, CR, BEL, backspace, form feed, NUL...),
  DEL and the C1 controls U+0080-U+009F (U+009B is a one-byte CSI on some terminals);
* bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and the
  other invisible format characters: zero-width space, word joiner, soft hyphen,
  BOM, bidi marks, invisible operators, Unicode tag characters (used to smuggle
  ASCII no one can see);
* line and paragraph separators (U+2028, U+2029) and lone surrogates.

A CR directly before a newline is dropped rather than shown (Windows line ends are
common and harmless). Zero-width joiner and non-joiner are kept in replies (emoji
sequences and several scripts need them) but shown in strict mode, used for
approval previews and plain text, where an invisible difference between what is
shown and what runs matters.
"""

from __future__ import annotations

import re

HIDDEN_WARNING = (
    "the call above contains control or invisible characters, shown as escapes such as \\x1b or \\u202e; "
    "they are part of what would run"
)

_NAMED = {"\r": "\\r", "\x1b": "\\x1b"}

# Invisible or reordering format characters (Unicode category Cf) worth showing.
_FORMAT = (
    "\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb\U000e0001\U000e0020-\U000e007f\u2028\u2029\ud800-\udfff"
)
_JOINERS = "\u200c\u200d"
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f"

_LENIENT = re.compile(f"[{_CONTROLS}{_FORMAT}]")
_STRICT = re.compile(f"[{_CONTROLS}{_FORMAT}{_JOINERS}]")


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _replace(match: re.Match[str]) -> str:
    return _escape(match.group())


def visible(text: str, *, strict: bool = False) -> str:
    """`text` with every control and invisible format character shown as an escape.

    Tab and newline stay; CR LF becomes LF. `strict` also shows the zero-width
    joiners (for approval previews and plain text)."""
    pattern = _STRICT if strict else _LENIENT
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if pattern.search(text) is None:  # the common case costs one scan
        return text
    return pattern.sub(_replace, text)


def has_hidden(text: str) -> bool:
    """Whether :func:`visible` in strict mode would change anything but CR LF line ends."""
    return _STRICT.search(text.replace("\r\n", "\n")) is not None


class DeltaSanitiser:
    """:func:`visible` for text that arrives in pieces: a CR at the end of one piece is
    held back until the next shows whether it starts a CR LF line end."""

    def __init__(self) -> None:
        self._held_cr = False

    def feed(self, delta: str) -> str:
        if self._held_cr:
            delta = "\r" + delta
            self._held_cr = False
        if delta.endswith("\r"):
            delta = delta[:-1]
            self._held_cr = True
        return visible(delta)

    def flush(self) -> str:
        """What is held back when the stream ends (a lone CR, shown as such)."""
        held, self._held_cr = self._held_cr, False
        return visible("\r") if held else ""
