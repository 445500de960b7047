"""The retry policy: how long a provider's error asks slop to wait (Retry-After in every
form servers send it), which errors are retried and which are final, the backoff, and a
wait that ends when the user cancels. The waits are observed through the stop event the
loop waits on (its only clock), never by timing the test."""

from __future__ import annotations

import threading
from datetime import datetime, timezone
from email.utils import format_datetime
from typing import Any

import pytest

from slop.errors import AuthError, BadResponse, ContextTooLong, ProviderError, ProviderUnavailable, RateLimited
from slop.providers.gemini import GeminiProvider
from slop.providers.gemini_errors import (
    MAX_RETRY_WAIT,
    GoogleHTTPError,
    map_google_error,
    retry_delay,
    with_retries,
)
from slop.providers.retry import retry_after_seconds
from tests.fakellm import FakeLLM
from tests.providers.helpers import run, user_prompt

NOW = 1_800_000_000.0  # a fixed "now" (2027) for the date and epoch forms


# ---- how long the server asks to wait ----------------------------------------------------
@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": " 2.5 "}, 2.5),
        ({"RETRY-AFTER": "0"}, 0.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"Retry-After-Ms": "250", "Retry-After": "9"}, 0.25),  # the finer header wins
        ({"x-ratelimit-reset": "12"}, 12.0),  # seconds from now
        ({"x-ratelimit-reset": f"{NOW + 30:.0f}"}, 30.0),  # an epoch timestamp
        ({"x-ratelimit-reset": f"{NOW - 30:.0f}"}, 0.0),  # a reset already past: no wait
    ],
)
def test_retry_after_headers(headers: dict[str, str], expected: float) -> None:
    assert retry_after_seconds(headers, now=NOW) == pytest.approx(expected)


def test_retry_after_as_an_http_date() -> None:
    when = datetime.fromtimestamp(NOW + 42, tz=timezone.utc)
    assert retry_after_seconds({"Retry-After": format_datetime(when, usegmt=True)}, now=NOW) == pytest.approx(42)
    past = datetime.fromtimestamp(NOW - 600, tz=timezone.utc)
    assert retry_after_seconds({"Retry-After": format_datetime(past, usegmt=True)}, now=NOW) == 0.0


@pytest.mark.parametrize(
    "headers",
    [
        {"Retry-After": "soon"},  # neither seconds nor a date
        {"retry-after-ms": "a while"},
        {"x-ratelimit-reset": "tomorrow"},
        {"x-request-id": "req_1"},
        {},
    ],
)
def test_unreadable_or_absent_hints_mean_no_wait(headers: dict[str, str]) -> None:
    assert retry_after_seconds(headers, now=NOW) is None
    assert retry_after_seconds(None) is None


def test_an_unreadable_header_falls_back_to_the_body() -> None:
    body = {"error": {"details": [{"retryDelay": "4s"}]}}
    assert retry_after_seconds({"Retry-After": "soon"}, body, now=NOW) == 4.0


def _status(*details: Any, message: str = "Resource has been exhausted") -> dict[str, Any]:
    return {"error": {"code": 429, "message": message, "status": "RESOURCE_EXHAUSTED", "details": list(details)}}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (_status({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "17s"}), 17.0),
        (_status({"@type": "x.QuotaFailure", "violations": []}, {"retryDelay": "0.5s"}), 0.5),
        (_status({"reason": "RATE_LIMIT_EXCEEDED", "metadata": {"quotaResetDelay": "3.25s"}}), 3.25),
        (_status("not a detail", {"retryDelay": "8s"}), 8.0),  # odd entries are skipped
        (_status(message="You have exhausted your capacity. Your quota will reset after 21s."), 21.0),
        ({"message": "quota will Reset After 2s"}, 2.0),  # a bare Status, no "error" wrapper
        (_status({"retryDelay": "soon"}), None),
        (_status({"retryDelay": "5m"}), None),  # only the seconds form is a Duration in JSON
        (_status(), None),
        ({"error": "overloaded"}, None),
        ("<html>Too Many Requests</html>", None),
        (None, None),
    ],
)
def test_google_retry_info_in_the_body(body: Any, expected: float | None) -> None:
    assert retry_after_seconds({}, body, now=NOW) == expected


