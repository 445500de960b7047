"""What a session costs: cached and reasoning tokens as the providers report them,
recorded per call through the real SDKs, priced by /usage."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from slop.errors import ConfigError
from slop.providers.prices import LIST_PRICES, Price, bill, cost, price_for, price_table, spent_label
from slop.records import Usage
from slop.settings import env_settings
from slop.store import Store
from tests.fakellm import FakeLLM
from tests.providers.conftest import AppFactory

PRICED = (("fake-gpt", (2.0, 0.5, 8.0)), ("fake-gemini", (1.0, 0.25, 4.0)))


def _usage_rows(db: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT model, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens FROM usage ORDER BY id"
        ).fetchall()
    finally:
        conn.close()


def test_openai_cached_and_reasoning_tokens_are_recorded_and_priced(
    make_app: AppFactory, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    app, rec = make_app(prices=PRICED)
    fake_llm.enqueue_tool_calls([("read_file", {"path": "hello.py"})], usage=(3000, 40, 10, 2048))
    fake_llm.enqueue_text("done", reasoning="thought", usage=(3200, 20, 5, 2944))
    assert app.engine.handle("read hello.py").ok
    # OpenAI: completion_tokens includes the reasoning tokens (details.reasoning_tokens).
    assert _usage_rows(tmp_path / "ledger.db") == [
        ("fake-gpt", 3000, 50, 2048, 10),
        ("fake-gpt", 3200, 25, 2944, 5),
    ]
    assert app.engine.handle("/usage").ok
    table = rec.kinds("table")[0]
    dollars = ((6200 - 4992) * 2.0 + 4992 * 0.5 + 75 * 8.0) / 1e6
    assert f"fake-gpt | 6,200 | 4,992 (81%) | 75 | 15 | 6,275 | ${dollars:.4f}" in table


def test_gemini_cached_content_and_thoughts_are_recorded(
    make_app: AppFactory, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    app, rec = make_app("gemini", prices=PRICED)
    fake_llm.enqueue_text("gem", reasoning="hm", usage=(5000, 30, 12, 4096))
    assert app.engine.handle("hello").ok
    # Gemini: thoughtsTokenCount is apart from candidatesTokenCount; both are billed output.
    assert _usage_rows(tmp_path / "ledger.db") == [("fake-gemini", 5000, 42, 4096, 12)]
    assert app.engine.handle("/usage").ok
    dollars = (904 * 1.0 + 4096 * 0.25 + 42 * 4.0) / 1e6
    assert f"fake-gemini | 5,000 | 4,096 (82%) | 42 | 12 | 5,042 | ${dollars:.4f}" in rec.kinds("table")[0]
    assert any("list prices as of" in line for line in rec.kinds("info"))


def test_session_cost_over_two_models_and_an_unpriced_one(make_app: AppFactory, fake_llm: FakeLLM) -> None:
    app, rec = make_app(prices=PRICED[:1])  # fake-gemini has no price
    fake_llm.enqueue_text("a", usage=(1000, 10))
    assert app.engine.handle("one").ok
    assert app.engine.handle("/model gemini:fake-gemini").ok
    fake_llm.enqueue_text("b", usage=(500, 5))
    assert app.engine.handle("two").ok
    assert app.engine.handle("/usage").ok
    table = rec.kinds("table")[0]
    gpt = (1000 * 2.0 + 10 * 8.0) / 1e6
    assert "fake-gemini | 500 | 0 | 5 | 0 | 505 | unknown" in table
    assert f"all models | 1,500 | 0 | 15 | 0 | 1,515 | ${gpt:.4f} + unknown" in table
    info = " ".join(rec.kinds("info"))
    assert "no price known for fake-gemini: tokens only" in info and "SLOP_PRICES='fake-gemini=" in info
    # The modeline shows no partial sum: it would understate the bill.
    assert spent_label(app.store.usage.by_model(app.ctx.session), price_table(dict(PRICED[:1]))) == ""
    assert spent_label(app.store.usage.by_model(app.ctx.session), price_table(dict(PRICED))) != ""


def test_price_lookup_follows_dated_and_prefixed_names() -> None:
    table = price_table()
    assert price_for("gpt-4o-mini-2024-07-18", table) == LIST_PRICES["gpt-4o-mini"]
    assert price_for("gpt-4o-2024-08-06", table) == LIST_PRICES["gpt-4o"]
    assert price_for("models/gemini-2.5-flash-lite", table) == LIST_PRICES["gemini-2.5-flash-lite"]
    assert price_for("gemini-2.5-flash-preview-05-20", table) == LIST_PRICES["gemini-2.5-flash"]
    assert price_for("openai/gpt-4.1-mini", table) == LIST_PRICES["gpt-4.1-mini"]
    assert price_for("llama3.1:8b", table) is None
    assert price_for("gpt-4omega", table) is None  # a prefix only counts at a dash


def test_a_dearer_sibling_is_not_priced_as_its_base_model() -> None:
    """ "gpt-5-pro" extends "gpt-5" with a dash, but costs 12x as much: the table names
    each such sibling, so the longest-entry rule never bills it at the base price."""
    table = price_table()
    for sibling, base in (
        ("gpt-5-pro", "gpt-5"),
        ("o1-pro", "o1"),
        ("o3-pro", "o3"),
        ("gpt-5.4-pro-2026-03-05", "gpt-5.4"),
        ("gpt-5.1-codex-mini", "gpt-5.1"),
        ("gemini-3.5-flash-lite", "gemini-3.5-flash"),
    ):
        price, base_price = price_for(sibling, table), price_for(base, table)
        assert price is not None and base_price is not None and price != base_price, sibling
    # A -pro model lists no cached price: cached tokens are billed as input, never at the base's discount.
    pro = price_for("gpt-5-pro", table)
    assert pro is not None and pro.cached_input == pro.input


def test_user_prices_override_and_extend_the_table() -> None:
    table = price_table({"gpt-4o": [1, 0.1, 3], "local-model": {"input": 0, "output": 0}, "x": (1, 2)})
    assert table["gpt-4o"] == Price(1, 0.1, 3)
    assert table["local-model"] == Price(0, 0, 0)
    assert table["x"] == Price(1, 1, 2)  # no cached price given: no discount assumed
    usage = Usage(1_000_000, 1_000_000, 2_000_000, "gpt-4o", cached_tokens=400_000)
    assert cost(usage, table["gpt-4o"]) == pytest.approx(0.6 + 0.04 + 3)
    assert bill([usage, Usage(5, 5, 10, "mystery")], table).unpriced == ("mystery",)
    with pytest.raises(ConfigError, match="input"):
        price_table({"m": {"output": 1}})
    with pytest.raises(ConfigError, match="negative"):
        price_table({"m": [1, -1, 2]})


@dataclass(frozen=True)
class ConfigPrice:
    """The shape of a config file's [prices.MODEL] entry: cached_input may be absent."""

    input: float = 0.0
    output: float = 0.0
    cached_input: float | None = None


