"""Streaming output with linear rendering cost.

A reply arrives as many small deltas. Re-rendering the whole reply on every delta
is quadratic, so :class:`MarkdownStream` splits the text into a *settled* prefix,
made of blocks that later text cannot change, and a short live *tail*:

* a block is settled at a blank line outside a fenced code block (decided when
  the next non-blank line arrives, so that indented continuations of list items
  stay in their block), at the end of a top-level fence, and around an ATX
  heading;
* settled text is rendered once with :class:`SlopMarkdown` and printed to the
  scrollback;
* the tail is shown in a transient :class:`rich.live.Live` region refreshed at
  most every ``refresh_interval`` seconds, and is kept short: a long fence is
  printed as highlighted code lines in batches, and a long list is split
  between items.

Without a terminal (or with ``NO_COLOR``) there is no Live region: settled
blocks are printed as plain text as they come.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.markdown import Heading, Markdown, MarkdownElement, TableElement
from rich.segment import Segment
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from slop.ui.icons import IconSet, icons_for

CODE_THEME = "monokai"
MAX_TAIL_ROWS = 40  # estimated rendered rows the live tail may hold
CODE_BATCH_LINES = 10  # code lines printed together once a fence overflows
REFRESH_INTERVAL = 0.05  # least seconds between two refreshes of the live tail
REDRAW_SHARE = 4.0  # a refresh that took t seconds waits REDRAW_SHARE * t for the next
REASONING_STYLE = "italic grey50"
INTERRUPTED_MARKER = "[interrupted]"

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_FENCE_CLOSE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*$")
_HEADING = re.compile(r"^#{1,6}(?:[ \t]|$)")
_LIST_ITEM = re.compile(r"^(?P<indent>[ \t]*)(?:(?P<bullet>[-*+])|\d{1,9}(?P<delim>[.)]))(?:[ \t]|$)")
_STATE = re.compile(r"\bSTATE\b")
_THOUGHT = re.compile(r"\bTHOUGHTS?\b")


# --------------------------------------------------------------------------- console


def is_plain(console: Console) -> bool:
    """Whether output must be plain text: no Live region, no ANSI styles."""
    return not console.is_terminal or console.is_dumb_terminal or console.no_color or bool(os.environ.get("NO_COLOR"))


def _plain_text(console: Console, renderables: Iterable[RenderableType]) -> str:
    options = console.options
    parts: list[str] = []
    for renderable in renderables:
        segments = console.render(renderable, options)
        parts.append("".join(seg.text for seg in segments if not seg.control))
    return "\n".join(line.rstrip() for line in "".join(parts).split("\n"))


class Printer:
    """Prints renderables, styled on a terminal and as plain text otherwise."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.plain = is_plain(console)

    def print(self, *renderables: RenderableType) -> None:
        if not self.plain:
            self.console.print(*renderables)
            return
        text = _plain_text(self.console, renderables)
        self.console.out(text, end="", highlight=False)


# -------------------------------------------------------------------------- markdown


def semantic_heading(title: str, icons: IconSet) -> tuple[str, str] | None:
    """(icon, style) for the STATE and THOUGHT headings the model writes, else None."""
    if _STATE.search(title):
        return icons.state, "bold yellow"
    if _THOUGHT.search(title):
        return icons.thought, "italic grey50"
    return None


class SemanticHeading(Heading):
    """A heading; "STATE" headings are yellow with 🕒, "THOUGHT" ones grey with 🧠."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        icons = icons_for(console)
        kind = semantic_heading(self.text.plain, icons)
        if kind is None:
            yield from super().__rich_console__(console, options)
            return
        icon, style = kind
        text = self.text.copy()
        if not text.plain.startswith(icon):
            text = Text.assemble(icon, " ", text)
        text.stylize(style)
        text.justify = "left"
        yield text


class WrappingTable(TableElement):
    """A markdown table whose cells fold long words instead of cutting them with …."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for renderable in super().__rich_console__(console, options):
            if isinstance(renderable, Table):
                for column in renderable.columns:
                    column.overflow = "fold"
            yield renderable


