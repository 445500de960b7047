"""What the fake server records about each request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class RecordedRequest:
    """One request as the server saw it. `finished` turns True once the server is done with
    it; `completed` only if the whole reply was written (not when the client went away
    mid-stream, e.g. on cancel, nor for a scripted cut-off)."""

    method: str
    path: str  # without the query string
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names
    body: bytes
    json: Any  # parsed JSON body, or None
    form: dict[str, str] | None  # parsed x-www-form-urlencoded body, or None
    protocol: str  # "openai" | "gemini" | "gca" | "oauth" | "unknown"
    completed: bool = False
    finished: bool = False

    @property
    def target(self) -> str:
        return self.path + ("?" + "&".join(f"{k}={v}" for k, v in self.query.items()) if self.query else "")