def test_config_file_price_records_are_read_like_mappings() -> None:
    table = price_table({"local": ConfigPrice(0.2, 0.8), "gpt-4o": ConfigPrice(2.0, 8.0, 0.5)})
    assert table["local"] == Price(0.2, 0.2, 0.8)  # no cached price: cached tokens cost the input price
    assert table["gpt-4o"] == Price(2.0, 0.5, 8.0)
    with pytest.raises(ConfigError, match="negative"):
        price_table({"m": ConfigPrice(-1.0, 1.0)})


def test_slop_prices_env_is_read_and_bad_values_say_what_is_wrong() -> None:
    values = env_settings({"SLOP_PRICES": "my-model=0.5/0.05/2, other=1/4"})
    assert values["prices"] == (("my-model", (0.5, 0.05, 2.0)), ("other", (1.0, 4.0)))
    for bad, said in (
        ("my-model=abc/1/2", "must be numbers"),
        ("my-model", "model=INPUT/CACHED/OUTPUT"),
        ("m=1/2/3/4", "model=INPUT/CACHED/OUTPUT"),
        ("m=-1/0/1", "negative"),
    ):
        with pytest.raises(ConfigError, match=said) as info:
            env_settings({"SLOP_PRICES": bad})
        assert "\n" not in str(info.value) and "SLOP_PRICES" in str(info.value)


def test_an_older_ledger_gains_the_usage_columns_and_keeps_its_rows(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    Store.open(str(db)).close()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version=6")  # as written before the usage migration ...
    conn.execute("ALTER TABLE usage DROP COLUMN reasoning_tokens")  # ... half-applied: one column there
    conn.execute(
        "INSERT INTO usage(session_id, model, prompt_tokens, completion_tokens, total_tokens)"
        " VALUES ('s', 'gpt-4o', 10, 2, 12)"
    )
    conn.commit()
    conn.close()
    store = Store.open(str(db))
    try:
        assert store.usage.by_model("s") == [Usage(10, 2, 12, "gpt-4o", 0, 0)]
        store.usage.record("s", None, Usage(20, 3, 23, "gpt-4o", 16, 1))
        assert store.usage.by_model("s") == [Usage(30, 5, 35, "gpt-4o", 16, 1)]
    finally:
        store.close()
