"""Which variables count as keys, and how pieces of a key are redacted."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from slop.settings import Settings, is_secret_name, secrets_of
from slop.tools.childenv import child_environment
from slop.tools.output import REDACTED, redact

KEY = "sk-proj-R4nd0mPartOfTheKeyXyZ0123456789abcd"


def test_secret_names() -> None:
    for name in (
        "OPENAI_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "ANTHROPIC_API_KEY",
        "openrouter_api_key",
        "REPLICATE_API_TOKEN",
        "ANTHROPIC_AUTH_TOKEN",
        "HF_TOKEN",
        "SLOP_OAUTH_TOKEN",
        "SLOP_SECRET",
    ):
        assert is_secret_name(name), name
    for name in ("PATH", "HOME", "OPENAI_BASE_URL", "SLOP_MODEL", "SLOP_HOME", "GH_TOKEN", "KEYBOARD"):
        assert not is_secret_name(name), name


def test_child_environment_keeps_what_is_passed() -> None:
    env = {"PATH": "/bin", "OPENAI_API_KEY": "k" * 20, "GROQ_API_KEY": "g" * 20}
    assert child_environment((), env) == {"PATH": "/bin"}
    assert child_environment(("groq_api_key",), env) == {"PATH": "/bin", "GROQ_API_KEY": "g" * 20}


def test_every_key_in_the_environment_is_a_secret_not_only_the_active_one() -> None:
    settings = Settings(gemini_api_key="AIzaActiveGeminiKey123456")
    env = {"GOOGLE_API_KEY": "AIzaOtherGoogleKey654321", "OPENAI_API_KEY": "short", "PATH": "/usr/bin:/bin"}
    assert set(secrets_of(settings, env)) == {"AIzaActiveGeminiKey123456", "AIzaOtherGoogleKey654321"}


def test_pieces_of_a_key_are_redacted() -> None:
    assert redact(f"a {KEY} b", [KEY]) == f"a {REDACTED} b"
    cut = f"{KEY[:20]}\n[... 99 characters cut from the middle ...]\n{KEY[20:]}"
    assert KEY[8:16] not in redact(cut, [KEY]) and KEY[-8:] not in redact(cut, [KEY])
    assert redact("ends with sk-proj-R4nd", [KEY]) == f"ends with {REDACTED}"
    # the public prefix alone, and ordinary text, stay
    assert redact("keys look like sk-proj-...", [KEY]) == "keys look like sk-proj-..."


@given(st.integers(min_value=0, max_value=len(KEY)), st.text(alphabet="xyz \n", max_size=50))
def test_no_long_run_of_a_key_survives_any_cut(cut: int, filler: str) -> None:
    text = redact(filler + KEY[:cut] + "\n[... cut ...]\n" + KEY[cut:] + filler, [KEY])
    random_part = KEY[8:]
    assert not any(random_part[i : i + 8] in text for i in range(len(random_part) - 7))


def test_batch_json_escapes_what_a_terminal_would_obey_and_loses_nothing() -> None:
    import io
    import json

    from slop.batch import JsonEvents

    hostile = "ok\x1b]0;title\x07 \x9b2J \u202eevil\u200b é 你"
    for fmt in ("jsonl", "json"):
        out = io.StringIO()
        events = JsonEvents(fmt, out)
        events.assistant_delta(hostile)
        events.assistant_end(5)
        events.finish(True, session="s", group_id="g", error=None)
        text = out.getvalue()
        assert not any(ch in text for ch in "\x1b\x07\x9b\u202e\u200b") and "é 你" in text
        decoded = [json.loads(line) for line in text.splitlines()]
        assert hostile in _strings(decoded), fmt  # the consumer gets the reply exactly


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for item in value for s in _strings(item)] if isinstance(value, list) else []
