"""Gemini Code Assist: envelope, OAuth token refresh, project discovery, `slop auth`."""

from __future__ import annotations

import io
import json
import stat
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from slop import parser
from slop.errors import AuthError, RateLimited
from slop.providers.auth_flow import code_from, run_auth
from slop.providers.base import ReasoningDelta, TextDelta
from slop.providers.gca import CodeAssistProvider, sse_payloads
from slop.providers.oauth import load_token
from slop.providers.registry import ProviderConfig, build, detect_kind
from slop.records import Role, Status
from slop.settings import Settings
from tests.fakellm import FakeLLM
from tests.providers.conftest import write_token
from tests.providers.helpers import msg, prompt_of, run, user_prompt


def provider_for(token: Path, project: str = "", model: str = "gemini-2.5-pro") -> CodeAssistProvider:
    provider = build("gemini_gca", model, ProviderConfig(token_path=str(token), gca_project=project, max_retries=0))
    assert isinstance(provider, CodeAssistProvider)
    return provider


def test_envelope_wraps_the_request_and_discovers_the_project(gca_env: FakeLLM, token_file: Path) -> None:
    gca_env.enqueue_text("Hi from Code Assist", chunks=["Hi", " from Code Assist"], reasoning="hm", usage=(30, 6))
    provider = provider_for(token_file)
    reply, events = run(provider, user_prompt("hello"))
    assert reply.text == "Hi from Code Assist" and reply.reasoning == "hm"
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("Hi"), TextDelta(" from Code Assist")]
    assert any(isinstance(e, ReasoningDelta) for e in events)
    # Gemini reports thinking apart from the answer (thoughtsTokenCount, 1 here) and bills
    # both as output: completion_tokens is their sum, reasoning_tokens the thinking part.
    assert reply.usage is not None
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.reasoning_tokens) == (30, 7, 1)
    load, generate = gca_env.requests
    assert load.path == "/v1internal:loadCodeAssist"
    assert load.headers["authorization"] == "Bearer valid-access"
    assert load.json["metadata"]["pluginType"] == "GEMINI"
    assert (generate.path, generate.query) == ("/v1internal:streamGenerateContent", {"alt": "sse"})
    assert generate.headers["authorization"] == "Bearer valid-access"
    envelope = generate.json
    assert envelope["model"] == "gemini-2.5-pro"
    assert envelope["project"] == "fake-project"
    assert envelope["user_prompt_id"]
    inner = envelope["request"]
    assert inner["contents"] == [{"role": "user", "parts": [{"text": "hello"}]}]
    assert inner["systemInstruction"]["parts"] == [{"text": "You are a test assistant."}]
    assert inner["tools"][0]["functionDeclarations"][0]["name"] == "read_file"
    assert inner["generationConfig"] == {"thinkingConfig": {"includeThoughts": True}}
    assert load_token(token_file).project_id == "fake-project"  # cached for the next start
    run(provider_for(token_file), user_prompt())
    assert [r.path for r in gca_env.requests].count("/v1internal:loadCodeAssist") == 1


def test_configured_project_skips_discovery(gca_env: FakeLLM, token_file: Path) -> None:
    gca_env.enqueue_text("ok")
    run(provider_for(token_file, project="my-project"), user_prompt())
    assert [r.path for r in gca_env.requests] == ["/v1internal:streamGenerateContent"]
    assert gca_env.last_request().json["project"] == "my-project"


def test_tool_calls_keep_the_signature_exactly_and_go_back(gca_env: FakeLLM, token_file: Path) -> None:
    provider = provider_for(token_file, project="p")
    gca_env.enqueue_tool_calls([("read_file", {"path": "a.py"}), ("read_file", {"path": "b.py"}, "id-b")])
    first, _ = run(provider, user_prompt("read"))
    assert first.finish_reason == "tool_calls" and len(first.tool_calls) == 2
    signature = gca_env.thought_signatures[-1]
    assert json.loads(first.native)["parts"][0]["thoughtSignature"] == signature
    assert provider.wire == "gemini_gca"
    c1, c2 = first.tool_calls
    history = (
        msg(1, Role.USER, "read", wire="gemini_gca"),
        msg(2, Role.ASSISTANT, first.native, Status.TOOL_CALL, wire="gemini_gca"),
        msg(3, Role.TOOL, "A", wire="gemini_gca", call_id=c1.id),
        msg(4, Role.TOOL, "B", wire="gemini_gca", call_id=c2.id),
    )
    gca_env.enqueue_text("done")
    run(provider, prompt_of(*history))
    contents = gca_env.last_request().json["request"]["contents"]
    assert contents[1]["parts"][0]["thoughtSignature"] == signature  # byte-identical on the wire
    assert [p["functionResponse"]["id"] for p in contents[2]["parts"]] == [c1.id, "id-b"]
    assert contents[1] == json.loads(first.native)  # the stored Content goes back unchanged
    assert parser.parse(history[1]).tool_calls == first.tool_calls


def test_expired_token_is_refreshed_and_saved(gca_env: FakeLLM, tmp_path: Path) -> None:
    token = write_token(tmp_path / "tok.json", expires_in=-10, access="stale")
    gca_env.enqueue_text("fresh")
    reply, _ = run(provider_for(token, project="p"), user_prompt())
    assert reply.text == "fresh"
    refresh = gca_env.requests[0]
    assert refresh.path == "/token"
    assert refresh.form == {
        "grant_type": "refresh_token",
        "refresh_token": "refresh-1",
        "client_id": "client-1",
        "client_secret": "secret-1",
    }
    assert gca_env.last_request().headers["authorization"] == "Bearer fake-access-1"
    saved = load_token(token)
    assert saved.access_token == "fake-access-1" and saved.refresh_token == "refresh-1"
    assert saved.expiry > time.time() + 3000
    assert stat.S_IMODE(token.stat().st_mode) == 0o600


