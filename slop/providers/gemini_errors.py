"""Gemini and Code Assist errors: google.rpc.Status bodies and transport failures mapped
to slop.errors once for both providers, and the retry loop that honours RetryInfo."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from slop.errors import (
    AuthError,
    BadResponse,
    ContextTooLong,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)
from slop.providers.retry import retry_after_seconds

MAX_RETRY_WAIT = 60.0  # a server asking for longer than this gets a clear error instead
RETRY_STATUSES = (429, 500, 502, 503, 504)


class Started(Protocol):
    """What the retry loop needs to know of an accumulator: whether anything arrived."""

    @property
    def started(self) -> bool: ...


class GoogleHTTPError(Exception):
    """An HTTP error from a Google endpoint, before it is mapped to slop.errors."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(f"HTTP {status}: {str(body)[:200]}")
        self.status = status
        self.body = body
        self.headers = dict(headers or {})


# ---- errors -----------------------------------------------------------------------------
def _error_obj(body: Any) -> dict[str, Any]:
    if isinstance(body, list) and len(body) == 1:
        body = body[0]
    if isinstance(body, dict):
        error = body.get("error", body)
        return error if isinstance(error, dict) else {}
    return {}


def google_message(body: Any) -> str:
    error = _error_obj(body)
    if error.get("message"):
        return str(error["message"])
    text = body if isinstance(body, str) else json.dumps(body) if body is not None else ""
    return " ".join(text.split())[:300] or "no details"


def _reasons(body: Any) -> set[str]:
    details = _error_obj(body).get("details")
    return (
        {str(d.get("reason")) for d in details if isinstance(d, dict) and d.get("reason")}
        if isinstance(details, list)
        else set()
    )


def _is_context_error(message: str) -> bool:
    text = message.lower()
    return any(
        k in text
        for k in (
            "input token count",
            "exceeds the maximum number of tokens",
            "context length",
            "too long",
            "maximum context",
            "too many tokens",
        )
    )


def map_google_error(
    status: int, body: Any, headers: Mapping[str, str] | None, *, where: str, auth_hint: str
) -> ProviderError:
    """One mapping for the Gemini API and Code Assist (same google.rpc.Status bodies)."""
    message = google_message(body)
    if status in (401, 403) or "API_KEY_INVALID" in _reasons(body):
        return AuthError(f"{where} rejected the credentials ({status}): {message}; {auth_hint}", status=status)
    if status == 429:
        wait = retry_after_seconds(dict(headers or {}), _body_dict(body))
        hint = f"; the server asks to wait {wait:.0f}s" if wait else ""
        return RateLimited(f"rate limited by {where} (429){hint}: {message}; try again shortly", retry_after=wait)
    if status == 400 and _is_context_error(message):
        return ContextTooLong(f"the prompt is too long for the model: {message}", status=400)
    if status == 404:
        return ProviderError(f"not found (404): {message}; check the model name (/models lists them)", status=404)
    if status >= 500:
        return ProviderUnavailable(f"{where} failed ({status}): {message}; try again shortly", status=status)
    return ProviderError(f"{where} answered {status}: {message}", status=status)


def _body_dict(body: Any) -> Any:
    if isinstance(body, list) and len(body) == 1:
        return body[0]
    return body


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def map_transport_error(exc: BaseException, where: str, hint: str) -> ProviderError:
    """httpx / httpx2 (the SDK's) transport errors and unreadable bodies."""
    names = _class_names(exc)
    if "TimeoutException" in names:
        return ProviderUnavailable(f"the request to {where} timed out; try again or raise SLOP_REQUEST_TIMEOUT")
    if "ConnectError" in names:
        return ProviderUnavailable(f"cannot reach {where}; {hint}")
    if names & {"RemoteProtocolError", "ReadError", "StreamError", "NetworkError"}:
        return BadResponse(f"the connection to {where} was cut off mid-reply ({type(exc).__name__}); try again")
    detail = " ".join(str(exc).split())[:200]
    if isinstance(exc, ValueError):
        return BadResponse(f"{where} sent a malformed reply ({detail}); try again")
    return BadResponse(f"the request to {where} failed ({type(exc).__name__}: {detail}); try again")


def retry_delay(error: ProviderError, attempt: int, base: float) -> float | None:
    """Seconds to wait before the next attempt, or None when this error is final."""
    if error.status not in RETRY_STATUSES and not (error.status is None and isinstance(error, ProviderUnavailable)):
        return None
    backoff: float = base * 2.0**attempt
    if isinstance(error, RateLimited) and error.retry_after is not None:
        if error.retry_after > MAX_RETRY_WAIT:
            return None
        return max(error.retry_after, 0.0)
    return backoff


def with_retries(
    attempt_once: Callable[[], None],
    acc: Started,
    stop: threading.Event,
    map_error: Callable[[BaseException], ProviderError],
    max_retries: int,
    base: float,
) -> None:
    """Run one streamed request, retrying 429 / 5xx / connection failures that happen
    before anything was received. The wait honours Retry-After / RetryInfo.retryDelay
    and ends at once when the turn is cancelled."""
    attempt = 0
    while True:
        try:
            attempt_once()
            return
        except Exception as exc:
            if stop.is_set():
                return
            error = map_error(exc)
            wait = retry_delay(error, attempt, base) if attempt < max_retries and not acc.started else None
            if wait is None:
                raise error from exc
            attempt += 1
            if stop.wait(wait):
                return