class SlopMarkdown(Markdown):
    """rich Markdown with semantic headings and tables that wrap to the width."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": SemanticHeading,
        "table_open": WrappingTable,
    }

    def __init__(self, markup: str, **kwargs: Any) -> None:
        super().__init__(markup, **kwargs)
        # A chat reply's single newlines are meant (STATE fields, "Step 1:" lines), so
        # render them as line breaks instead of joining the lines into one paragraph.
        for token in self.parsed:
            for child in token.children or ():
                if child.type == "softbreak":
                    child.type = "hardbreak"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # rich starts a document whose first block is a list, quote or table with
        # a blank line; drop it so that blocks rendered apart join up evenly.
        first = True
        for item in super().__rich_console__(console, options):
            if first and isinstance(item, Segment) and item.text == "\n":
                first = False
                continue
            first = False
            yield item


# ---------------------------------------------------------------------- live region


@dataclass(slots=True)
class StreamStats:
    """What a stream rendered: used by the tests and the benchmark to check linearity."""

    blocks: int = 0  # settled markdown blocks rendered (each once)
    block_chars: int = 0  # characters of markdown rendered as settled blocks
    code_prints: int = 0  # batches of code lines printed from an overflowing fence
    tail_renders: int = 0  # renders of the live tail
    tail_chars: int = 0  # characters of text rendered in the live tail


class _TailView:
    """The Live renderable: builds the current tail when rendered, shows its last rows."""

    def __init__(self, build: Callable[[], RenderableType | None]) -> None:
        self._build = build
        self.hidden = False

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.hidden:
            return
        renderable = self._build()
        if renderable is None:
            return
        lines = console.render_lines(renderable, options, pad=False)
        limit = max(1, console.height - 2)
        for line in lines[-limit:]:
            yield from line
            yield Segment.line()


class _LiveRegion:
    """A transient Live region, started lazily and refreshed at a limited rate."""

    def __init__(
        self,
        console: Console,
        build: Callable[[], RenderableType | None],
        interval: float,
        clock: Callable[[], float],
    ) -> None:
        self._console = console
        self._view = _TailView(build)
        self._interval = interval
        self._clock = clock
        self._live: Live | None = None
        self._next_refresh = float("-inf")

    def show(self) -> None:
        if self._live is None:
            self._live = Live(
                self._view,
                console=self._console,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
                vertical_overflow="crop",
            )
            self._live.start(refresh=False)
        now = self._clock()
        if now >= self._next_refresh:
            started = time.perf_counter()
            self._live.refresh()
            spent = time.perf_counter() - started
            # a slow redraw (say a long code block) waits longer: at most ~1/4 of the time
            self._next_refresh = now + max(self._interval, REDRAW_SHARE * spent)

    def close(self) -> None:
        """Erase the region (the caller prints what it held to the scrollback)."""
        if self._live is None:
            return
        self._view.hidden = True
        live, self._live = self._live, None
        live.stop()


# ------------------------------------------------------------------ markdown stream


@dataclass(slots=True)
class _Fence:
    char: str
    length: int
    indent: int
    lexer: str
    top_level: bool
    start: int  # index of the opening line in the pending lines


def _indent_width(prefix: str) -> int:
    return len(prefix.expandtabs(4))


def _list_kind(line: str) -> tuple[int, str] | None:
    """(indent, marker kind) of a list item line, e.g. (0, "-") or (2, ".")."""
    match = _LIST_ITEM.match(line)
    if match is None:
        return None
    return _indent_width(match["indent"]), match["bullet"] or match["delim"]


def _open_fence(line: str, in_list: bool) -> _Fence | None:
    match = _FENCE_OPEN.match(line)
    if match is None:
        return None
    fence, info = match["fence"], match["info"].strip()
    if fence[0] == "`" and "`" in info:
        return None  # ```inline``` code, not a fence
    indent = _indent_width(match["indent"])
    return _Fence(
        char=fence[0],
        length=len(fence),
        indent=indent,
        lexer=info.split(" ")[0] if info else "text",
        top_level=indent == 0 or (indent <= 3 and not in_list),
        start=0,
    )


def _closes(line: str, fence: _Fence) -> bool:
    match = _FENCE_CLOSE.match(line)
    if match is None:
        return False
    closing = match["fence"]
    return closing[0] == fence.char and len(closing) >= fence.length


def _dedent(line: str, width: int) -> str:
    """Drop up to `width` columns of leading spaces (a fence's indentation)."""
    expanded = line.expandtabs(4) if line[:1] == "\t" else line
    cut = 0
    while cut < width and cut < len(expanded) and expanded[cut] == " ":
        cut += 1
    return expanded[cut:]


class _LineBuffer:
    """Splits streamed text into complete lines and keeps the unfinished one (in pieces,
    so a long line arriving in many chunks is joined once, not on every chunk)."""

    def __init__(self) -> None:
        self._pieces: list[str] = []

    def feed(self, delta: str) -> list[str]:
        """The lines `delta` completes (without their newline)."""
        if "\n" not in delta:
            self._pieces.append(delta)
            return []
        first, *middle, rest = delta.split("\n")
        lines = ["".join(self._pieces) + first, *middle]
        self._pieces = [rest] if rest else []
        return lines

    def pending(self) -> str:
        return "".join(self._pieces)

    def take(self) -> str:
        """The unfinished line, removed from the buffer."""
        rest = self.pending()
        self._pieces = []
        return rest


class MarkdownStream:
    """Renders a markdown reply fed as deltas, each settled block exactly once.

    Call :meth:`feed` with every delta, then :meth:`finish` (or :meth:`abort` when
    the user interrupted the reply).
    """

    def __init__(
        self,
        console: Console,
        *,
        code_theme: str = CODE_THEME,
        max_tail_rows: int = MAX_TAIL_ROWS,
        refresh_interval: float = REFRESH_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.stats = StreamStats()
        self._out = Printer(console)
        self._code_theme = code_theme
        self._max_rows = max_tail_rows
        self._region = None if self._out.plain else _LiveRegion(console, self._tail, refresh_interval, clock)
        self._partial = _LineBuffer()  # the current, incomplete line
        self._lines: list[str] = []  # complete lines of the unsettled block, with "\n"
        self._rows = 0  # estimated rendered height of self._lines
        self._has_content = False  # self._lines holds a non-blank line
        self._list: tuple[int, str] | None = None  # list kind of the block's first line
        self._last_item = 0  # index in self._lines of the last top-level list item
        # index of a blank line that may end the block:
        self._candidate: int | None = None
        self._fence: _Fence | None = None
        # an overflowing fence: its code lines not printed yet
        self._code: list[str] | None = None
        self._code_fence: _Fence | None = None  # the overflowing fence
        self._code_started = False
        self._printed = False  # something was printed already
        self._separate = False  # the next block needs a blank line before it
        self._glue = False  # the next block goes on the list printed last
        self._closed = False

    # ------------------------------------------------------------------ public API

    def feed(self, delta: str) -> None:
        """Add a piece of the reply."""
        if self._closed or not delta:
            return
        for line in self._partial.feed(delta):
            self._on_line(line.rstrip("\r") + "\n")
        if self._region is not None:
            self._region.show()

    def finish(self) -> None:
        """Render whatever is left and close the live region."""
        if self._closed:
            return
        self._closed = True
        if self._region is not None:
            self._region.close()
        rest = self._partial.take()
        if rest:
            self._on_line(rest.rstrip("\r") + "\n")
        self._candidate = None
        if self._code is not None:
            self._flush_code(final=True)
        elif self._lines:
            self._settle(len(self._lines))

    def abort(self) -> None:
        """Like :meth:`finish`, then print a dim interrupted marker."""
        if self._closed:
            return
        self.finish()
        self._out.print(Text(INTERRUPTED_MARKER, style="dim"))

    @property
    def pending_text(self) -> str:
        """The unsettled text (what the live tail shows).

        Read from local references only: another thread printing a notice renders
        the live tail while `feed` may be changing the state.
        """
        partial = self._partial.pending()
        code, fence, lines = self._code, self._code_fence, self._lines
        if code is not None:
            return "".join(code) + _dedent(partial, fence.indent if fence is not None else 0)
        return "".join(lines) + partial

    # ----------------------------------------------------------------- line logic

    def _on_line(self, line: str) -> None:
        if self._fence is not None:
            self._fence_line(line, self._fence)
            return
        blank = not line.strip()
        if self._candidate is not None and not blank:
            self._resolve_candidate(line)
        if blank:
            self._lines.append(line)
            if self._has_content and self._candidate is None:
                self._candidate = len(self._lines) - 1
            return
        fence = _open_fence(line, in_list=self._list is not None)
        if fence is not None:
            fence.start = len(self._lines)
            self._fence = fence
            self._append(line)
            self._bound_tail()
            return
        if _HEADING.match(line):
            self._settle(len(self._lines))
            self._append(line)
            self._settle(len(self._lines))
            return
        self._append(line)
        self._bound_tail()

    def _append(self, line: str) -> None:
        self._rows += 1 + len(line) // max(20, self.console.width)
        kind = _list_kind(line)
        if not self._has_content:
            self._has_content = True
            self._list = kind
        elif kind is not None and self._list is not None and kind[0] == 0 and self._fence is None:
            self._last_item = len(self._lines)
        self._lines.append(line)

    def _resolve_candidate(self, line: str) -> None:
        """A non-blank line after blank ones: is the blank line a block boundary?"""
        index, self._candidate = self._candidate, None
        assert index is not None
        if line[:1] in (" ", "\t"):
            return  # continuation of a list item, or an indented code block
        kind = _list_kind(line)
        same_list = kind is not None and self._list is not None and kind[1] == self._list[1]
        self._settle(index)
        self._glue = same_list  # a loose list goes on: no blank line between its parts

    def _fence_line(self, line: str, fence: _Fence) -> None:
        if _closes(line, fence):
            self._fence = None
            if self._code is not None:
                self._flush_code(final=True)
            else:
                self._append(line)
                if fence.top_level:
                    self._settle(len(self._lines))
            return
        if self._code is not None:
            self._code.append(_dedent(line, fence.indent))
            if len(self._code) >= CODE_BATCH_LINES:
                self._flush_code()
            return
        self._lines.append(line)
        self._rows += 1 + len(line) // max(20, self.console.width)
        self._bound_tail()

    def _bound_tail(self) -> None:
        """Keep the live tail short: stream a long fence as code, split a long list."""
        if self._rows <= self._max_rows:
            return
        if self._fence is not None:
            self._enter_code_mode(self._fence)
        elif self._list is not None and self._last_item > 0:
            rest = self._settle(self._last_item)
            self._glue = True
            for line in rest:
                self._on_line(line)

    def _enter_code_mode(self, fence: _Fence) -> None:
        code = [_dedent(line, fence.indent) for line in self._lines[fence.start + 1 :]]
        del self._lines[fence.start :]
        self._settle(len(self._lines))
        self._code = code
        self._code_fence = fence
        self._code_started = False
        self._flush_code()

    # ----------------------------------------------------------------- rendering

    def _reset_block(self) -> None:
        self._lines = []
        self._rows = 0
        self._has_content = False
        self._list = None
        self._last_item = 0
        self._candidate = None

    def _settle(self, count: int) -> list[str]:
        """Print the first `count` pending lines as markdown; return the other lines."""
        text = "".join(self._lines[:count])
        rest = self._lines[count:]
        self._reset_block()
        if text.strip():
            self._print_markdown(text)
        return rest if any(line.strip() for line in rest) else []

    def _print_markdown(self, text: str) -> None:
        markdown = SlopMarkdown(text, code_theme=self._code_theme)
        if not markdown.parsed:
            return  # e.g. only link reference definitions
        self.stats.blocks += 1
        self.stats.block_chars += len(text)
        self._emit(markdown, separate=self._separate)
        self._separate = markdown.parsed[-1].type != "hr"

    def _code_syntax(self, code: str, final: bool) -> Syntax:
        lexer = self._code_fence.lexer if self._code_fence is not None else "text"
        code = code.rstrip() if final else code.removesuffix("\n")
        bottom = 1 if final else 0
        if final and not code and self._code_started:
            bottom = 0  # only the bottom padding is left: one blank line
        padding = (0 if self._code_started else 1, 1, bottom, 1)
        return Syntax(code, lexer, theme=self._code_theme, word_wrap=True, padding=padding)

    def _flush_code(self, final: bool = False) -> None:
        """Print the code lines of an overflowing fence (with the code block padding)."""
        code = "".join(self._code or [])
        if not code and not final:
            return
        self.stats.code_prints += 1
        syntax = self._code_syntax(code, final)
        separate = self._separate and not self._code_started
        self._code_started = True
        if final:
            self._code = None
            self._code_fence = None
            self._reset_block()
        else:
            self._code = []
        self._emit(syntax, separate=separate)
        self._separate = True

    def _emit(self, renderable: RenderableType, separate: bool) -> None:
        """Print a settled renderable, after a blank line between blocks."""
        glue, self._glue = self._glue, False
        if separate and self._printed and not glue:
            self._out.print(Group(Text(""), renderable))
        else:
            self._out.print(renderable)
        self._printed = True

    def _tail(self) -> RenderableType | None:
        """The live tail renderable (built when the Live region renders)."""
        text = self.pending_text
        if not text.strip():
            return None
        self.stats.tail_renders += 1
        self.stats.tail_chars += len(text)
        if self._code is not None:
            return self._code_syntax(text, final=False)
        return SlopMarkdown(text, code_theme=self._code_theme)


# ----------------------------------------------------------------- reasoning stream


class ReasoningStream:
    """Reasoning ("thought") deltas, shown dimmed and italic, not as markdown.

    Complete lines go to the scrollback; the current line is shown in the live
    region.
    """

    def __init__(
        self,
        console: Console,
        *,
        style: str = REASONING_STYLE,
        refresh_interval: float = REFRESH_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.stats = StreamStats()
        self._out = Printer(console)
        self._style = style
        self._icon = icons_for(console).thought
        self._region = None if self._out.plain else _LiveRegion(console, self._tail, refresh_interval, clock)
        self._partial = _LineBuffer()
        self._printed = False
        self._closed = False

    def feed(self, delta: str) -> None:
        if self._closed or not delta:
            return
        lines = self._partial.feed(delta)
        if lines:
            self._print_lines(lines)
        if self._region is not None:
            self._region.show()

    def finish(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._region is not None:
            self._region.close()
        rest = self._partial.take()
        if rest.strip():
            self._print_lines([rest])

    @property
    def printed(self) -> bool:
        return self._printed

    def _block(self, text: str, first: bool) -> RenderableType:
        return prefixed(self._icon if first else "", Text(text, style=self._style), self._icon)

    def _print_lines(self, lines: list[str]) -> None:
        if not self._printed:
            while lines and not lines[0].strip():
                lines = lines[1:]  # no blank lines before the first one
            if not lines:
                return
        text = "\n".join(line.rstrip("\r") for line in lines)
        self.stats.blocks += 1
        self.stats.block_chars += len(text)
        self._out.print(self._block(text, first=not self._printed))
        self._printed = True

    def _tail(self) -> RenderableType | None:
        text = self._partial.pending()
        if not text.strip():
            return None
        self.stats.tail_renders += 1
        self.stats.tail_chars += len(text)
        return self._block(text, first=not self._printed)


def prefixed(icon: str, body: RenderableType, width_of: str | None = None) -> RenderableType:
    """`body` after `icon`, wrapped lines indented under the body (a hanging indent).

    `width_of` sets the width of the icon column (defaults to `icon` itself), so
    that continuation blocks without an icon line up with the first one.
    """
    grid = Table.grid(padding=0)
    grid.add_column(width=cell_len(width_of if width_of is not None else icon) + 1, no_wrap=True)
    grid.add_column(ratio=1)
    grid.add_row(Text(icon), body)
    return grid
