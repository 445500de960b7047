"""What every context strategy shares: the ledger as it reads it (`HistorySource`),
what a compacting strategy may change (`HistoryEditor`), and the `ContextStrategy` base.

A strategy is a context mode (`/context mode NAME`): it chooses which history goes into
the window (`select`) and returns a Selection; assembly then applies isolation, pair
integrity, truncation and the budget guard to whatever it chose, the same for every
strategy. The base class gives every hook a no-op default, so callers never probe:

* ``validate_input(session, text) -> str | None``: an error message rejects the user's
  input before anything is stored (the messages strategy's length limit);
* ``maintain(upkeep) -> Maintenance``: runs before every model call and may rewrite the
  visible history through `HistoryEditor` (compaction, cold storage);
* ``compacts``: whether `maintain` can compact, so `/context compact` means something;
* ``help`` and ``options``: the one-line description `/context mode` shows and the
  settings `/context set` accepts, declared next to the code that reads them;
* ``windowed``, ``kept_because``, ``placeholder_changes``: what `/context show` says
  about the mode (whether `/context window N` applies, why a group is in, what the real
  message may change next to the placeholder).

Built-in strategies: window (default), messages, ranked, compact, relevance
(`strategies/catalog.py`); see docs/context.md and, for adding one, docs/architecture.md."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from slop.context.options import Option
from slop.records import Message, SessionInfo


class EditTransaction(Protocol):
    """The open edit of `HistoryEditor.edit()`: `rollback()` undoes everything done in
    it when the block ends (e.g. a compaction that did not shrink the prompt)."""

    def rollback(self) -> None: ...

    @property
    def rolled_back(self) -> bool: ...


class HistorySource(Protocol):
    """What strategies may read. Every method is an indexed query whose cost follows
    what it returns, except `window(session, 0)` (the full visible history)."""

    def window(self, session_id: str, n: int) -> list[Message]: ...
    def last_group_ids(self, session_id: str, n: int) -> list[str]: ...
    def messages_of_groups(
        self, session_id: str, group_ids: list[str], *, include_ungrouped: bool = False
    ) -> list[Message]: ...
    def recent_messages(self, session_id: str, n: int) -> list[Message]: ...
    def latest_user(self, session_id: str) -> Message | None: ...
    def first_user(self, session_id: str) -> Message | None: ...
    def search_groups(self, session_id: str, fts_query: str, limit: int, *, newest: int = 0) -> list[tuple[str, float]]:
        """Visible groups matching an FTS5 query, best BM25 first (scores: lower is better);
        `newest` > 0: only the session's `newest` latest matching messages are ranked."""
        ...

    def search_archived(self, session_id: str, fts_query: str, limit: int) -> list[tuple[str, float]]: ...
    def system_group_ids(self, session_id: str) -> list[str]: ...
    def active_summaries(self, session_id: str) -> dict[int, int | None]:
        """Visible summary message id -> id of the message it is shown before."""
        ...

    def summary_group_ids(self, session_id: str) -> set[str]: ...
    def files_read(self, session_id: str, limit: int) -> list[str]: ...
    def pinned_groups(self, session_id: str) -> set[str]: ...
    def recovered_since(self, session_id: str, since: str) -> set[str]: ...


class HistoryEditor(HistorySource, Protocol):
    """What a strategy's `maintain` may change. Nothing is deleted: rows are hidden
    (compacted / archived) with an exact restore record."""

    def edit(self) -> AbstractContextManager[EditTransaction]:
        """One transaction (a savepoint inside the caller's): committed when the block
        ends, unless the block called `rollback()` on it."""
        ...

    def compact(
        self,
        session_id: str,
        message_ids: list[int],
        summary: str,
        *,
        kind: str,
        anchor_message_id: int | None,
        tokens_before: int | None = None,
        reset_files: bool = False,
    ) -> tuple[str, int]: ...
    def set_compaction_tokens(self, summary_message_id: int, tokens_after: int) -> None: ...
    def archive_group(
        self, session_id: str, group_id: str, *, score: float | None, prompt: str, reason: str, days: float
    ) -> int: ...
    def archived(self, session_id: str, group_ids: list[str] | None = None) -> list[Any]:
        """Recoverable cold-storage entries (slop.store.archive.ArchivedGroup)."""
        ...

    def recover_group(self, session_id: str, group_id: str) -> int: ...
    def expire_archive(self, session_id: str) -> int: ...
    def log(
        self,
        session_id: str,
        event: str,
        detail: str = "",
        group_id: str | None = None,
        tokens_before: int | None = None,
        tokens_after: int | None = None,
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class Selection:
    messages: tuple[Message, ...]
    notes: tuple[str, ...] = ()  # shown by /context show: what was chosen and why
    layer: str = ""  # extra system text the strategy needs (e.g. "history has gaps")
    files_read: tuple[str, ...] = ()  # listed in the system prompt as "files already read"


class Summarizer(Protocol):
    """One model call: instructions (system text) + transcript -> summary text. Raises on failure."""

    def __call__(self, instructions: str, transcript: str) -> str: ...


@dataclass(frozen=True, slots=True)
class Maintenance:
    """What a strategy's `maintain` did: `report` lines are shown to the user."""

    changed: bool = False
    report: tuple[str, ...] = ()


Measure = Callable[[], int]


@dataclass(frozen=True, slots=True)
class Upkeep:
    """Everything `maintain` may use before a model call.

    `measure()` returns the token size of the prompt as assembled right now (no budget
    guard), so a strategy can check the effect of an edit before committing it;
    `summarize` is None when no provider can write a summary; `force` is /context compact."""

    history: HistoryEditor
    session: SessionInfo
    query: str  # the latest user request
    budget: int  # the prompt budget in tokens (0 = no limit)
    measure: Measure
    summarize: Summarizer | None = None
    force: bool = False

    @property
    def sid(self) -> str:
        return self.session.name


class ContextStrategy(ABC):
    """The base of every context strategy: `select` is required, every other hook has a
    no-op default."""

    name: ClassVar[str] = ""
    help: ClassVar[str] = ""  # one line for /context mode
    options: ClassVar[tuple[Option, ...]] = ()  # what /context set accepts for this mode
    compacts: ClassVar[bool] = False  # maintain() can compact: /context compact applies
    windowed: ClassVar[bool] = False  # reads /context window N (shown in /context show's header)
    kept_because: ClassVar[str] = "selected"  # /context show --brief: why an older group is in
    # what /context show's placeholder may hide: what the real message would change
    placeholder_changes: ClassVar[str] = "the memos and the request's own size"

    @abstractmethod
    def select(self, source: HistorySource, session: SessionInfo, query: str, budget: int) -> Selection:
        """`budget`: tokens the history may use (the prompt budget minus the system
        layers; 0 = no limit)."""

    def validate_input(self, session: SessionInfo, text: str) -> str | None:
        """An error message that rejects the user's input before it is stored, or None."""
        return None

    def maintain(self, upkeep: Upkeep) -> Maintenance:
        """Edit the visible history before a model call (compaction, cold storage)."""
        return Maintenance()
