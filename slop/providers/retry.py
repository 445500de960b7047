"""Reading retry hints from provider errors. Pure; table-tested."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Any

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")
_RESET_AFTER = re.compile(r"reset after (\d+(?:\.\d+)?)s", re.IGNORECASE)


def retry_after_seconds(headers: Mapping[str, str] | None, body: Any = None, now: float | None = None) -> float | None:
    """Seconds to wait, from Retry-After (seconds or HTTP date), retry-after-ms,
    x-ratelimit-reset, Google's RetryInfo.retryDelay or a "reset after Ns" message."""
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    now = time.time() if now is None else now
    if "retry-after-ms" in lowered:
        value = _number(lowered["retry-after-ms"])
        if value is not None:
            return value / 1000
    if "retry-after" in lowered:
        raw = lowered["retry-after"].strip()
        value = _number(raw)
        if value is not None:
            return value
        try:
            return max(0.0, parsedate_to_datetime(raw).timestamp() - now)
        except (TypeError, ValueError):
            pass
    if "x-ratelimit-reset" in lowered:
        value = _number(lowered["x-ratelimit-reset"])
        if value is not None:
            return max(0.0, value - now) if value > 1e9 else value
    return _google_retry_delay(body)


def _google_retry_delay(body: Any) -> float | None:
    if isinstance(body, dict):
        error = body.get("error", body)
        for detail in (error.get("details") or []) if isinstance(error, dict) else []:
            if not isinstance(detail, dict):
                continue
            for key in ("retryDelay", "quotaResetDelay"):
                delay = detail.get(key) or (detail.get("metadata") or {}).get(key)
                match = _DURATION.match(str(delay)) if delay else None
                if match:
                    return float(match.group(1))
        message = error.get("message", "") if isinstance(error, dict) else ""
        match = _RESET_AFTER.search(str(message))
        if match:
            return float(match.group(1))
    return None


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