def test_refresh_refused_is_an_auth_error(gca_env: FakeLLM, tmp_path: Path) -> None:
    gca_env.token_error = "invalid_grant"
    token = write_token(tmp_path / "tok.json", expires_in=-10)
    with pytest.raises(AuthError, match=r"invalid_grant.*slop auth"):
        run(provider_for(token, project="p"), user_prompt())


def test_a_401_refreshes_once_and_retries(gca_env: FakeLLM, token_file: Path) -> None:
    gca_env.enqueue_error(401)
    gca_env.enqueue_text("second try")
    reply, _ = run(provider_for(token_file, project="p"), user_prompt())
    assert reply.text == "second try"
    assert [r.path for r in gca_env.requests] == [
        "/v1internal:streamGenerateContent",
        "/token",
        "/v1internal:streamGenerateContent",
    ]


def test_missing_token_is_a_clear_auth_error(gca_env: FakeLLM, tmp_path: Path) -> None:
    with pytest.raises(AuthError, match=r"slop auth"):
        run(provider_for(tmp_path / "nope.json"), user_prompt())
    assert gca_env.requests == []


def test_rate_limit_and_errors_map_like_gemini(gca_env: FakeLLM, token_file: Path) -> None:
    gca_env.enqueue_error(429, retry_after=12)
    with pytest.raises(RateLimited) as info:
        run(provider_for(token_file, project="p"), user_prompt())
    assert info.value.retry_after == 12


def test_list_models_is_static_and_includes_the_current_one(token_file: Path) -> None:
    models = provider_for(token_file, model="gemini-9-custom").list_models()
    assert "gemini-2.5-pro" in models and "gemini-9-custom" in models


def test_detect_kind_falls_back_to_a_saved_token(token_file: Path) -> None:
    assert detect_kind(ProviderConfig(token_path=str(token_file))) == "gemini_gca"
    assert detect_kind(ProviderConfig(gemini_api_key="k", token_path=str(token_file))) == "gemini"


def test_sse_payloads_join_data_lines() -> None:
    lines = ['data: {"a":', "data: 1}", "", ": comment", 'data: {"b": 2}', ""]
    assert list(sse_payloads(lines)) == [{"a": 1}, {"b": 2}]


# ---- slop auth ------------------------------------------------------------------------------------
@pytest.fixture
def auth_env(gca_env: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> FakeLLM:
    monkeypatch.setenv("SLOP_GCA_CLIENT_ID", "my-client")
    monkeypatch.setenv("SLOP_GCA_CLIENT_SECRET", "my-secret")
    monkeypatch.setenv("SLOP_GCA_AUTH_URL", "https://auth.example/authorize")
    return gca_env


def test_auth_flow_prints_the_url_exchanges_the_code_and_saves_the_token(auth_env: FakeLLM, tmp_path: Path) -> None:
    out = io.StringIO()

    def paste(prompt: str) -> str:
        url = next(line for line in out.getvalue().splitlines() if line.startswith("https://auth.example/"))
        query = parse_qs(urlsplit(url).query)
        assert query["client_id"] == ["my-client"] and query["code_challenge_method"] == ["S256"]
        assert query["access_type"] == ["offline"] and "cloud-platform" in query["scope"][0]
        return f"http://localhost/?state={query['state'][0]}&code=the-code&scope=x"

    home = tmp_path / "authhome"
    assert run_auth(Settings(home=str(home)), read=paste, out=out) == 0
    exchange = auth_env.last_request("/token")
    assert exchange.form is not None
    assert exchange.form["grant_type"] == "authorization_code" and exchange.form["code"] == "the-code"
    assert exchange.form["client_id"] == "my-client" and len(exchange.form["code_verifier"]) >= 43
    token_path = home / "oauth_token.json"
    token = load_token(token_path)
    assert (token.access_token, token.client_id, token.client_secret) == ("fake-access-1", "my-client", "my-secret")
    assert stat.S_IMODE(token_path.stat().st_mode) == 0o600
    assert "Signed in" in out.getvalue()


def test_auth_flow_without_a_client_id_explains(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SLOP_GCA_CLIENT_ID", raising=False)
    out = io.StringIO()
    assert run_auth(Settings(home=str(tmp_path)), read=lambda p: "", out=out) == 2
    assert "SLOP_GCA_CLIENT_ID" in out.getvalue()


def test_auth_flow_rejects_a_foreign_state(auth_env: FakeLLM, tmp_path: Path) -> None:
    out = io.StringIO()
    code = run_auth(Settings(home=str(tmp_path)), read=lambda p: "http://localhost/?state=zzz&code=c", out=out)
    assert code == 1 and "state mismatch" in out.getvalue()
    assert not (tmp_path / "oauth_token.json").exists()


def test_code_from_accepts_a_bare_code() -> None:
    assert code_from("  4/0Abc-def  ", "s") == "4/0Abc-def"
    with pytest.raises(AuthError, match="refused"):
        code_from("http://localhost/?error=access_denied&state=s", "s")


def test_slop_auth_command_is_wired(auth_env: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from slop.cli import main

    monkeypatch.setenv("SLOP_HOME", str(tmp_path / "clihome"))
    monkeypatch.setattr("builtins.input", lambda prompt="": "raw-code")
    assert main(["auth"]) == 0
    assert auth_env.last_request("/token").form["code"] == "raw-code"  # type: ignore[index]
    assert (tmp_path / "clihome" / "oauth_token.json").exists()
