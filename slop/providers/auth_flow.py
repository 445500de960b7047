"""`slop auth`: sign in to Gemini Code Assist with Google OAuth (installed-app flow
with PKCE). Prints the URL to open, reads back the redirect URL (or just the code),
exchanges it at the token endpoint and saves the token file (mode 0600).

Env: SLOP_GCA_CLIENT_ID / SLOP_GCA_CLIENT_SECRET (the OAuth client), and for tests or
proxies SLOP_GCA_AUTH_URL, SLOP_GCA_TOKEN_URL, SLOP_GCA_REDIRECT_URI."""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TextIO
from urllib.parse import parse_qs, urlencode, urlsplit

from slop.errors import AuthError
from slop.providers.oauth import (
    DEFAULT_AUTH_URL,
    SCOPES,
    OAuthToken,
    client_credentials,
    post_token_form,
    save_token,
    token_from_response,
    token_url,
)
from slop.settings import Settings, user_home

DEFAULT_REDIRECT_URI = "http://localhost"
TOKEN_FILE = "oauth_token.json"


def token_path_for(settings: Settings) -> Path:
    """Where the token lives: the same path app.provider_config gives the provider."""
    home = Path(settings.home) if settings.home else user_home()
    return home / TOKEN_FILE


def pkce_pair() -> tuple[str, str]:
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode("ascii")
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode("ascii")
    return verifier, challenge


def authorization_url(client_id: str, redirect_uri: str, challenge: str, state: str) -> str:
    query = {
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "response_type": "code",
        "scope": " ".join(SCOPES),
        "access_type": "offline",
        "prompt": "consent",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": state,
    }
    return (os.environ.get("SLOP_GCA_AUTH_URL") or DEFAULT_AUTH_URL) + "?" + urlencode(query)


def code_from(pasted: str, state: str) -> str:
    """The authorization code from a pasted redirect URL, or the pasted code itself."""
    text = pasted.strip()
    if not text:
        raise AuthError("nothing was pasted; run `slop auth` again and paste the address you were sent to")
    if not any(marker in text for marker in ("://", "code=", "error=", "state=")):
        return text  # just the code
    query = parse_qs(urlsplit(text).query if "?" in text else text)
    if query.get("error"):
        raise AuthError(f"Google refused the sign-in ({query['error'][0]}); run `slop auth` again")
    if query.get("state") and query["state"][0] != state:
        raise AuthError("the pasted address belongs to another sign-in attempt (state mismatch); run `slop auth` again")
    codes = query.get("code")
    if not codes:
        raise AuthError("no code in the pasted address; paste the whole address from the browser's address bar")
    return codes[0]


def run_auth(settings: Settings, *, read: Callable[[str], str] | None = None, out: TextIO | None = None) -> int:
    """The `slop auth` command. Returns the exit code."""
    out = out or sys.stdout
    read = read or input
    client_id, client_secret = client_credentials()
    if not client_id:
        print(
            "slop auth: set SLOP_GCA_CLIENT_ID and SLOP_GCA_CLIENT_SECRET to the OAuth client to sign in with "
            "(a Google Cloud 'Desktop app' OAuth client, or the one your organisation uses for Gemini Code Assist)",
            file=out,
        )
        return 2
    redirect_uri = os.environ.get("SLOP_GCA_REDIRECT_URI") or DEFAULT_REDIRECT_URI
    verifier, challenge = pkce_pair()
    state = secrets.token_urlsafe(16)
    print("Sign in to Gemini Code Assist:\n", file=out)
    print("  1. Open this address in a browser and allow access:\n", file=out)
    print(authorization_url(client_id, redirect_uri, challenge, state) + "\n", file=out)
    print(
        f"  2. The browser then goes to {redirect_uri}/?... (the page may fail to load; that is expected).\n"
        "     Copy that whole address from the address bar and paste it here (or paste just the code).\n",
        file=out,
    )
    out.flush()
    try:
        pasted = read("Redirect URL or code: ")
    except (EOFError, KeyboardInterrupt):
        print("\nslop auth: cancelled", file=out)
        return 1
    path = token_path_for(settings)
    try:
        code = code_from(pasted, state)
        token = exchange_code(code, client_id, client_secret, verifier, redirect_uri)
        save_token(path, token)
    except AuthError as exc:
        print(f"slop auth: {exc}", file=out)
        return 1
    print(f"Signed in. The token is saved in {path} (readable only by you).", file=out)
    print("slop uses it when no API key is set, or with --provider gemini_gca.", file=out)
    return 0


def exchange_code(code: str, client_id: str, client_secret: str, verifier: str, redirect_uri: str) -> OAuthToken:
    import httpx

    form = {
        "grant_type": "authorization_code",
        "code": code,
        "client_id": client_id,
        "client_secret": client_secret,
        "code_verifier": verifier,
        "redirect_uri": redirect_uri,
    }
    with httpx.Client(timeout=30.0) as http:
        data = post_token_form(http, token_url(), form)
    return replace(token_from_response(data), client_id=client_id, client_secret=client_secret)
