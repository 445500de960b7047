"""What a call costs: list prices per model, and the cost of recorded usage.

Prices are US dollars per 1M tokens: input (uncached), cached input, output (reasoning
included; both providers bill it as output). Standard tier, the base (shorter-prompt)
tier where a model has two: gpt-5.4 bills prompts over 272k tokens, Gemini 2.5 Pro and
3 Pro prompts over 200k, at higher prices that this table does not apply.

Checked 2026-11-23 (PRICES_AS_OF). The providers' own pages (developers.openai.com/api/
docs/pricing, ai.google.dev/gemini-api/docs/pricing) could not be read from where this
table was made; each row says which published price lists it was checked against:
  [L] simonw/llm-prices, data/openai.json and data/google.json (as of 2026-08-05)
  [G] pydantic/genai-prices, prices/providers/openai.yml and google.yml (as of 2026-08-21),
      which cite the providers' pricing pages above
A row marked [L G] agrees in both. Not in the table on purpose: gpt-5.6 (it adds a
cache-write price that the usage slop records cannot apply) and models whose lists
disagree. Prices change: a user overrides or adds a model in the config file's
[prices] table or SLOP_PRICES (`model=INPUT/CACHED/OUTPUT,...`), through `price_table`;
a model not in the table shows its tokens and no cost."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from slop.errors import ConfigError
from slop.records import Usage
from slop.settings import price_numbers

PRICES_AS_OF = "2026-11-23"


@dataclass(frozen=True, slots=True)
class Price:
    input: float  # $ per 1M uncached input tokens
    cached_input: float  # $ per 1M cached input tokens
    output: float  # $ per 1M output tokens (reasoning included)


def _no_cache(input_price: float, output: float) -> Price:
    """A model with no cached-input price listed: cached tokens cost the input price."""
    return Price(input_price, input_price, output)


LIST_PRICES: dict[str, Price] = {
    # OpenAI. The -pro and -mini/-nano rows are listed even where a sibling exists, since
    # an unlisted name is priced by the longest entry it extends ("gpt-5-pro" -> "gpt-5").
    "gpt-5": Price(1.25, 0.125, 10.00),  # [L G]
    "gpt-5-mini": Price(0.25, 0.025, 2.00),  # [L G]
    "gpt-5-nano": Price(0.05, 0.005, 0.40),  # [L G]
    "gpt-5-pro": _no_cache(15.00, 120.00),  # [L G]
    "gpt-5.1": Price(1.25, 0.125, 10.00),  # [L G]; also prices gpt-5.1-codex [L]
    "gpt-5.1-codex-mini": Price(0.25, 0.025, 2.00),  # [L G]
    "gpt-5.2": Price(1.75, 0.175, 14.00),  # [L G]
    "gpt-5.2-pro": _no_cache(21.00, 168.00),  # [L G]
    "gpt-5.3-codex": Price(1.75, 0.175, 14.00),  # [G]
    "gpt-5.4": Price(2.50, 0.25, 15.00),  # [L G] prompts up to 272k
    "gpt-5.4-mini": Price(0.75, 0.075, 4.50),  # [L G]
    "gpt-5.4-nano": Price(0.20, 0.02, 1.25),  # [L G]
    "gpt-5.4-pro": _no_cache(30.00, 180.00),  # [L G] prompts up to 272k
    "gpt-5.5": Price(5.00, 0.50, 30.00),  # [L G] prompts up to 272k ([L]; [G] lists one tier)
    "gpt-5.5-pro": _no_cache(30.00, 180.00),  # [L G]
    "gpt-4.1": Price(2.00, 0.50, 8.00),  # [L G]
    "gpt-4.1-mini": Price(0.40, 0.10, 1.60),  # [L G]
    "gpt-4.1-nano": Price(0.10, 0.025, 0.40),  # [L G]
    "gpt-4o": Price(2.50, 1.25, 10.00),  # [L G]
    "gpt-4o-mini": Price(0.15, 0.075, 0.60),  # [L G]
    "o1": Price(15.00, 7.50, 60.00),  # [L G] ([L] lists it with o1-preview)
    "o1-mini": Price(1.10, 0.55, 4.40),  # [L G]
    "o1-pro": _no_cache(150.00, 600.00),  # [L G]
    "o3": Price(2.00, 0.50, 8.00),  # [G] since 2025-06-10 ([L] still has the old 10.00 / 40.00 input / output)
    "o3-mini": Price(1.10, 0.55, 4.40),  # [L G]
    "o3-pro": _no_cache(20.00, 80.00),  # [L G]
    "o3-deep-research": Price(10.00, 2.50, 40.00),  # [L G]
    "o4-mini": Price(1.10, 0.275, 4.40),  # [L G]
    "o4-mini-deep-research": Price(2.00, 0.50, 8.00),  # [L G]
    # Gemini (text input; the cached price is what a cache hit, implicit or explicit,
    # costs to read: 90 % off on 2.5 and 3; cache storage per hour is not billed per call)
    "gemini-2.5-pro": Price(1.25, 0.125, 10.00),  # [L G] prompts up to 200k
    "gemini-2.5-flash": Price(0.30, 0.03, 2.50),  # [L G]
    "gemini-2.5-flash-lite": Price(0.10, 0.01, 0.40),  # [L G]
    "gemini-2.0-flash": Price(0.10, 0.025, 0.40),  # [L G] ([L] lists no cached price)
    "gemini-2.0-flash-lite": _no_cache(0.075, 0.30),  # [L G] no caching
    "gemini-3-pro-preview": Price(2.00, 0.20, 12.00),  # [L G] prompts up to 200k ([L]: no cached price)
    "gemini-3-flash-preview": Price(0.50, 0.05, 3.00),  # [L G] ([L]: no cached price)
    "gemini-3.1-pro-preview": Price(2.00, 0.20, 12.00),  # [L G] prompts up to 200k ([L]: no cached price)
    "gemini-3.1-flash-lite": Price(0.25, 0.025, 1.50),  # [L G] (also prices its -preview)
    "gemini-3.5-flash": Price(1.50, 0.15, 9.00),  # [L G]
    "gemini-3.5-flash-lite": Price(0.30, 0.03, 2.50),  # [L G]
}

_PREFIXES = ("models/", "openai/", "google/", "openai:", "gemini:", "gemini_gca:")


def price_table(overrides: Mapping[str, object] | None = None) -> dict[str, Price]:
    """The list prices with the user's entries on top. An entry is a Price, a sequence
    (input, cached_input, output) or a mapping with those keys; cached_input may be left
    out (then it is the input price: no cache discount known)."""
    table = dict(LIST_PRICES)
    for model, value in (overrides or {}).items():
        table[normalize(model)] = _price(model, value)
    return table


def price_for(model: str, table: Mapping[str, Price]) -> Price | None:
    """The price of `model`: an exact entry, else the longest entry it extends with a
    dash (a dated snapshot such as gpt-4o-mini-2024-07-18, a -preview, -latest)."""
    name = normalize(model)
    if name in table:
        return table[name]
    best = max((k for k in table if name.startswith(k + "-")), key=len, default=None)
    return table[best] if best else None


def cost(usage: Usage, price: Price) -> float:
    """Dollars for one usage record (or a sum of them)."""
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    uncached = usage.prompt_tokens - cached
    return (uncached * price.input + cached * price.cached_input + usage.completion_tokens * price.output) / 1e6


def normalize(model: str) -> str:
    name = model.strip().lower()
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return name


def _named_fields(value: object) -> Mapping[str, object] | None:
    """A mapping, or a record with `input` and `output` attributes (the config file's
    [prices] entries), as a mapping; None for anything else."""
    if isinstance(value, Mapping):
        return value
    if hasattr(value, "input") and hasattr(value, "output"):
        return {name: getattr(value, name, None) for name in ("input", "cached_input", "output")}
    return None


def _price(model: str, value: object) -> Price:
    if isinstance(value, Price):
        return value
    fields = _named_fields(value)
    if fields is not None:
        try:
            cached = fields.get("cached_input")
            given = (str(fields["input"]), str(fields["input"] if cached is None else cached), str(fields["output"]))
        except KeyError:
            raise ConfigError(
                f"prices: {model!r} needs numbers 'input' and 'output' (and optionally 'cached_input')"
            ) from None
        return Price(*price_numbers("prices", model, given))
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) in (2, 3):
        numbers = price_numbers("prices", model, (str(v) for v in value))
        return Price(numbers[0], numbers[0], numbers[1]) if len(numbers) == 2 else Price(*numbers)
    raise ConfigError(f"prices: {model!r} must be [input, cached_input, output] in dollars per 1M tokens")


@dataclass(frozen=True, slots=True)
class Bill:
    """The cost of usage per model: `dollars` over the priced models, `unpriced` the
    models without a known price (their tokens are not in `dollars`)."""

    dollars: float
    unpriced: tuple[str, ...]

    @property
    def known(self) -> bool:
        return not self.unpriced


def bill(by_model: Iterable[Usage], table: Mapping[str, Price]) -> Bill:
    dollars, unpriced = 0.0, []
    for usage in by_model:
        price = price_for(usage.model, table)
        if price is None:
            unpriced.append(usage.model or "?")
        else:
            dollars += cost(usage, price)
    return Bill(dollars, tuple(unpriced))


def dollars_text(amount: float) -> str:
    """$0.0042 / $0.123 / $12.34: enough digits to see a small session move."""
    if amount < 0.01:
        return f"${amount:.4f}"
    if amount < 1:
        return f"${amount:.3f}"
    return f"${amount:,.2f}"


def spent_label(by_model: Iterable[Usage], table: Mapping[str, Price]) -> str:
    """The modeline's session cost, e.g. "$0.0123"; "" when any model's price is unknown
    (a partial sum would understate the bill)."""
    rows = list(by_model)
    if not rows:
        return ""
    total = bill(rows, table)
    return dollars_text(total.dollars) if total.known else ""
