"""/model, /models and /usage through a recording CommandIO."""

from __future__ import annotations

from pathlib import Path

from slop.commands.model import complete_model, split_spec
from tests.fakellm import FakeLLM
from tests.providers.conftest import AppFactory, write_token


def test_model_shows_the_current_provider_and_model(make_app: AppFactory) -> None:
    app, rec = make_app()
    assert app.engine.handle("/model").ok
    assert rec.kinds("info")[-1] == "provider: openai · model: fake-gpt"


def test_model_name_switches_within_the_provider_and_is_saved(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    assert app.engine.handle("/model fake-gpt-mini").ok
    assert "now using openai · fake-gpt-mini" in rec.kinds("success")[-1]
    info = app.store.sessions.get(app.ctx.session)
    assert (info.provider, info.model) == ("openai", "fake-gpt-mini")
    fake_llm.enqueue_text("hi")
    assert app.engine.handle("hello").ok
    assert fake_llm.last_request().json["model"] == "fake-gpt-mini"


def test_model_switches_provider(make_app: AppFactory) -> None:
    app, rec = make_app()
    assert app.engine.handle("/model gemini:fake-gemini").ok
    assert (app.providers.kind, app.providers.label) == ("gemini", "fake-gemini")
    provider = app.providers.current()
    assert provider is not None and provider.wire == "gemini"
    assert app.engine.handle("/model").ok
    assert rec.kinds("info")[-1] == "provider: gemini · model: fake-gemini"
    assert app.engine.handle("/model gemini:").ok  # the provider's default model
    assert app.providers.label == "gemini-2.5-flash"


def test_model_refuses_a_provider_without_credentials(make_app: AppFactory) -> None:
    app, rec = make_app()
    outcome = app.engine.handle("/model gemini_gca:gemini-2.5-pro")
    assert not outcome.ok and "slop auth" in rec.kinds("error")[-1]
    assert app.providers.kind == "openai"
    assert app.store.sessions.get(app.ctx.session).provider == ""
    gem_only, rec2 = make_app("gemini", gemini_base_url="", gemini_api_key="gm-key")
    assert not gem_only.engine.handle("/model openai:gpt-4o").ok
    assert "OPENAI_API_KEY" in rec2.kinds("error")[-1]


def test_model_can_switch_to_code_assist_with_a_token(make_app: AppFactory, tmp_path: Path) -> None:
    write_token(tmp_path / "home" / "oauth_token.json")
    app, _ = make_app()
    assert app.engine.handle("/model gemini_gca:gemini-2.5-pro").ok
    provider = app.providers.current()
    assert provider is not None and (provider.wire, provider.model) == ("gemini_gca", "gemini-2.5-pro")


def test_split_spec_keeps_colons_of_model_names() -> None:
    assert split_spec("gemini:gemini-2.5-pro", "openai") == ("gemini", "gemini-2.5-pro")
    assert split_spec("qwen2.5:7b", "openai") == ("openai", "qwen2.5:7b")  # an Ollama tag, not a provider
    assert split_spec("openai:qwen2.5:7b", "gemini") == ("openai", "qwen2.5:7b")


def test_models_lists_filters_and_feeds_completion(make_app: AppFactory) -> None:
    app, rec = make_app()
    assert app.engine.handle("/models").ok
    table = rec.kinds("table")[-1]
    assert "* fake-gpt" in table and "fake-gpt-mini" in table
    assert app.engine.handle("/models MINI").ok
    filtered = rec.kinds("table")[-1]
    assert "fake-gpt-mini" in filtered and "* fake-gpt" not in filtered
    assert app.engine.handle("/models nothing-like-this").ok
    assert "no models matching" in rec.kinds("info")[-1]
    options = complete_model(app.ctx, ["fake"])
    assert {"fake-gpt", "fake-gpt-mini", "gemini:", "openai:"} <= set(options)


def test_models_of_gemini(make_app: AppFactory) -> None:
    app, rec = make_app("gemini")
    assert app.engine.handle("/models").ok
    assert "fake-gemini-flash" in rec.kinds("table")[-1]
    assert "gemini:fake-gemini-flash" in complete_model(app.ctx, [""])


def test_models_when_unreachable_is_one_error_line(make_app: AppFactory) -> None:
    app, rec = make_app(openai_base_url="http://127.0.0.1:9/v1")
    assert app.engine.handle("/models").ok
    errors = rec.kinds("error")
    assert len(errors) == 1 and errors[0].startswith("cannot list the models of openai: cannot reach")


def test_usage_per_model_tools_and_skills(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app()
    assert app.engine.handle("/usage").ok
    assert "no model calls" in rec.kinds("info")[0]
    fake_llm.enqueue_tool_calls([("read_file", {"path": "hello.py"})], usage=(100, 10))
    fake_llm.enqueue_text("done", usage=(120, 5))
    assert app.engine.handle("read it").ok
    assert app.engine.handle("/model gemini:fake-gemini").ok
    fake_llm.enqueue_text("gem", usage=(50, 2))
    assert app.engine.handle("again").ok
    skill = app.store.catalog.skills()[0].name
    app.store.catalog.count_activation(skill)
    assert app.engine.handle("/stats").ok
    tokens, tools, skills = rec.kinds("table")[-3:]
    # Model | Prompt | Cached | Completion | Reasoning | Total | Cost (no price for fake models)
    assert "fake-gpt | 220 | 0 | 15 | 0 | 235 | unknown" in tokens
    assert "fake-gemini | 50 | 0 | 2 | 0 | 52 | unknown" in tokens
    assert "all models | 270 | 0 | 17 | 0 | 287 | unknown" in tokens
    assert "read_file | 1" in tools
    assert f"{skill} | 1" in skills
