"""Gemini Code Assist beyond the happy path: the token file in the forms other tools
write it, the sign-in problems a user can run into (each one line that says to run
`slop auth`), an account without a project, and the server's errors as shown."""

from __future__ import annotations

import json
import stat
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from slop.errors import AuthError, ContextTooLong, ProviderError, ProviderUnavailable
from slop.providers.gca import CodeAssistProvider
from slop.providers.oauth import SIGN_IN_HINT, OAuthToken, load_token, token_from_response
from slop.providers.registry import ProviderConfig, build
from tests.fakellm import FakeLLM
from tests.providers.conftest import write_token
from tests.providers.helpers import run, user_prompt

NOW = 1_800_000_000.0
ISO_NOW = datetime.fromtimestamp(NOW, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def _provider(token: Path, project: str = "p", retries: int = 0) -> CodeAssistProvider:
    config = ProviderConfig(token_path=str(token), gca_project=project, max_retries=retries)
    provider = build("gemini_gca", "gemini-2.5-pro", config)
    assert isinstance(provider, CodeAssistProvider)
    return provider


def _token_file(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    path.chmod(0o600)
    return path


# ---- the token file ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("extra", "expiry"),
    [
        ({"expiry": NOW}, NOW),
        ({"expiry": str(NOW)}, NOW),
        ({"expiry_time": NOW + 5}, NOW + 5),
        ({"expiry_date": (NOW + 60) * 1000}, NOW + 60),  # gemini-cli writes milliseconds
        ({"expiry": ISO_NOW}, NOW),  # gcloud's ISO form
        ({"expiry": "not a time", "expiry_date": NOW * 1000}, NOW),  # an unreadable field, then the next
        ({"expiry": True}, 0.0),  # not a time at all: unknown
        ({}, 0.0),
    ],
)
def test_the_token_files_expiry_forms(tmp_path: Path, extra: dict[str, object], expiry: float) -> None:
    path = _token_file(tmp_path / "t.json", {"access_token": "a", "refresh_token": "r", **extra})
    assert load_token(path).expiry == pytest.approx(expiry)


def test_a_token_file_copied_in_world_readable_is_made_private(tmp_path: Path) -> None:
    path = _token_file(tmp_path / "t.json", {"access_token": "a"})
    path.chmod(0o644)
    assert load_token(path).access_token == "a"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "cannot read the token file"),
        ('["a list"]', "holds no token"),
        ('{"client_id": "only-the-client"}', "holds no token"),
    ],
)
def test_an_unusable_token_file_says_to_sign_in_again(tmp_path: Path, content: str, says: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(content)
    path.chmod(0o600)
    with pytest.raises(AuthError) as info:
        load_token(path)
    assert says in str(info.value) and str(info.value).endswith(SIGN_IN_HINT)


def test_the_token_endpoints_answer() -> None:
    previous = OAuthToken("old", refresh_token="keep-me", client_id="c")
    fresh = token_from_response({"access_token": "new", "expires_in": "120"}, previous, now=NOW)
    assert (fresh.access_token, fresh.refresh_token, fresh.client_id, fresh.expiry) == (
        "new",
        "keep-me",
        "c",
        NOW + 120,
    )
    odd = token_from_response({"access_token": "new", "expires_in": "soon", "refresh_token": "r2"}, now=NOW)
    assert (odd.expiry, odd.refresh_token) == (NOW + 3600, "r2")  # an hour, Google's usual lifetime
    with pytest.raises(AuthError, match="sent no access token"):
        token_from_response({"error": "invalid_grant"})


# ---- sign-in problems during a turn -------------------------------------------------------------
def test_an_expired_token_without_a_refresh_token(gca_env: FakeLLM, tmp_path: Path) -> None:
    path = _token_file(tmp_path / "t.json", {"access_token": "a", "expiry": time.time() - 10})
    with pytest.raises(AuthError, match="has expired and holds no refresh token; run `slop auth`"):
        run(_provider(path), user_prompt())
    assert gca_env.requests == []


def test_a_refresh_refused_quotes_google(gca_env: FakeLLM, tmp_path: Path) -> None:
    path = write_token(tmp_path / "t.json", expires_in=-10)
    gca_env.token_error = "invalid_grant"
    with pytest.raises(AuthError) as info:
        run(_provider(path), user_prompt())
    assert str(info.value) == f"the token endpoint refused (400: invalid_grant: Bad Request); {SIGN_IN_HINT}"


def test_an_unreachable_token_endpoint(gca_env: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_token(tmp_path / "t.json", expires_in=-10)
    monkeypatch.setenv("SLOP_GCA_TOKEN_URL", "http://127.0.0.1:9/token")  # the discard port: nothing listens
    with pytest.raises(AuthError, match=r"cannot reach the token endpoint http://127.0.0.1:9/token \(\w+\)"):
        run(_provider(path), user_prompt())


def test_a_refresh_uses_the_client_from_the_environment(
    gca_env: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_token(tmp_path / "t.json", expires_in=-10, client_id="", client_secret="")
    monkeypatch.setenv("SLOP_GCA_CLIENT_ID", "env-client")
    monkeypatch.setenv("SLOP_GCA_CLIENT_SECRET", "env-secret")
    gca_env.enqueue_text("fresh")
    assert run(_provider(path), user_prompt())[0].text == "fresh"
    token_request = gca_env.last_request("/token")
    assert token_request.form is not None and token_request.form["client_id"] == "env-client"
    assert token_request.form["client_secret"] == "env-secret"
    saved = load_token(path)
    assert saved.access_token == gca_env.tokens_issued[-1] and saved.expiry > time.time()


# ---- an account without a project ------------------------------------------------------------
def test_an_account_without_a_project_is_onboarded_then_told_what_to_set(gca_env: FakeLLM, token_file: Path) -> None:
    gca_env.gca_project = ""  # loadCodeAssist names none, and onboarding yields none either
    with pytest.raises(AuthError) as info:
        run(_provider(token_file, project=""), user_prompt())
    assert "set GOOGLE_CLOUD_PROJECT" in str(info.value)
    load, onboard = gca_env.requests
    assert (load.path, onboard.path) == ("/v1internal:loadCodeAssist", "/v1internal:onboardUser")
    assert onboard.json["tierId"] == "standard-tier"  # the tier the server marked as default
    assert onboard.json["metadata"]["pluginType"] == "GEMINI"


# ---- the server's errors ------------------------------------------------------------------
def test_a_5xx_names_code_assist_and_is_retried(gca_env: FakeLLM, token_file: Path) -> None:
    gca_env.enqueue_error(503, message="The service is currently unavailable.")
    with pytest.raises(ProviderUnavailable) as info:
        run(_provider(token_file), user_prompt())
    assert str(info.value) == (
        f"Gemini Code Assist ({gca_env.gca_base_url}) failed (503): The service is currently unavailable.; "
        "try again shortly"
    )
    gca_env.enqueue_error(500)
    gca_env.enqueue_text("second time")
    provider = CodeAssistProvider(
        token_path=str(token_file), project="p", base_url=gca_env.gca_base_url, max_retries=1, retry_base=0.01
    )
    assert run(provider, user_prompt())[0].text == "second time"


def test_a_403_says_to_sign_in(gca_env: FakeLLM, token_file: Path) -> None:
    gca_env.enqueue_error(403, message="The caller does not have permission")
    with pytest.raises(AuthError) as info:
        run(_provider(token_file, retries=2), user_prompt())
    assert str(info.value).endswith(f"The caller does not have permission; {SIGN_IN_HINT}")
    assert sum("Generate" in r.path for r in gca_env.requests) == 1


def test_a_prompt_too_long(gca_env: FakeLLM, token_file: Path) -> None:
    message = "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    gca_env.enqueue_error(400, message=message)
    with pytest.raises(ContextTooLong, match=r"input token count \(1200000\)"):
        run(_provider(token_file), user_prompt())


def test_a_plain_text_error_page_is_quoted(gca_env: FakeLLM, token_file: Path) -> None:
    gca_env.enqueue_error(418, body="upstream   connect error\nor disconnect")
    with pytest.raises(ProviderError) as info:
        run(_provider(token_file), user_prompt())
    assert (
        str(info.value)
        == f"Gemini Code Assist ({gca_env.gca_base_url}) answered 418: upstream connect error or disconnect"
    )


def test_an_unreachable_code_assist(gca_env: FakeLLM, token_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLOP_GCA_BASE_URL", "http://127.0.0.1:9")
    hint = r"cannot reach Gemini Code Assist \(http://127.0.0.1:9\); check your network or SLOP_GCA_BASE_URL"
    with pytest.raises(ProviderUnavailable, match=hint):
        run(_provider(token_file), user_prompt())
