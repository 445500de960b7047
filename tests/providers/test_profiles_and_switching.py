"""Provider profiles (`[providers.NAME]` in the config) and the ProviderManager that
/model drives: which server and key a profile's turn goes to, the line shown when its
key is missing, and switching with nothing configured."""

from __future__ import annotations

import pytest

from slop.config.model import Profile
from slop.errors import ConfigError
from slop.providers.gemini import GeminiProvider
from slop.providers.openai_compat import OpenAIProvider
from slop.providers.registry import ProviderConfig, ProviderManager, build, default_model, preload_sdk, resolve_spec
from tests.fakellm import FakeLLM
from tests.providers.helpers import run, user_prompt


def _config(fake: FakeLLM) -> ProviderConfig:
    return ProviderConfig(
        max_retries=0,
        profiles={
            "proxy": Profile(
                "proxy", wire="gemini", base_url=fake.gemini_base_url, api_key_env="PROXY_KEY", model="fake-gemini"
            ),
            "lab": Profile("lab", wire="openai", base_url=fake.openai_base_url, model="lab-model"),
        },
    )


def test_a_gemini_profile_sends_its_key_to_its_server(fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROXY_KEY", "proxy-secret")
    provider = build("proxy", "", _config(fake_llm))
    assert isinstance(provider, GeminiProvider) and provider.model == "fake-gemini"
    fake_llm.enqueue_text("via the proxy")
    assert run(provider, user_prompt())[0].text == "via the proxy"
    request = fake_llm.last_request()
    assert request.headers["x-goog-api-key"] == "proxy-secret"
    assert request.path == "/v1/models/fake-gemini:streamGenerateContent"


def test_a_profile_whose_key_is_not_set_says_which_variable(fake_llm: FakeLLM) -> None:
    with pytest.raises(ConfigError) as info:
        build("proxy", "", _config(fake_llm))
    assert str(info.value) == "provider 'proxy' reads its key from $PROXY_KEY, which is not set"


def test_an_openai_profile_without_a_key_variable_and_a_model_named_at_switch(fake_llm: FakeLLM) -> None:
    provider = build("lab", "other-model", _config(fake_llm))
    assert isinstance(provider, OpenAIProvider) and provider.model == "other-model"
    fake_llm.enqueue_text("from the lab")
    assert run(provider, user_prompt())[0].text == "from the lab"
    assert fake_llm.last_request().json["model"] == "other-model"


def test_profile_names_are_provider_names_in_model_specs(fake_llm: FakeLLM) -> None:
    config = _config(fake_llm)
    assert resolve_spec("lab:qwen3:8b", config) == ("lab", "qwen3:8b")  # an Ollama tag keeps its colon
    assert resolve_spec("nolab:x", config) == ("", "nolab:x")
    assert default_model("lab", config) == "lab-model"
    assert default_model("no-such-provider", config) == ""


def test_the_manager_switches_to_a_profile_and_warms_its_client(fake_llm: FakeLLM) -> None:
    manager = ProviderManager(_config(fake_llm), "lab")
    assert manager.label == "lab-model"  # before anything was built: the profile's model
    assert manager.wire() == "openai"
    manager.warm()  # builds the client now, so the first turn does not pay for it
    current = manager.current()
    assert isinstance(current, OpenAIProvider) and current.model == "lab-model"
    assert manager.switch("lab:bigger") == ("lab", "bigger")
    assert manager.current() is not current and manager.label == "bigger"


def test_the_manager_with_nothing_configured(fake_llm: FakeLLM) -> None:
    manager = ProviderManager(_config(fake_llm), None)
    assert (manager.current(), manager.label, manager.wire()) == (None, "none", None)
    manager.warm()  # nothing to warm: not an error
    with pytest.raises(ConfigError, match="no provider is configured; use /model openai:NAME or /model gemini:NAME"):
        manager.switch("some-model")
    assert manager.switch("lab:m1") == ("lab", "m1")


def test_preloading_an_sdk_never_raises() -> None:
    preload_sdk("openai")
    preload_sdk(None)
    preload_sdk("no-such-provider")