# ---- which errors are retried, and how long the wait is --------------------------------------
@pytest.mark.parametrize(
    ("error", "attempt", "expected"),
    [
        (ProviderUnavailable("503", status=503), 0, 0.5),
        (ProviderUnavailable("502", status=502), 1, 1.0),
        (ProviderUnavailable("500", status=500), 2, 2.0),
        (ProviderUnavailable("504", status=504), 3, 4.0),
        (ProviderUnavailable("cannot reach the server"), 1, 1.0),  # a connection failure (no status)
        (RateLimited("429"), 1, 1.0),  # no hint: the same backoff
        (RateLimited("429", retry_after=3), 5, 3.0),  # the server's delay, not the backoff
        (RateLimited("429", retry_after=0), 0, 0.0),
        (RateLimited("429", retry_after=MAX_RETRY_WAIT), 0, MAX_RETRY_WAIT),
        (RateLimited("429", retry_after=MAX_RETRY_WAIT + 1), 0, None),  # too long: a clear error now
        (AuthError("401", status=401), 0, None),
        (AuthError("403", status=403), 0, None),
        (ContextTooLong("too long", status=400), 0, None),
        (ProviderError("not found", status=404), 0, None),
        (ProviderError("bad request", status=400), 0, None),
        (BadResponse("malformed"), 0, None),  # a broken reply is not retried blindly
    ],
)
def test_retry_delay(error: ProviderError, attempt: int, expected: float | None) -> None:
    assert retry_delay(error, attempt, 0.5) == expected


class WaitLog(threading.Event):
    """The stop event the retry loop waits on, recording each wait; `cancel_on` sets
    the event when that wait begins, the way Esc during a wait does."""

    def __init__(self, cancel_on: int | None = None) -> None:
        super().__init__()
        self.waits: list[float] = []
        self.cancel_on = cancel_on

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(float(timeout or 0))
        if self.cancel_on is not None and len(self.waits) >= self.cancel_on:
            self.set()
        return self.is_set()


class Attempts:
    """One request attempt per call: raises the scripted errors in order, then succeeds."""

    def __init__(self, *errors: BaseException, started_after: int | None = None) -> None:
        self.errors = list(errors)
        self.calls = 0
        self.started_after = started_after
        self.started = False  # the accumulator's view: did any of the reply arrive?

    def __call__(self) -> None:
        self.calls += 1
        if self.started_after is not None and self.calls > self.started_after:
            self.started = True
        if self.errors:
            raise self.errors.pop(0)


def _map(exc: BaseException) -> ProviderError:
    if isinstance(exc, GoogleHTTPError):
        return map_google_error(exc.status, exc.body, exc.headers, where="the Gemini API", auth_hint="check the key")
    raise AssertionError(f"unexpected {exc!r}")


def _http(status: int, retry: str | None = None, **headers: str) -> GoogleHTTPError:
    details = [{"retryDelay": retry}] if retry else []
    return GoogleHTTPError(
        status, {"error": {"code": status, "message": f"fake {status}", "details": details}}, headers
    )


def test_5xx_backs_off_exponentially_then_succeeds() -> None:
    attempts, stop = Attempts(_http(503), _http(500), _http(502)), WaitLog()
    with_retries(attempts, attempts, stop, _map, max_retries=3, base=0.25)
    assert attempts.calls == 4
    assert stop.waits == [0.25, 0.5, 1.0]


def test_429_waits_what_the_server_asks() -> None:
    attempts, stop = Attempts(_http(429, retry="6s"), _http(429, **{"Retry-After": "2"})), WaitLog()
    with_retries(attempts, attempts, stop, _map, max_retries=2, base=0.25)
    assert attempts.calls == 3
    assert stop.waits == [6.0, 2.0]


