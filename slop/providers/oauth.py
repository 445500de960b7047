"""The Google OAuth token file used by Gemini Code Assist, and its refresh.

The file (mode 0600) is JSON: {"access_token", "refresh_token", "expiry" (epoch
seconds), "client_id", "client_secret", "project_id"}. `expiry_time` (std::slop),
`expiry_date` (milliseconds, Gemini CLI) and ISO-8601 `expiry` strings are read too."""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from slop.errors import AuthError
from slop.settings import PRIVATE_FILE_MODE, private_dir, tighten

DEFAULT_TOKEN_URL = "https://oauth2.googleapis.com/token"
DEFAULT_AUTH_URL = "https://accounts.google.com/o/oauth2/v2/auth"
SCOPES = (
    "https://www.googleapis.com/auth/cloud-platform",
    "https://www.googleapis.com/auth/userinfo.email",
    "https://www.googleapis.com/auth/userinfo.profile",
)
REFRESH_MARGIN = 60.0  # refresh a token that expires within this many seconds
SIGN_IN_HINT = "run `slop auth` to sign in to Gemini Code Assist"


@dataclass(frozen=True, slots=True)
class OAuthToken:
    access_token: str
    refresh_token: str = ""
    expiry: float = 0.0  # epoch seconds; 0 = unknown
    client_id: str = ""
    client_secret: str = field(default="", repr=False)
    project_id: str = ""

    def expired(self, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        return not self.access_token or (self.expiry > 0 and now >= self.expiry - REFRESH_MARGIN)


def token_url() -> str:
    return os.environ.get("SLOP_GCA_TOKEN_URL") or DEFAULT_TOKEN_URL


def client_credentials() -> tuple[str, str]:
    return os.environ.get("SLOP_GCA_CLIENT_ID", ""), os.environ.get("SLOP_GCA_CLIENT_SECRET", "")


def _expiry(data: dict[str, Any]) -> float:
    for key, scale in (("expiry", 1.0), ("expiry_time", 1.0), ("expiry_date", 0.001)):
        value = data.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value) * scale
        if isinstance(value, str) and value.strip():
            try:
                return float(value) * scale
            except ValueError:
                try:
                    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
                except ValueError:
                    continue
    return 0.0


def load_token(path: str | Path) -> OAuthToken:
    path = Path(path)
    if not path.exists():
        raise AuthError(f"no Code Assist sign-in found ({path} is missing); {SIGN_IN_HINT}")
    tighten(path, PRIVATE_FILE_MODE)  # a token file copied in with looser permissions
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AuthError(f"cannot read the token file {path} ({exc}); {SIGN_IN_HINT}") from exc
    if not isinstance(data, dict) or not (data.get("access_token") or data.get("refresh_token")):
        raise AuthError(f"the token file {path} holds no token; {SIGN_IN_HINT}")
    return OAuthToken(
        access_token=str(data.get("access_token") or ""),
        refresh_token=str(data.get("refresh_token") or ""),
        expiry=_expiry(data),
        client_id=str(data.get("client_id") or ""),
        client_secret=str(data.get("client_secret") or ""),
        project_id=str(data.get("project_id") or ""),
    )


def save_token(path: str | Path, token: OAuthToken) -> None:
    """Write the token file atomically with mode 0600."""
    path = Path(path)
    private_dir(path.parent)
    data = {k: v for k, v in asdict(token).items() if v not in ("", None)}
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def token_from_response(data: Any, previous: OAuthToken | None = None, now: float | None = None) -> OAuthToken:
    """The token endpoint's JSON answer as a token (a refresh keeps the old refresh token)."""
    if not isinstance(data, dict) or not data.get("access_token"):
        raise AuthError(f"the token endpoint sent no access token; {SIGN_IN_HINT}")
    now = time.time() if now is None else now
    try:
        lifetime = float(data.get("expires_in") or 3600)
    except (TypeError, ValueError):
        lifetime = 3600.0
    base = previous or OAuthToken(access_token="")
    return replace(
        base,
        access_token=str(data["access_token"]),
        refresh_token=str(data.get("refresh_token") or base.refresh_token),
        expiry=now + lifetime,
    )


def post_token_form(http: Any, url: str, form: dict[str, str]) -> Any:
    """POST a form to the token endpoint; errors become AuthError with Google's words."""
    try:
        response = http.post(url, data=form, headers={"Accept": "application/json"})
    except Exception as exc:
        raise AuthError(f"cannot reach the token endpoint {url} ({type(exc).__name__}); check the network") from exc
    try:
        data = response.json()
    except ValueError:
        data = {}
    if response.status_code >= 400:
        reason = ""
        if isinstance(data, dict):
            reason = ": ".join(str(data[k]) for k in ("error", "error_description") if data.get(k))
        raise AuthError(
            f"the token endpoint refused ({response.status_code}: {reason or 'no details'}); {SIGN_IN_HINT}",
            status=response.status_code,
        )
    return data


class TokenSource:
    """Hands out a valid access token, refreshing (and re-saving) it when it expires."""

    def __init__(self, path: str | Path, http: Any, url: str = "") -> None:
        self.path = Path(path)
        self._http = http
        self._url = url or token_url()
        self._token: OAuthToken | None = None
        self._lock = threading.Lock()

    def token(self) -> OAuthToken:
        with self._lock:
            if self._token is None:
                self._token = load_token(self.path)
            return self._token

    def access_token(self, force_refresh: bool = False) -> str:
        token = self.token()
        if force_refresh or token.expired():
            token = self.refresh()
        return token.access_token

    def refresh(self) -> OAuthToken:
        token = self.token()
        if not token.refresh_token:
            raise AuthError(f"the Code Assist token has expired and holds no refresh token; {SIGN_IN_HINT}")
        env_id, env_secret = client_credentials()
        form = {
            "grant_type": "refresh_token",
            "refresh_token": token.refresh_token,
            "client_id": token.client_id or env_id,
            "client_secret": token.client_secret or env_secret,
        }
        fresh = token_from_response(post_token_form(self._http, self._url, form), token)
        with self._lock:
            self._token = fresh
        save_token(self.path, fresh)
        return fresh

    def remember_project(self, project_id: str) -> None:
        token = self.token()
        if project_id and token.project_id != project_id:
            fresh = replace(token, project_id=project_id)
            with self._lock:
                self._token = fresh
            save_token(self.path, fresh)