def test_retries_run_out_with_the_last_error() -> None:
    attempts, stop = Attempts(_http(503), _http(503), _http(503)), WaitLog()
    with pytest.raises(ProviderUnavailable, match=r"the Gemini API failed \(503\): fake 503; try again shortly"):
        with_retries(attempts, attempts, stop, _map, max_retries=2, base=0.1)
    assert attempts.calls == 3
    assert stop.waits == [0.1, 0.2]


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_are_never_retried(status: int) -> None:
    attempts, stop = Attempts(_http(status)), WaitLog()
    with pytest.raises(ProviderError) as info:
        with_retries(attempts, attempts, stop, _map, max_retries=5, base=0.1)
    assert info.value.status == status
    assert (attempts.calls, stop.waits) == (1, [])


def test_a_429_asking_for_minutes_fails_at_once_with_the_wait() -> None:
    attempts, stop = Attempts(_http(429, retry="3600s")), WaitLog()
    with pytest.raises(RateLimited, match="asks to wait 3600s") as info:
        with_retries(attempts, attempts, stop, _map, max_retries=5, base=0.1)
    assert info.value.retry_after == 3600
    assert (attempts.calls, stop.waits) == (1, [])


def test_nothing_is_retried_once_part_of_the_reply_arrived() -> None:
    # A retry would show the user the start of the reply twice.
    attempts, stop = Attempts(_http(503), _http(503), started_after=1), WaitLog()
    with pytest.raises(ProviderUnavailable):
        with_retries(attempts, attempts, stop, _map, max_retries=5, base=0.1)
    assert (attempts.calls, stop.waits) == (2, [0.1])


def test_cancel_during_the_wait_ends_the_request_without_an_error() -> None:
    attempts, stop = Attempts(_http(429, retry="30s"), _http(503)), WaitLog(cancel_on=1)
    with_retries(attempts, attempts, stop, _map, max_retries=5, base=0.1)
    assert (attempts.calls, stop.waits) == (1, [30.0])


def test_an_error_after_cancel_is_not_reported() -> None:
    stop = WaitLog()
    stop.set()  # the user pressed Esc; the aborted request then raises
    attempts = Attempts(_http(500))
    with_retries(attempts, attempts, stop, _map, max_retries=5, base=0.1)
    assert (attempts.calls, stop.waits) == (1, [])


# ---- the same policy through the real SDK and the fake server ----------------------------
def _gemini(fake: FakeLLM, retries: int) -> GeminiProvider:
    return GeminiProvider(
        api_key="k", base_url=fake.gemini_base_url, model="fake-gemini", max_retries=retries, retry_base=0.01
    )


def _generations(fake: FakeLLM) -> int:
    return sum("enerateContent" in r.path for r in fake.requests)


def test_sdk_400_is_sent_once(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(400, message="Invalid JSON payload received.")
    with pytest.raises(ProviderError, match="answered 400: Invalid JSON payload received") as info:
        run(_gemini(fake_llm, 3), user_prompt())
    assert info.value.status == 400 and _generations(fake_llm) == 1


def test_sdk_5xx_then_429_then_success(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(500)
    fake_llm.enqueue_error(429, retry_after=0.01)
    fake_llm.enqueue_text("third time lucky")
    reply, _ = run(_gemini(fake_llm, 2), user_prompt())
    assert reply.text == "third time lucky"
    assert _generations(fake_llm) == 3


def test_sdk_429_with_a_long_delay_is_one_request_and_a_clear_line(fake_llm: FakeLLM) -> None:
    fake_llm.enqueue_error(429, retry_after=120)
    with pytest.raises(RateLimited) as info:
        run(_gemini(fake_llm, 3), user_prompt())
    assert "the server asks to wait 120s" in str(info.value)
    assert _generations(fake_llm) == 1


def test_sdk_unreachable_server_is_retried_then_named(fake_llm: FakeLLM) -> None:
    base = fake_llm.gemini_base_url
    fake_llm.stop()  # nothing listens on the port any more
    provider = GeminiProvider(api_key="k", base_url=base, model="fake-gemini", max_retries=1, retry_base=0.01)
    with pytest.raises(ProviderUnavailable, match=r"cannot reach .*GOOGLE_GEMINI_BASE_URL"):
        run(provider, user_prompt())
